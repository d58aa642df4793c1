"""``catalog.json`` as a headwater catalog: the columns and types dbt read from the warehouse for
each relation (models, seeds, snapshots, sources), which bind ``SELECT *`` over a source and the
columns of relations the project does not create.

>>> doc = {"nodes": {}, "sources": {"source.p.raw.t": {"metadata": {"database": "db", "schema": "raw",
...        "name": "T"}, "columns": {"B": {"type": "text", "index": 2, "name": "B"},
...                                  "A": {"type": "integer", "index": 1, "name": "A"}}}}}
>>> cat = catalog_of(doc, "postgres")
>>> [(c.name, c.type) for c in cat.table(TableRef("db", "raw", "t")).columns]
[('a', 'integer'), ('b', 'text')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from headwater.catalog import ColumnSchema, MemoryCatalog, Names, TableSchema
from headwater.model import TableRef


def _table_of(meta: Mapping[str, Any], names: Names, default_catalog: str) -> TableRef | None:
    name = names.dataset_ident(meta.get("name"))
    if not name:
        return None
    database = meta.get("database")
    catalog = names.dataset_ident(database) if database else default_catalog
    assert catalog is not None
    return TableRef(catalog, names.dataset_ident(meta.get("schema")) if meta.get("schema") else None, name)


def catalog_of(document: Mapping[str, Any], dialect: str, default_catalog: str = "internal") -> MemoryCatalog:
    """The relations of a ``catalog.json`` document, their columns in the warehouse's order."""
    names = Names.for_dialect(dialect)
    out = MemoryCatalog()
    for section in ("nodes", "sources"):
        for entry in (document.get(section) or {}).values():
            if not isinstance(entry, Mapping):
                continue
            table = _table_of(entry.get("metadata") or {}, names, default_catalog)
            columns = entry.get("columns") or {}
            if table is None or not isinstance(columns, Mapping):
                continue
            ordered = sorted(
                (c for c in columns.values() if isinstance(c, Mapping) and c.get("name")),
                key=lambda c: (c.get("index") if isinstance(c.get("index"), int) else 1 << 30, str(c["name"])),
            )
            cols = tuple(
                ColumnSchema(names.column_ident(str(c["name"])) or str(c["name"]), c.get("type")) for c in ordered
            )
            if cols:
                out.put(table, TableSchema(cols))
    return out
