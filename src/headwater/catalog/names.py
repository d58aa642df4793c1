"""Identifier case rules per dialect, so that one table or column is always one name.

Tables follow sqlglot's normalisation strategy for the dialect; columns too, except in the
MySQL family (MySQL, MariaDB, Doris, StarRocks) where column names are case-insensitive while
table names are not. ``dataset`` folds the parts of a stored table's name (catalog, database,
table): as ``table`` does, except in BigQuery, whose dataset and table names are case-sensitive
while its table aliases, CTE names and column names are not (sqlglot keeps a qualified table's
case there too).

>>> n = Names.for_dialect("postgres")
>>> n.table("Orders", quoted=False), n.table("Orders", quoted=True)
('orders', 'Orders')
>>> Names.for_dialect("doris").column("Amount", quoted=True)
'amount'
>>> Names.for_dialect("doris").table("Orders", quoted=False)
'Orders'
>>> Names.for_dialect("snowflake").column("amount", quoted=False)
'AMOUNT'
>>> b = Names.for_dialect("bigquery")
>>> b.dataset("Events", quoted=False), b.table("Events", quoted=False)
('Events', 'events')

``generic`` names sqlglot's default dialect:

>>> Names.for_dialect("generic").table("Orders", quoted=False)
'orders'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy

from headwater.catalog.dialects import sqlglot_dialect

_MYSQL_FAMILY = {"mysql", "doris", "starrocks", "singlestore", "tidb"}
_CASE_SENSITIVE_DATASETS = frozenset({"bigquery"})
"""Dialects whose stored table names are case-sensitive while aliases and CTE names are not."""
MYSQL_FAMILY = frozenset(_MYSQL_FAMILY)
"""Dialects whose column names are case-insensitive while table names are not."""


def _folder(strategy: NormalizationStrategy) -> Callable[[str, bool], str]:
    if strategy == NormalizationStrategy.LOWERCASE:
        return lambda s, quoted: s if quoted else s.lower()
    if strategy == NormalizationStrategy.UPPERCASE:
        return lambda s, quoted: s if quoted else s.upper()
    if strategy == NormalizationStrategy.CASE_INSENSITIVE:
        return lambda s, quoted: s.lower()
    if strategy == NormalizationStrategy.CASE_SENSITIVE:
        return lambda s, quoted: s
    return lambda s, quoted: s.upper()  # CASE_INSENSITIVE_UPPERCASE


@dataclass(frozen=True)
class Names:
    """Normalisers for table-like names and for column-like names of one dialect."""

    dialect: str
    table: Callable[[str, bool], str]
    column: Callable[[str, bool], str]
    dataset: Callable[[str, bool], str]

    @staticmethod
    @cache
    def for_dialect(dialect: str) -> Names:
        strategy = Dialect.get_or_raise(sqlglot_dialect(dialect)).NORMALIZATION_STRATEGY
        table = _folder(strategy)
        column = _folder(NormalizationStrategy.CASE_INSENSITIVE) if dialect in _MYSQL_FAMILY else table
        dataset = _folder(NormalizationStrategy.CASE_SENSITIVE) if dialect in _CASE_SENSITIVE_DATASETS else table
        return Names(dialect, table, column, dataset)

    def table_ident(self, ident: exp.Expression | str | None) -> str | None:
        return _apply(self.table, ident)

    def column_ident(self, ident: exp.Expression | str | None) -> str | None:
        return _apply(self.column, ident)

    def dataset_ident(self, ident: exp.Expression | str | None) -> str | None:
        """A part of a stored table's name (``dataset``), not an alias or a CTE name."""
        return _apply(self.dataset, ident)


def _apply(fold: Callable[[str, bool], str], ident: exp.Expression | str | None) -> str | None:
    if ident is None:
        return None
    if isinstance(ident, str):
        return fold(ident, False)
    if isinstance(ident, exp.Identifier):
        return fold(ident.this, bool(ident.args.get("quoted")))
    return fold(ident.name, False)
