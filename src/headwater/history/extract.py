"""Extraction of query history: one fresh session per log session, one ``Outcome`` per statement.

This is the one code path behind ``ingest-log`` (in worker processes) and ``headwater.spark`` (in
executors), so both give the same events. Rows whose statement failed in the database (state not
OK/EOF, or an error code) are not extracted at all: a failed ``CREATE TABLE`` created nothing.

>>> from headwater.history.record import LogRecord
>>> hx = HistoryExtractor(None, dialect="doris")
>>> rows = [LogRecord("USE shop", "q1"), LogRecord("INSERT INTO t SELECT a FROM s", "q2"),
...         LogRecord("INSERT INTO t SELECT nope FROM", "q3"),
...         LogRecord("INSERT INTO t SELECT a FROM s", "q4", state="ERR")]
>>> [(o.query_id, o.kind, o.detail if o.kind != "failed" else "…") for o in hx.session(rows)]
[('q1', 'skipped', 'use'), ('q2', 'event', None), ('q3', 'failed', '…'), ('q4', 'not-succeeded', 'ERR')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from headwater.catalog import Catalog
from headwater.extract import ExtractOptions, Extractor
from headwater.extract.reuse import StatementReuse
from headwater.history.record import LogRecord
from headwater.model import LineageInfo
from headwater.model.slots import frozen_maker

EVENT, SKIPPED, FAILED, NOT_SUCCEEDED = "event", "skipped", "failed", "not-succeeded"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one statement of the log.

    ``kind``: ``event`` (``events`` set), ``skipped`` (``detail`` names the guide's rule),
    ``failed`` (``detail`` is the diagnostic: the statement did not parse or bind), or
    ``not-succeeded`` (the database reported a failure; ``detail`` is its state / error code).
    """

    query_id: str
    session: str
    kind: str
    detail: str | None = None
    events: tuple[LineageInfo, ...] = ()
    reused: bool = False  # answered from the shape of an earlier statement (``headwater.extract.reuse``)


_new_outcome = frozen_maker(Outcome)  # ``Outcome(…)`` at half the cost (one for each event of a log)


def rule_name(skip_reason: str | None) -> str:
    """The rule's short name: ``values-insert: …`` → ``values-insert``."""
    return (skip_reason or "no-event").split(":", 1)[0].strip()


class HistoryExtractor:
    """Extracts sessions of log records against one base catalog (shared, read-only).

    ``reuse_size`` bounds the memory of statement shapes shared by all sessions (0: every statement
    is extracted anew); re-runs with other literals are then not parsed again, with the same events.
    """

    def __init__(
        self,
        catalog: Catalog | None,
        dialect: str = "doris",
        statements: str = "doris",
        default_catalog: str = "internal",
        reuse_size: int = 10_000,
    ) -> None:
        self.catalog = catalog
        self.options = ExtractOptions(dialect=dialect, statements=statements)
        self.default_catalog = default_catalog
        self.reuse = StatementReuse(reuse_size) if reuse_size > 0 else None

    def session(self, records: Iterable[LogRecord]) -> Iterator[Outcome]:
        """Replay one session's records (in the order given) in a fresh extractor session."""
        ex = Extractor(self.catalog, self.options, catalog_name=self.default_catalog, reuse=self.reuse)
        for r in records:
            qid = r.key
            if not r.succeeded:
                detail = r.state or ""
                if r.error_code and r.error_code.strip() not in ("", "0"):
                    detail = f"{detail} error {r.error_code}".strip()
                yield Outcome(qid, r.session, NOT_SUCCEEDED, detail)
                continue
            hits = self.reuse.hits if self.reuse is not None else 0
            try:
                result = ex.run(r.sql, r.run_info(self.default_catalog))
            except Exception as exc:  # the extractor reports instead of raising; this is a last guard
                yield Outcome(qid, r.session, FAILED, f"internal error: {type(exc).__name__}: {exc}")
                continue
            reused = self.reuse is not None and self.reuse.hits > hits
            many = len(result.statements) > 1
            for k, s in enumerate(result.statements):
                sid = f"{qid}.{k + 1}" if many else qid
                if s.events:
                    yield _new_outcome(sid, r.session, EVENT, None, s.events, reused)
                elif s.failed:
                    message = s.error.message if s.error else "failed"
                    yield Outcome(sid, r.session, FAILED, message)
                else:
                    yield Outcome(sid, r.session, SKIPPED, rule_name(s.skip_reason), (), reused)
