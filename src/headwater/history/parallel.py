"""Extraction in N processes, whole sessions per task, results in task order.

Each worker opens the catalog once (schema file and/or live database) and keeps it for every task.
``workers=1`` runs in this process. Results come back in the order of the tasks whatever the number
of workers, so the store receives the same batches in the same order.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from headwater.history.extract import FAILED, HistoryExtractor, Outcome
from headwater.history.ordering import Session
from headwater.model import EventFormatError, event_from_dict, event_to_dict


@dataclass(frozen=True, slots=True)
class ExtractSpec:
    """How to extract: the catalog to open (``--schema`` file, ``--catalog-url``) and the dialect."""

    dialect: str = "doris"
    statements: str = "doris"
    schema_file: str | None = None
    catalog_url: str | None = None
    default_catalog: str = "internal"
    reuse_size: int = 10_000

    def extractor(self) -> HistoryExtractor:
        from headwater.catalog import open_catalog

        catalog = open_catalog(self.schema_file, self.catalog_url, self.dialect, self.default_catalog)
        return HistoryExtractor(catalog, self.dialect, self.statements, self.default_catalog, self.reuse_size)


_worker: HistoryExtractor | None = None


def _init(spec: ExtractSpec) -> None:
    import logging
    import signal

    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent decides
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    _worker = spec.extractor()
    from headwater.extract.collector import freeze_import_heap

    freeze_import_heap()  # after the extractor loaded its modules: the collector never walks them again


Packed = tuple[str, str, str, "str | None", list[dict[str, Any]], bool]


def _run(task: Sequence[Session]) -> list[Packed]:
    """A task in a worker; events travel as their JSON-ready dicts (events hold read-only mappings)."""
    assert _worker is not None
    return [
        (o.query_id, o.session, o.kind, o.detail, [event_to_dict(e) for e in o.events], o.reused)
        for o in run_task(_worker, task)
    ]


def _unpack(packed: list[Packed]) -> list[Outcome]:
    """The outcomes a worker sent; a statement whose event does not decode (it could not be recorded
    either) fails alone, with the decoder's message, instead of stopping the run."""
    out = []
    for q, s, k, d, events, reused in packed:
        try:
            out.append(Outcome(q, s, k, d, tuple(event_from_dict(e) for e in events), reused))
        except EventFormatError as err:
            out.append(Outcome(q, s, FAILED, f"invalid event: {err}"))
    return out


def run_task(hx: HistoryExtractor, task: Sequence[Session]) -> list[Outcome]:
    """The outcomes of a task's sessions, session after session."""
    return [o for s in task for o in hx.session(s.records)]


def run_tasks(tasks: Sequence[Sequence[Session]], spec: ExtractSpec, workers: int = 1) -> Iterator[list[Outcome]]:
    """The outcomes of each task, in task order."""
    if workers <= 1 or len(tasks) <= 1:
        hx = spec.extractor()
        for task in tasks:
            yield run_task(hx, task)
        return
    ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads and open connections
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init, initargs=(spec,))
    try:
        for packed in pool.map(_run, tasks):
            yield _unpack(packed)
    finally:  # also when the caller stops early (an interrupted run): the tasks not started are dropped
        pool.shutdown(wait=True, cancel_futures=True)
