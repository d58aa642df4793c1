"""Where a select-list alias is visible in each dialect, and which reading wins when it is also a column.

One ``AliasRules`` per dialect, as data (docs/extraction.md, "Select-list aliases", has the table and
its sources). For each clause of a SELECT, ``NONE``: the alias is not visible there (a name is a
column); ``COLUMN``: the alias is visible and a column of the same name wins; ``ALIAS``: the alias
wins; ``GROUPED`` (HAVING): the alias wins unless the name is a bare GROUP BY key, which is the column.
``BARE`` (added to a rule): only a key that is the bare name sees the alias (PostgreSQL's
``GROUP BY x`` / ``ORDER BY x``, never ``ORDER BY x + 1``).

>>> rules = alias_rules("postgres")
>>> (rules.group, rules.order, rules.having) == (COLUMN | BARE, ALIAS | BARE, NONE)
True
>>> alias_rules("bigquery").group == ALIAS and alias_rules("snowflake").where == COLUMN
True
"""

from __future__ import annotations

from typing import Final

# Final literals: the compiled build uses their values, with no look-up
NONE: Final = 0
COLUMN: Final = 1
ALIAS: Final = 2
GROUPED: Final = 3
BARE: Final = 8  # a flag on COLUMN / ALIAS
KIND: Final = 7  # the rule without its flag


class AliasRules:
    """The alias rule of each clause of a SELECT in one dialect (``select``: the later items of the
    same select list, lateral column aliases; ``join``: the ON conditions)."""

    __slots__ = ("ambiguous", "group", "having", "join", "order", "qualify", "select", "where")

    def __init__(
        self,
        select: int = NONE,
        where: int = NONE,
        group: int = COLUMN,
        having: int = ALIAS,
        qualify: int = ALIAS,
        order: int = ALIAS,
        join: int = NONE,
        ambiguous: bool = False,
    ) -> None:
        self.select, self.where, self.group, self.having = select, where, group, having
        self.qualify, self.order, self.join = qualify, order, join
        # where a column would win (COLUMN, GROUPED): a name that several tables of the scope have is
        # the alias instead of an ambiguity (MySQL's GROUP BY and HAVING fall back to the select list)
        self.ambiguous = ambiguous


# a dialect not listed: GROUP BY sees the alias when no column has the name, HAVING, QUALIFY and
# ORDER BY see it first, the select list and WHERE do not (what most databases accept)
DEFAULT: Final = AliasRules()
# no database's grammar (sqlglot's generic dialect): as lenient as the databases that allow most, so
# that SQL written for any of them reads as its author meant it
GENERIC: Final = AliasRules(select=COLUMN)
_MYSQL: Final = AliasRules(group=COLUMN, having=GROUPED, qualify=ALIAS, order=ALIAS, ambiguous=True)
_POSTGRES: Final = AliasRules(group=COLUMN | BARE, having=NONE, qualify=NONE, order=ALIAS | BARE)
_TRINO: Final = AliasRules(group=NONE, having=NONE, qualify=NONE, order=ALIAS)
_SPARK: Final = AliasRules(select=COLUMN, group=COLUMN, having=GROUPED, qualify=COLUMN, order=ALIAS)
_ORDER_ONLY: Final = AliasRules(group=NONE, having=NONE, qualify=NONE, order=ALIAS)

RULES: Final[dict[str, AliasRules]] = {
    "": GENERIC,
    "generic": GENERIC,
    "bigquery": AliasRules(group=ALIAS, having=ALIAS, qualify=ALIAS, order=ALIAS),
    "snowflake": AliasRules(
        select=COLUMN, where=COLUMN, group=COLUMN, having=COLUMN, qualify=COLUMN, order=ALIAS, join=COLUMN
    ),
    "databricks": _SPARK,
    "spark": _SPARK,
    "spark2": AliasRules(group=COLUMN, having=GROUPED, qualify=NONE, order=ALIAS),
    "hive": AliasRules(group=NONE, having=COLUMN, qualify=NONE, order=ALIAS),
    "mysql": _MYSQL,
    "singlestore": _MYSQL,
    "doris": AliasRules(group=COLUMN, having=ALIAS, qualify=ALIAS, order=ALIAS, ambiguous=True),
    "starrocks": AliasRules(group=COLUMN, having=COLUMN, qualify=ALIAS, order=ALIAS, ambiguous=True),
    "postgres": _POSTGRES,
    "materialize": _POSTGRES,
    "risingwave": _POSTGRES,
    "redshift": AliasRules(select=COLUMN, where=COLUMN, group=COLUMN, having=COLUMN, qualify=COLUMN, order=ALIAS),
    "duckdb": AliasRules(select=COLUMN, where=COLUMN, group=COLUMN, having=GROUPED, qualify=COLUMN, order=ALIAS),
    "trino": _TRINO,
    "presto": _TRINO,
    "athena": _TRINO,
    "tsql": _ORDER_ONLY,
    "fabric": _ORDER_ONLY,
    "oracle": AliasRules(group=COLUMN, having=NONE, qualify=NONE, order=ALIAS),
    "sqlite": AliasRules(where=COLUMN, group=COLUMN, having=COLUMN, qualify=NONE, order=ALIAS),
    "clickhouse": AliasRules(select=ALIAS, where=ALIAS, group=ALIAS, having=ALIAS, qualify=ALIAS, order=ALIAS),
    "teradata": AliasRules(select=COLUMN, where=COLUMN, group=COLUMN, having=COLUMN, qualify=COLUMN, order=ALIAS),
}


def alias_rules(dialect: str | None) -> AliasRules:
    """The alias rules of ``dialect`` (``DEFAULT`` for one not listed)."""
    return RULES.get(dialect or "", DEFAULT)


def flags(rule: int, bare: bool) -> tuple[bool, bool]:
    """``Resolver.resolve``'s ``(alias_first, alias_fallback)`` for a rule; ``bare``: the expression
    is a bare name (a ``BARE`` rule sees the alias only then). ``GROUPED`` is ``alias_first``, the
    grouped names excepted by the caller (``Scope.grouped``)."""
    if rule & BARE and not bare:
        return False, False
    kind = rule & KIND
    return kind in (ALIAS, GROUPED), kind == COLUMN
