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

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
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
    events carry, redacted, in their external properties. The column names and the name → type map
    are derived once, when the schema is made (every statement that reads or writes the table asks).

    >>> s = TableSchema((ColumnSchema("a", "INT"), ColumnSchema("b")))
    >>> s.column_names, s.column_types
    (('a', 'b'), {'a': 'INT', 'b': None})
    >>> s == TableSchema((ColumnSchema("a", "INT"), ColumnSchema("b"))), repr(s).count("_names")
    (True, 0)
    """

    columns: tuple[ColumnSchema, ...]
    view_sql: str | None = None
    view_dialect: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
    # the columns listed are certain, and the table may have others (a ``CREATE TABLE … AS SELECT *``
    # over a table whose columns are unknown): a name it might have binds to it, unlisted or not
    open: bool = False
    # the columns of a ``CREATE TABLE IF NOT EXISTS`` of the SQL: the table may predate that statement
    # (made earlier, then altered), so a statement that runs and disagrees with them finds them stale
    tentative: bool = False
    _names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _types: dict[str, str | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_names", tuple(c.name for c in self.columns))
        object.__setattr__(self, "_types", {c.name: c.type for c in self.columns})

    @property
    def column_names(self) -> tuple[str, ...]:
        return self._names

    @property
    def column_types(self) -> dict[str, str | None]:
        """Each column's type by name (shared by every caller: read it, never change it)."""
        return self._types


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

    A table dropped in the script is hidden from the base too. ``version`` counts the changes;
    ``state_for`` tells what the layer did to tables of some names (for caches keyed by it).
    """

    def __init__(self, base: Catalog | None = None) -> None:
        self.base = base
        self.overlay = MemoryCatalog()
        self._dropped: set[TableRef] = set()
        self.version = 0
        self._touched: dict[str, str] = {}  # lower-case name -> digest of the layer's changes to it
        self._views: set[str] = set()

    def _touch(self, ref: TableRef, schema: TableSchema | None) -> None:
        name = ref.name.lower()
        self._touched[name] = hashlib.sha1(f"{self._touched.get(name, '')}{ref!r}{schema!r}".encode()).hexdigest()
        if schema is not None and schema.view_sql is not None:
            self._views.add(name)
        self.version += 1

    def state_for(self, names: Iterable[str]) -> tuple[tuple[str, str], ...]:
        """What the layer holds for tables of these (lower-case) names; everything it holds when one of
        them is a view of the layer (a view's meaning depends on the tables it reads)."""
        hit = sorted(n for n in set(names) if n in self._touched)
        if any(n in self._views for n in hit):
            return tuple(sorted(self._touched.items()))
        return tuple((n, self._touched[n]) for n in hit)

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
        self._touch(ref, schema)

    def drop(self, ref: TableRef) -> None:
        self.overlay.drop(ref)
        self._dropped.add(ref)
        self._touch(ref, None)


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
