"""``LineageStore``: the store's public face. Writes are serialised per database in this process
(SQLite allows one writer; PostgreSQL writers also lock the jobs they re-record) and every public
method is safe to call from any thread.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine

from headwater.model import LineageInfo, TableRef, event_to_json
from headwater.model.ol_naming import OpenLineageNaming
from headwater.model.secrets import redact_event
from headwater.store import aliases as _aliases
from headwater.store import delete as _delete
from headwater.store import fields as _fields
from headwater.store import impact as _impact
from headwater.store import jobs as _jobs
from headwater.store import lineage as _lineage
from headwater.store import summary as _summary
from headwater.store import table_statistics
from headwater.store import trace as _trace
from headwater.store.engine import READ, checkpoint, write_lock
from headwater.store.errors import InvalidInput
from headwater.store.facts import Facts, Names
from headwater.store.from_ddl import TableDefinition, definition_facts
from headwater.store.from_event import event_facts
from headwater.store.from_external import lineage_facts
from headwater.store.from_openlineage import dataset_aliases, run_event_facts
from headwater.store.jobs import ClosedJobs, JobHistory
from headwater.store.names import dataset_name, to_us
from headwater.store.node_properties import set_properties
from headwater.store.producer_runs import runs_only_where_extracted
from headwater.store.rename import Renaming, apply_renaming, renaming_of, renaming_runs
from headwater.store.resolve import resolve
from headwater.store.results import (
    DeleteResult,
    FieldImpact,
    FieldOrigin,
    ImpactAnalysis,
    LineageGraph,
    LineageStats,
    LineageSummary,
    NodeInfo,
    TraceResult,
)
from headwater.store.traverse import DEFAULT_MAX_NODES
from headwater.store.types import ChangeType, DatasetRef, Direction, ExecutionContext, FieldMapping
from headwater.store.view_hops import through_views
from headwater.store.write import NodeCache, OpenEdges, WriteResult, apply, chunks, gc_paused, membership_epoch

AsOf = datetime | str | int | None
BATCH = 500
NODE_CACHE = 20_000
"""Committed nodes a writer keeps the ids of (``write.NodeCache``; ~300 bytes each): past it the cache
starts over, and a node it no longer holds is looked up by name in its batch's one read (measured: no
slower than a cache of every node, for 10,000 events of new jobs), so memory stays flat however many
jobs a run records."""
OPEN_EDGE_CACHE = 50_000
"""Open edges a writer keeps of the jobs it recorded (``write.OpenEdges``; ~300 bytes each)."""


class LineageStore:
    """Record and query lineage in one database (see ``open_store``)."""

    def __init__(
        self,
        engine: Engine,
        namespaces: Collection[str] = ("headwater",),
        naming: OpenLineageNaming | None = None,
    ) -> None:
        self.engine = engine
        self._writes = engine.execution_options(headwater_write=True)
        """``engine`` whose connections write (its pool and events): the option set once, not per
        recording (~28,000 instructions a ``record()``)."""
        self.namespaces = tuple(namespaces)
        self.naming = naming or OpenLineageNaming()  # OpenLineage namespace ↔ catalog, for RunEvents
        url = engine.url.render_as_string(hide_password=True)
        self._lock: AbstractContextManager[Any] = write_lock(url) if engine.dialect.name == "sqlite" else nullcontext()
        self._guard = threading.Lock()
        self._nodes = NodeCache()  # committed nodes: ids, and since when their memberships are open
        self._epoch = -1  # the membership epoch ``_nodes`` was filled in
        self._open = OpenEdges()  # committed open edges of jobs (SQLite), valid in ``_epoch`` too
        self._names = Names()  # normalised names by raw name

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        """Close the store's connections; a SQLite file's write-ahead log is checkpointed into the file
        first (``engine.checkpoint``), so that the ``.db`` alone is a complete copy."""
        table_statistics.wait(self.engine)  # a look at PostgreSQL's statistics this store started
        checkpoint(self.engine)
        self.engine.dispose()

    # ---------------------------------------------------------------- recording

    def _write(self, facts: Sequence[Facts | Renaming]) -> WriteResult:
        result = WriteResult()
        staged = NodeCache()
        open_staged = OpenEdges()
        with self._lock, self._writes.connect() as conn:
            with _write_transaction(conn):
                epoch = membership_epoch(conn)
                same = epoch == self._epoch
                known = self._nodes if same else NodeCache()
                open_known = self._open if same else OpenEdges()
                for run in renaming_runs(facts):  # a rename changes names: the caches start over
                    if isinstance(run, Renaming):
                        apply_renaming(conn, run)
                        known, staged, epoch = NodeCache(), NodeCache(), -1
                        open_known, open_staged = OpenEdges(), OpenEdges()
                        run = [run.facts]
                    for part in chunks(run, BATCH):
                        result.add(apply(conn, part, known, staged, open_known, open_staged))
            # committed: the ids are valid from now on (nodes are never deleted), and so are the
            # memberships until a deletion closes some (it changes the epoch), and the open edges
            # of a job until another event of it is recorded (``OpenEdges``) or the epoch changes
            with self._guard:
                if epoch != self._epoch or len(self._nodes) + len(staged) > NODE_CACHE:
                    self._nodes = NodeCache()
                    self._open = OpenEdges()
                    self._epoch = epoch
                self._nodes.update(staged)
                self._open.update(open_staged)
                if len(self._open) > OPEN_EDGE_CACHE:
                    self._open = OpenEdges()
        return result

    def record(self, event: LineageInfo) -> WriteResult:
        """Record one headwater event; a replay of a recorded ``event_id`` changes nothing."""
        with gc_paused():  # as ``record_batch``: one young collection after the event, not several in it
            return self._write(self._event_facts([event]))

    def record_batch(self, events: Iterable[LineageInfo]) -> WriteResult:
        """Record many events in one transaction (all or nothing)."""
        with gc_paused():
            return self._write(self._event_facts(events))

    def _event_facts(self, events: Iterable[LineageInfo]) -> list[Facts | Renaming]:
        """The facts of headwater events; those read through views the store knows (the Doris form's
        ``via``) as reading the views (``view_hops``), with the event as sent for their payload."""
        names = self._names
        events = list(events)
        if not any(e.via for e in events):
            return [_translated(e, names) for e in events]
        with self._read() as conn:  # a view's other name (a symlink's) is the view
            held = _aliases.canonical(conn, {_view_name(v) for e in events for v in e.via if v.database is not None})
            routed = through_views(conn, events, held)
        out: list[Facts | Renaming] = []
        for sent, event in zip(events, routed, strict=True):
            f = _translated(event, names)
            if held and isinstance(f, Facts):
                _aliases.rekey(f, held)
            if event is not sent and isinstance(f, Facts):
                f.payload = event_to_json(redact_event(sent))
            out.append(f)
        return out

    def record_lineage(
        self,
        context: ExecutionContext,
        inputs: Sequence[DatasetRef],
        outputs: Sequence[DatasetRef],
        field_mappings: Sequence[FieldMapping] = (),
        metadata: Mapping[str, str] | None = None,
    ) -> WriteResult:
        """Record lineage another tool reports (a pipeline step's inputs, outputs, field mappings)."""
        return self._write([lineage_facts(context, inputs, outputs, field_mappings, metadata)])

    def record_lineage_batch(
        self,
        calls: Iterable[
            tuple[
                ExecutionContext, Sequence[DatasetRef], Sequence[DatasetRef], Sequence[FieldMapping], Mapping[str, str]
            ]
        ],
    ) -> WriteResult:
        """Many ``record_lineage`` calls (argument tuples) in one transaction (all or nothing)."""
        return self._write([lineage_facts(*call) for call in calls])

    def record_definitions(self, definitions: Iterable[TableDefinition]) -> WriteResult:
        """Record tables' DDL (``CREATE TABLE`` with columns) as catalog knowledge (``from_ddl``)."""
        return self._write([definition_facts(d, names=self._names) for d in definitions])

    def record_openlineage(
        self,
        run_event: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        naming: OpenLineageNaming | None = None,
    ) -> WriteResult:
        """Record one OpenLineage RunEvent (parsed JSON), or a list of them in one transaction.

        ``naming`` (default: the store's) says which namespaces are which catalogs."""
        items = [run_event] if isinstance(run_event, Mapping) else list(run_event)
        naming = naming or self.naming
        with self._read() as conn:  # a dataset and its symlinks' names are one node
            aliases = dataset_aliases(conn, items, naming, self.namespaces)
        facts = [run_event_facts(e, self.namespaces, naming, aliases) for e in items]
        with self._read() as conn:  # another producer's run of a job headwater extracted: the run only
            runs_only_where_extracted(conn, items, facts)
        return self._write(facts)

    def set_node_properties(self, updates: Mapping[tuple[str, str], Mapping[str, str]], prefix: str) -> int:
        """Merge properties into existing nodes (by (type, name) key; keys under ``prefix`` replaced)."""
        return self._writing(lambda conn: set_properties(conn, updates, prefix))

    # ---------------------------------------------------------------- queries

    def _read(self) -> AbstractContextManager[Connection]:
        return self.engine.connect().execution_options(**READ)

    def resolve(self, node: str | int) -> NodeInfo:
        with self._read() as conn:
            return resolve(conn, node)

    def get_lineage(
        self,
        node: str | int,
        direction: Direction | str = Direction.BOTH,
        max_depth: int | None = 3,
        as_of: AsOf = None,
        node_types: Collection[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
        max_nodes: int = DEFAULT_MAX_NODES,
        seen_since: AsOf = None,
    ) -> LineageGraph:
        """The graph around ``node``; ``seen_since`` (a time, or a duration back from now: ``30d``)
        leaves out jobs without a project file not seen since then (``jobs.py``)."""
        with self._read() as conn:
            hidden = _jobs.hidden_jobs(conn, _jobs.parse_since(seen_since))
            return _lineage.get_lineage(
                conn, node, direction, max_depth, to_us(as_of), node_types, limit, offset, max_nodes, hidden
            )

    def get_upstream(self, node: str | int, **kw: Any) -> LineageGraph:
        return self.get_lineage(node, Direction.UPSTREAM, **kw)

    def get_downstream(self, node: str | int, **kw: Any) -> LineageGraph:
        return self.get_lineage(node, Direction.DOWNSTREAM, **kw)

    def get_full_lineage(self, node: str | int, **kw: Any) -> LineageGraph:
        """Both directions, no depth limit (still capped by ``max_nodes``)."""
        kw.setdefault("max_depth", None)
        return self.get_lineage(node, Direction.BOTH, **kw)

    def get_field_origin(
        self,
        field: str | int,
        include_indirect: bool | None = None,
        as_of: AsOf = None,
        max_depth: int | None = None,
        limit: int | None = None,
        offset: int = 0,
        level: str | None = None,
        seen_since: AsOf = None,
    ) -> FieldOrigin:
        """Origins of ``field`` at ``level`` (``direct``, ``field`` — the default — or ``all``;
        ``include_indirect`` is the former flag: True = ``all``, False = ``direct``); ``seen_since``
        as for ``get_lineage``."""
        with self._read() as conn:
            hidden = _jobs.hidden_jobs(conn, _jobs.parse_since(seen_since))
            return _fields.get_field_origin(
                conn, field, include_indirect, to_us(as_of), max_depth, limit, offset, level=level, hidden_jobs=hidden
            )

    def get_field_impact(
        self,
        field: str | int,
        as_of: AsOf = None,
        max_depth: int | None = None,
        limit: int | None = None,
        offset: int = 0,
        level: str | None = None,
        seen_since: AsOf = None,
    ) -> FieldImpact:
        """Fields downstream of ``field`` at ``level`` (``direct``, ``field`` — the default — or
        ``all``); ``seen_since`` as for ``get_lineage``."""
        with self._read() as conn:
            hidden = _jobs.hidden_jobs(conn, _jobs.parse_since(seen_since))
            return _fields.get_field_impact(
                conn, field, to_us(as_of), max_depth, limit, offset, level=level, hidden_jobs=hidden
            )

    def trace_origin(self, node: str | int, max_depth: int | None = None, as_of: AsOf = None) -> TraceResult:
        with self._read() as conn:
            return _trace.trace_origin(conn, node, max_depth, to_us(as_of))

    def analyze_impact(
        self,
        target: str | int,
        change_type: ChangeType | str = ChangeType.SCHEMA_CHANGE,
        details: Mapping[str, Any] | None = None,
        as_of: AsOf = None,
        sample_size: int = 5,
    ) -> ImpactAnalysis:
        with self._read() as conn:
            return _impact.analyze_impact(conn, target, change_type, details, to_us(as_of), sample_size)

    def get_lineage_summary(self, node: str | int, as_of: AsOf = None) -> LineageSummary:
        with self._read() as conn:
            return _summary.get_lineage_summary(conn, node, to_us(as_of))

    def get_lineage_stats(self, as_of: AsOf = None) -> LineageStats:
        with self._read() as conn:
            return _summary.get_lineage_stats(conn, to_us(as_of))

    # ---------------------------------------------------------------- jobs

    def job_history(self, job: str | int, as_of: AsOf = None) -> JobHistory:
        """A job's versions (runs of one normalised statement in a row), with times, SQL and source."""
        with self._read() as conn:
            return _jobs.job_history(conn, job, to_us(as_of))

    def _writing(self, fn: Any) -> Any:
        with self._lock, self.engine.connect().execution_options(headwater_write=True) as conn, conn.begin():
            return fn(conn)

    def close_jobs(self, file: str, keep: Container[str], at: AsOf = None) -> ClosedJobs:
        """Close the jobs of project file ``file`` whose names are not in ``keep`` (statements removed)."""
        return self._writing(lambda conn: _jobs.close_jobs(conn, file, keep, to_us(at)))

    def prune_files(self, files: Collection[str], under: str = "", at: AsOf = None) -> ClosedJobs:
        """Close the jobs of project files (below ``under``) that are not among ``files`` (files removed)."""
        return self._writing(lambda conn: _jobs.prune_files(conn, files, under, to_us(at)))

    def expire_jobs(self, not_seen_since: AsOf, at: AsOf = None) -> ClosedJobs:
        """Close the jobs without a project file not seen since ``not_seen_since`` (a time or ``90d``)."""
        since = _jobs.parse_since(not_seen_since)
        if since is None:
            raise InvalidInput("not_seen_since", "a time or a duration is required")
        return self._writing(lambda conn: _jobs.expire_jobs(conn, since, to_us(at)))

    def delete_lineage(
        self,
        event_id: str | None = None,
        job: str | int | None = None,
        dataset: str | int | None = None,
        purge: bool = False,
        at: AsOf = None,
    ) -> DeleteResult:
        """Close (or purge) the edges of one event, job or dataset."""
        with self._lock, self.engine.connect().execution_options(headwater_write=True) as conn, conn.begin():
            return _delete.delete_lineage(conn, event_id, job, dataset, purge, to_us(at))


@contextmanager
def _write_transaction(conn: Connection) -> Iterator[None]:
    """``conn.begin()`` for a write: on SQLite the DBAPI connection's own ``BEGIN IMMEDIATE`` and
    ``commit`` (SQLAlchemy's transaction objects and events cost about as much as SQLite's empty
    transaction: ~100,000 instructions per ``record()``). A statement run through SQLAlchemy inside
    (``conn.execute``) makes it begin its own transaction on top, without a BEGIN (``engine``'s
    ``begin`` listener): it is then committed or rolled back through SQLAlchemy."""
    if conn.dialect.name != "sqlite":
        with conn.begin():
            yield
        return
    raw = conn.connection.dbapi_connection
    assert raw is not None
    raw.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction():
            conn.rollback()
        if raw.in_transaction:
            raw.rollback()
        raise
    if conn.in_transaction():
        conn.commit()
    else:
        raw.commit()


def _translated(event: LineageInfo, names: Names) -> Facts | Renaming:
    """An event's facts, or the renaming it asks for (``store.rename``)."""
    facts = event_facts(event, names)
    return renaming_of(event, facts) or facts


def _view_name(ref: TableRef) -> str:
    """The dataset name of a ``via`` view."""
    return dataset_name(ref.catalog, ref.database, ref.name)
