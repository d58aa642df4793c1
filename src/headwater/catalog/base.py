"""The one question extraction asks a catalog: "what are the columns of table X?".

A catalog answers with a ``TableSchema`` (ordered columns, and the view's SQL for a view) or
``None`` when it does not know the table. Names given to a catalog are already normalised
(see ``headwater.catalog.names``).

>>> from headwater.model import TableRef
>>> cat = MemoryCatalog()
>>> cat.put(TableRef("internal", "db", "t"), TableSchema((ColumnSchema("a", "INT"),)))
>>> cat.table(TableRef("internal", "db", "t")).column_names
('a',)
>>> cat.table(TableRef("internal", "db", "nope")) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from headwater.model import TableRef


@dataclass(frozen=True, slots=True)
class ColumnSchema:
    name: str
    type: str | None = None


@dataclass(frozen=True, slots=True)
class TableSchema:
    """Ordered columns of a table; ``view_sql`` (and its dialect) when the table is a view.

    ``properties`` are the table's own options (Flink connector options, for example), which
    events carry, redacted, in their external properties.
    """

    columns: tuple[ColumnSchema, ...]
    view_sql: str | None = None
    view_dialect: str | None = None
    properties: tuple[tuple[str, str], ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@runtime_checkable
class Catalog(Protocol):
    """Anything that can describe tables."""

    def table(self, ref: TableRef) -> TableSchema | None: ...


class MemoryCatalog:
    """A dictionary of tables; also the layer that a script's own DDL writes into."""

    def __init__(self, tables: dict[TableRef, TableSchema] | None = None) -> None:
        self._tables: dict[TableRef, TableSchema] = dict(tables or {})

    def table(self, ref: TableRef) -> TableSchema | None:
        return self._tables.get(ref)

    def put(self, ref: TableRef, schema: TableSchema) -> None:
        self._tables[ref] = schema

    def drop(self, ref: TableRef) -> None:
        self._tables.pop(ref, None)

    def tables(self) -> dict[TableRef, TableSchema]:
        return dict(self._tables)


class LayeredCatalog:
    """A script's DDL layer over a base catalog: the script's own definitions win.

    A table dropped in the script is hidden from the base too.
    """

    def __init__(self, base: Catalog | None = None) -> None:
        self.base = base
        self.overlay = MemoryCatalog()
        self._dropped: set[TableRef] = set()

    def table(self, ref: TableRef) -> TableSchema | None:
        found = self.overlay.table(ref)
        if found is not None:
            return found
        if ref in self._dropped or self.base is None:
            return None
        return self.base.table(ref)

    def put(self, ref: TableRef, schema: TableSchema) -> None:
        self._dropped.discard(ref)
        self.overlay.put(ref, schema)

    def drop(self, ref: TableRef) -> None:
        self.overlay.drop(ref)
        self._dropped.add(ref)


class ChainCatalog:
    """Several catalogs asked in order; the first that knows the table answers.

    >>> from headwater.model import TableRef
    >>> a, b = MemoryCatalog(), MemoryCatalog()
    >>> ref = TableRef("internal", "db", "t")
    >>> b.put(ref, TableSchema((ColumnSchema("x"),)))
    >>> ChainCatalog(a, b).table(ref).column_names
    ('x',)
    """

    def __init__(self, *catalogs: Catalog) -> None:
        self.catalogs: tuple[Catalog, ...] = catalogs

    def table(self, ref: TableRef) -> TableSchema | None:
        for catalog in self.catalogs:
            found = catalog.table(ref)
            if found is not None:
                return found
        return None
