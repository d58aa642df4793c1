"""What extraction is given (``RunInfo``, ``ExtractOptions``) and what it returns (``ScriptResult``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from headwater.extract.guards import Limits
from headwater.model import Diagnostic, LineageInfo, Severity


@dataclass(frozen=True, slots=True)
class RunInfo:
    """Facts about the execution that the SQL text cannot tell: who, from where, when.

    ``database`` / ``catalog``, when given, set the session's current database and catalog (as the
    log row or connection says), for this statement and those after it.
    ``query_id`` None means one is generated (deterministically from the statement text and
    its position, so re-running the same script gives the same ids).
    """

    query_id: str | None = None
    user: str | None = None
    client_ip: str | None = None
    database: str | None = None
    catalog: str | None = None
    timestamp: str | None = None
    duration_ms: int = -1
    external_catalog_properties: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ExtractOptions:
    """``dialect``: any sqlglot dialect name, ``generic``, or ``flink``.

    ``statements``: ``doris`` (the guide's rules) or ``all`` (also SELECT, views, UPDATE, MERGE,
    VALUES inserts).

    ``view_nodes``: views are datasets of their own (what ``headwater ingest`` records): a
    ``CREATE VIEW`` makes an event (its columns from its query), and a statement reading such a
    view (``Extractor.recorded_views``, ``Extractor.external_views``) reads the view's columns, as a
    table's, instead of expanding the view into its base tables and listing it in ``via`` (the Doris
    form, the default, and still the way through a view only a schema file or live database knows).

    ``limits``: the per-statement limits (``headwater.extract.guards``); by default from the
    environment (``HEADWATER_EXTRACT_MAX_…``) or the built-in values.
    """

    dialect: str = "doris"
    statements: str = "doris"
    view_nodes: bool = False
    limits: Limits = field(default_factory=Limits.from_env)


@dataclass(frozen=True, slots=True)
class StatementResult:
    """The outcome of one statement of a script.

    ``kind`` is what the statement was (``insert``, ``ctas``, ``ddl``, ``use``, ``select``…);
    ``skip_reason`` names the rule that made no event, when none was made;
    ``error`` is set when the statement could not be parsed or bound at all.
    """

    index: int
    line: int
    column: int
    sql: str
    kind: str
    events: tuple[LineageInfo, ...] = ()
    skip_reason: str | None = None
    error: Diagnostic | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None and self.error.severity == Severity.ERROR


@dataclass(frozen=True, slots=True)
class ScriptResult:
    statements: tuple[StatementResult, ...]

    @property
    def events(self) -> list[LineageInfo]:
        return [e for s in self.statements for e in s.events]

    @property
    def failures(self) -> list[StatementResult]:
        return [s for s in self.statements if s.failed]
