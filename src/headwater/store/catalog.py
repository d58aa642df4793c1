"""The store as a catalog: tables and views the store knows bind the statements extracted later.

A dataset's columns are those of the newest event that writes it (its statement's target columns,
in their order, with their types); a view's definition is its ``CREATE VIEW`` statement. So
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

from sqlalchemy import and_, select

from headwater.catalog.base import ColumnSchema, TableSchema
from headwater.model import SourceCommand, TableRef, event_from_json
from headwater.store.names import dataset_name
from headwater.store.schema import OPEN, edges, event_document, events, nodes
from headwater.store.store import LineageStore
from headwater.store.types import EdgeType, NodeType

_N, _E, _V = nodes.c, edges.c, events.c


class StoreCatalog:
    """A ``Catalog`` answered from a lineage store (see the module docstring).

    Answers are cached; ``refresh`` forgets them (after recording more events).
    """

    def __init__(self, store: LineageStore, dialect: str | None = None) -> None:
        self.store = store
        self.dialect = dialect
        self._tables: dict[TableRef, TableSchema | None] = {}

    def refresh(self) -> None:
        self._tables.clear()

    def table(self, ref: TableRef) -> TableSchema | None:
        if ref not in self._tables:
            self._tables[ref] = self._lookup(ref)
        return self._tables[ref]

    def _lookup(self, ref: TableRef) -> TableSchema | None:
        if ref.database is None:
            return None
        name = dataset_name(ref.catalog, ref.database, ref.name)
        ds = nodes.alias("ds")
        writers = (
            select(_E.src_id)
            .join(ds, ds.c.id == _E.dst_id)
            .where(
                ds.c.name == name,
                ds.c.type == NodeType.DATASET.value,
                _E.type == EdgeType.WRITE.value,
                _E.valid_to == OPEN,
            )
        )
        q = (
            select(_V.payload, _V.payload_zlib)
            .where(and_(_V.job_id.in_(writers), _V.kind == "headwater", _V.deleted_us.is_(None)))
            .order_by(_V.event_us.desc(), _V.id.desc())
            .limit(20)
        )
        with self.store.engine.connect() as conn:
            rows = list(conn.execute(q))
        for payload, packed in rows:
            document = event_document(payload, packed)
            if document is None:
                continue
            event = event_from_json(document)
            target = event.target.table
            if dataset_name(target.catalog, target.database, target.name) != name or not event.target.columns:
                continue
            columns = tuple(ColumnSchema(f.name, f.type) for f in event.target.columns)
            if event.source_command is SourceCommand.CREATE_VIEW:
                return TableSchema(columns, view_sql=event.context.sql, view_dialect=self.dialect)
            return TableSchema(columns)
        return None
