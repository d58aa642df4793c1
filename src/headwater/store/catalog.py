"""The store as a catalog: tables and views the store knows bind the statements extracted later.

A dataset's columns are those of the newest event that writes it (its statement's target columns,
in their order, with their types), else those of its recorded DDL (``from_ddl``: a ``CREATE TABLE``
that nothing writes yet); a view's definition is its ``CREATE VIEW`` statement. So
ingesting a project's third file alone, after the first two were ingested, binds it as ingesting
all three at once does. A dataset the store knows only from reads is not described (the columns
statements happened to read are not all of its columns), and the store never says which tables a
database has (it knows those it has seen): an unknown table is a mistake only by a schema file's or a
live catalog's word (``headwater.catalog.listing``).

>>> from headwater.store import open_store
>>> from headwater.extract import extract_script
>>> store = open_store("sqlite://")
>>> _ = store.record_batch(extract_script("CREATE TABLE db.t AS SELECT a, b + 1 AS c FROM db.s").events)
>>> cat = StoreCatalog(store)
>>> from headwater.model import TableRef
>>> [(c.name, c.type) for c in cat.table(TableRef("internal", "db", "t")).columns]
[('a', None), ('c', None)]
>>> cat.table(TableRef("internal", "db", "s")) is None
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Hashable
from typing import TYPE_CHECKING

from sqlalchemy import Connection, select, text
from sqlalchemy.pool import StaticPool

from headwater.catalog.base import ColumnSchema, TableSchema
from headwater.model import LineageInfo, SourceCommand, TableRef, event_from_json
from headwater.model.job import explicit_job_name
from headwater.store.from_ddl import DDL_PROPERTY
from headwater.store.names import dataset_name
from headwater.store.schema import OPEN, edges, event_document, events, nodes
from headwater.store.types import EdgeType, NodeType

if TYPE_CHECKING:
    from headwater.store.store import LineageStore

_NEWEST_WRITERS = text(
    f"SELECT e.payload, e.payload_zlib FROM {events.name} e "
    f"WHERE e.kind = 'headwater' AND e.deleted_us IS NULL AND e.job_id IN ("
    f"SELECT w.src_id FROM {edges.name} w JOIN {nodes.name} d ON d.id = w.dst_id "
    f"WHERE d.name = :name AND d.type = '{NodeType.DATASET.value}' AND w.type = '{EdgeType.WRITE.value}' "
    "AND w.valid_to = :open) "
    "ORDER BY e.event_us DESC, e.id DESC LIMIT 20"
)
"""The newest events of the jobs that write a dataset through an open WRITE edge (one text statement:
it is asked once per table a project reads that its own DDL does not describe)."""


def newest_writer_event(conn: Connection, name: str) -> LineageInfo | None:
    """The newest headwater event that writes the dataset ``name`` (normalised) with its columns,
    through a job whose WRITE edge is open (a view's: its ``CREATE VIEW``)."""
    for payload, packed in conn.execute(_NEWEST_WRITERS, {"name": name, "open": OPEN}):
        document = event_document(payload, packed)
        if document is None:
            continue
        event = event_from_json(document)
        target = event.target.table
        if dataset_name(target.catalog, target.database, target.name) == name and event.target.columns:
            return event
    return None


ANY = ("any",)
"""A key of what may change any answer (an OpenLineage RunEvent being recorded)."""


def table_key(ref: TableRef) -> Hashable:
    """The key of a dataset that an event writes or a definition defines (``in_flight``)."""
    return ("table", dataset_name(ref.catalog, ref.database, ref.name))


def job_key(event: LineageInfo) -> Hashable:
    """The key of an event's job: its explicit name; one key for all events without one (the store
    names their jobs by a fingerprint of the text, which texts that differ may share)."""
    return ("job", explicit_job_name(event.context.external_catalog_properties))


class StoreCatalog:
    """A ``Catalog`` answered from a lineage store (see the module docstring).

    Answers are cached; ``refresh`` forgets them (after recording more events).
    """

    def __init__(self, store: LineageStore, dialect: str | None = None) -> None:
        self.store = store
        self.dialect = dialect
        self._tables: dict[TableRef, TableSchema | None] = {}
        self._views: set[TableRef] = set()
        self._keyed: dict[Hashable, set[TableRef]] = {}  # table and job keys → the answers they change
        self.before_lookup: Callable[[], None] | None = None
        """Called before the store is asked (``ingest``: waits for the batches being recorded)."""
        self.in_flight: Callable[[], Collection[Hashable]] | None = None
        """With ``before_lookup``: what the batches being recorded touch (``touched_keys`` of their
        events); a look-up that none of them can change asks the store without waiting."""
        self.waited = 0  # look-ups that waited for the batches being recorded

    def refresh(self, touched: Collection[Hashable] | None = None) -> None:
        """Forget the answers that recording ``touched`` (``touches`` keys: tables written or defined,
        jobs recorded again; None or ``ANY``: anything) may have changed; the others stay true."""
        if touched is None or ANY in touched:
            self._tables.clear()
            self._views.clear()
            self._keyed.clear()
            return
        for key in touched:
            for ref in self._keyed.pop(key, ()):
                self._tables.pop(ref, None)
                self._views.discard(ref)

    def table(self, ref: TableRef) -> TableSchema | None:
        if ref not in self._tables:
            self._tables[ref] = self._answer(ref)
        return self._tables[ref]

    def _keep(self, ref: TableRef, answer: TableSchema | None, job: Hashable | None) -> TableSchema | None:
        """``answer``, indexed by what recording may change it: its table and the job it comes from."""
        self._keyed.setdefault(table_key(ref), set()).add(ref)
        if job is not None:
            self._keyed.setdefault(job, set()).add(ref)
        return answer

    def _answer(self, ref: TableRef) -> TableSchema | None:
        """The store's answer for ``ref`` as it is once the batches being recorded are: asked at once
        when none of them (taken before asking) writes its dataset, defines it, or is a recording of
        the job whose event answers (the only ways a recording changes this answer); else asked
        again after waiting for them."""
        if self.before_lookup is None:
            return self._keep(ref, *self._lookup(ref))
        busy = self.in_flight() if self.in_flight is not None and not self._one_connection() else None
        if busy is not None:
            if not busy:
                return self._keep(ref, *self._lookup(ref))
            if ANY not in busy and table_key(ref) not in busy:
                answer, job = self._lookup(ref)
                if job is None or job not in busy:
                    return self._keep(ref, answer, job)
                self._views.discard(ref)
        self.waited += 1
        self.before_lookup()
        return self._keep(ref, *self._lookup(ref))

    def _one_connection(self) -> bool:
        """An in-memory SQLite store: one connection, which the writer's transaction holds."""
        return isinstance(self.store.engine.pool, StaticPool)

    def __contains__(self, ref: object) -> bool:
        """Whether ``ref`` is a view recorded as a dataset of its own (its ``CREATE VIEW`` event):
        ``Extractor.external_views``."""
        return isinstance(ref, TableRef) and self.table(ref) is not None and ref in self._views

    def _lookup(self, ref: TableRef) -> tuple[TableSchema | None, Hashable | None]:
        """The answer, and the job key (``job_key``) of the event it comes from (None: no event's)."""
        if ref.database is None:
            return None, None
        name = dataset_name(ref.catalog, ref.database, ref.name)
        with self.store.engine.connect() as conn:
            event = newest_writer_event(conn, name)
        if event is None:
            return self._defined(name), None
        columns = tuple(ColumnSchema(f.name, f.type) for f in event.target.columns)
        if event.source_command is SourceCommand.CREATE_VIEW:
            self._views.add(ref)
            return TableSchema(columns, view_sql=event.context.sql, view_dialect=self.dialect), job_key(event)
        # a ``*`` over unknown columns wrote it: the columns listed are certain, others may exist
        star = any(d.code == "star_unknown_columns" for d in event.diagnostics)
        return TableSchema(columns, open=star), job_key(event)

    def _defined(self, name: str) -> TableSchema | None:
        """The columns of the dataset's recorded DDL (``from_ddl``), for a table nothing writes yet."""
        with self.store.engine.connect() as conn:
            q = select(nodes.c.properties).where(nodes.c.type == NodeType.DATASET.value, nodes.c.name == name)
            props = conn.execute(q).scalar_one_or_none()
            event_id = json.loads(props).get(DDL_PROPERTY) if props else None
            row = (
                conn.execute(
                    select(events.c.payload, events.c.payload_zlib).where(events.c.event_id == event_id)
                ).first()
                if event_id
                else None
            )
        document = event_document(*row) if row is not None else None
        columns = json.loads(document).get("columns") if document else None
        if not columns:
            return None
        return TableSchema(tuple(ColumnSchema(column, typ) for column, typ in columns))
