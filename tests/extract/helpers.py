"""Helpers that turn an event into small tuples, so tests state exact lineage compactly."""

from __future__ import annotations

from headwater.catalog import ColumnSchema, MemoryCatalog, TableSchema
from headwater.extract import extract_script
from headwater.model import LineageInfo, TableRef


def catalog_of(tables: dict[str, list[str]], catalog: str = "internal") -> MemoryCatalog:
    """``{"db.t": ["a", "b"]}`` → a catalog."""
    cat = MemoryCatalog()
    for name, cols in tables.items():
        db, _, t = name.rpartition(".")
        cat.put(TableRef(catalog, db or None, t), TableSchema(tuple(ColumnSchema(c) for c in cols)))
    return cat


def one_event(
    sql: str, schema: dict[str, list[str]] | None = None, dialect: str = "doris", db: str | None = "db"
) -> LineageInfo:
    res = extract_script(sql, dialect=dialect, catalog=catalog_of(schema) if schema else None, database=db)
    events = res.events
    assert len(events) == 1, [(s.kind, s.skip_reason, s.error) for s in res.statements]
    return events[0]


def direct(e: LineageInfo) -> list[tuple[str, str, str]]:
    return [(d.target_column, d.expression, d.type.value) for d in e.direct]


def dataset(e: LineageInfo) -> list[tuple[str, str]]:
    return [(i.type.value, i.expression) for i in e.dataset_indirect]


def output(e: LineageInfo) -> list[tuple[str, str, str]]:
    return [(i.target_column or "", i.type.value, i.expression) for i in e.output_indirect]


def sources(e: LineageInfo) -> list[str]:
    return [t.qualified for t in e.sources]


def cols(refs) -> list[str]:
    return [f"{r.table.name}.{r.column}" for r in refs]


def codes(e: LineageInfo) -> list[str]:
    return [d.code for d in e.diagnostics]
