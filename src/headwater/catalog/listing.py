"""Which tables a catalog lists in a database: what tells a mistyped table from one not described.

A catalog *covers* a database when it lists at least one table in it; a statement that reads a table
of a covered database that the catalog does not list names a table that probably does not exist.
A catalog may answer for itself with a ``table_names(catalog, database)`` method; the catalogs of
this package are answered here.

>>> from headwater.model import TableRef
>>> from headwater.catalog.base import ColumnSchema, MemoryCatalog, TableSchema
>>> cat = MemoryCatalog({TableRef("internal", "tpcds", "store_sales"): TableSchema((ColumnSchema("a"),))})
>>> sorted(tables_in(cat, "internal", "tpcds")), tables_in(cat, "internal", "other")
(['store_sales'], None)
>>> closest("store_sale", {"store_sales", "store_returns", "item"})
['store_sales', 'store_returns']
>>> one_edit_away("fct_order", {"fct_orders", "fct_order_items", "dim_date"})
['fct_orders']
>>> one_edit_away("clients_v6", {"clients_v5"}), one_edit_away("fct_ordres", {"fct_orders"}), one_edit_away("x", {"t"})
([], ['fct_orders'], [])
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from headwater.catalog.base import Catalog, ChainCatalog, LayeredCatalog, MemoryCatalog


def tables_in(catalog: Catalog | None, catalog_name: str, database: str | None) -> set[str] | None:
    """The names of the tables ``catalog`` lists in ``catalog_name.database``; None when it lists none
    there (it does not cover that database) or cannot tell."""
    if catalog is None or database is None:
        return None
    own = getattr(catalog, "table_names", None)
    if callable(own):
        found = own(catalog_name, database)
    elif isinstance(catalog, LayeredCatalog):
        parts = [tables_in(catalog.overlay, catalog_name, database), tables_in(catalog.base, catalog_name, database)]
        found = set().union(*(p for p in parts if p)) if any(parts) else None
    elif isinstance(catalog, ChainCatalog):
        parts = [tables_in(c, catalog_name, database) for c in catalog.catalogs]
        found = set().union(*(p for p in parts if p)) if any(parts) else None
    elif isinstance(catalog, MemoryCatalog):
        # a schema file's table without a database is found under any database: it covers them all
        found = {
            ref.name for ref in catalog.tables() if ref.catalog == catalog_name and ref.database in (database, None)
        }
    else:
        return None
    return set(found) if found else None


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to ``name`` (at most ``n``, best first)."""
    return difflib.get_close_matches(name, sorted(known), n=n, cutoff=0.6)


def one_edit_away(name: str, known: Iterable[str]) -> list[str]:
    """The known names one edit from ``name`` (a character added, dropped, changed, or two neighbours
    swapped), in name order; a digit changed for another digit is no typo (``clients_v6`` beside
    ``clients_v5`` is a version, not a slip), and case is ignored. Names shorter than four characters
    have none (``x`` beside ``t`` says nothing)."""
    low = name.lower()
    if len(low) < 4:
        return []
    return sorted(k for k in known if _one_edit(low, k.lower()))


def _one_edit(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            i = diff[0]
            return not (a[i].isdigit() and b[i].isdigit())
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]
