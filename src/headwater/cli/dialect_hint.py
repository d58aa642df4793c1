"""A warning when a script looks written for another dialect than ``--dialect`` and reads differently.

Under the default ``doris`` dialect a Spark script's ``a || b`` is ``a OR b``: the lineage is then
wrong without a word. Statements whose syntax points to another dialect (``INSERT OVERWRITE
TABLE``, backticks, ``::``, ``$$``) are parsed under that one too; the first that reads differently
(or only parses there) makes one warning that suggests ``--dialect``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import sqlglot
from sqlglot import exp

from headwater.catalog.dialects import sqlglot_dialect
from headwater.extract.parse_message import first_words

# (what to look for, what it is called, the dialects that write it, a word every match contains:
# for an ASCII text, a cheap test that the case-insensitive pattern may match, or "")
_SIGNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...], str], ...] = (
    (re.compile(r"\bINSERT\s+OVERWRITE\s+TABLE\b", re.I), "INSERT OVERWRITE TABLE", ("spark", "hive"), "overwrite"),
    (re.compile(r"`"), "backticks", ("spark", "mysql", "bigquery"), ""),
    (re.compile(r"::"), "::", ("postgres",), ""),
    (re.compile(r"\$\$"), "$$", ("postgres",), ""),
    (re.compile(r"\|\|"), "||", ("postgres", "spark"), ""),  # OR in MySQL and Doris, concatenation elsewhere
    (re.compile(r"\bILIKE\b", re.I), "ILIKE", ("postgres",), "ilike"),
    (re.compile(r'"'), "double quotes", ("postgres",), ""),  # a string in MySQL and Doris, a name in PostgreSQL
)
_FAMILY = {
    "doris": {"doris", "mysql", "starrocks"},
    "mysql": {"doris", "mysql", "starrocks"},
    "starrocks": {"doris", "mysql", "starrocks"},
    "spark": {"spark", "spark2", "databricks", "hive"},
    "spark2": {"spark", "spark2", "databricks", "hive"},
    "databricks": {"spark", "spark2", "databricks", "hive"},
    "hive": {"spark", "spark2", "databricks", "hive", "flink"},
    "flink": {"hive", "flink"},
    "postgres": {"postgres", "redshift", "materialize", "risingwave"},
    "redshift": {"postgres", "redshift"},
}


MAX_CHECKED = 50
"""Statements parsed a second time at most (a long script of another dialect shows it early)."""


def _signs(sql: str, dialect: str) -> list[tuple[str, str]]:
    """(sign, dialect) pairs the text shows that ``dialect``'s family does not write.

    Runs on every statement of a file: a case-insensitive pattern that starts with ``\\b`` tries a
    match at every character, so an ASCII text (where ``re.I`` is ASCII case) is first searched, in
    lower case, for the word every match contains."""
    own = _FAMILY.get(dialect, {dialect})
    lowered = sql.lower() if sql.isascii() else None
    out = []
    for pattern, sign, dialects, word in _SIGNS:
        if dialect in dialects:
            continue
        if sign == "backticks" and own & {"mysql", "spark", "bigquery", "hive"}:
            continue  # backticks are this dialect's own quotes
        if sign in ("||", "double quotes") and not own & {"doris", "mysql", "starrocks"}:
            continue  # only MySQL's family reads them otherwise
        if (word and lowered is not None and word not in lowered) or not pattern.search(sql):
            continue
        out.extend((sign, d) for d in dialects if d not in own)
    return out


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        trees = sqlglot.parse(sql, read=sqlglot_dialect(dialect))
    except Exception:
        return None
    return next((t for t in trees if t is not None), None)


def _neutral(tree: exp.Expression) -> exp.Expression:
    """Differences that do not change lineage (Spark's CAST is sqlglot's TRY_CAST) taken out."""
    return tree.transform(lambda n: exp.Cast(this=n.this, to=n.args.get("to")) if isinstance(n, exp.TryCast) else n)


def _first_difference(a: exp.Expression, b: exp.Expression, da: str, db: str) -> str:
    """Where the two readings first differ, each as its dialect writes it; a pair that renders the
    same (a node type that only one of the dialects distinguishes) is passed over, so that the two
    readings shown always differ."""
    for x, y in zip(a.bfs(), b.bfs(), strict=False):
        if type(x) is not type(y):
            ours = first_words(x.sql(dialect=sqlglot_dialect(da)), 40)
            theirs = first_words(y.sql(dialect=sqlglot_dialect(db)), 40)
            if ours == theirs:
                ours, theirs = (first_words(n.sql(dialect=sqlglot_dialect(db)), 40) for n in (x, y))
            if ours != theirs:
                return f": {da} reads {ours!r} where {db} reads {theirs!r}"
    return ""


def dialect_hint(
    statements: Iterable[tuple[int, int, str]], dialect: str, assumed: bool = False, project: bool = False
) -> str | None:
    """The warning for the first of ``(index, line, sql)`` that reads differently under the dialect
    its syntax points to; None when there is none. ``assumed``: ``dialect`` was not given but taken
    as the default, and the warning says so; ``project``: the statement is one of a project's files
    (the advice names headwater.toml, which states a project's dialect once).

    >>> dialect_hint([(0, 1, "INSERT OVERWRITE TABLE t SELECT a || b AS c FROM s")], "doris")[:60]
    'statement 1 (line 1) uses INSERT OVERWRITE TABLE, as spark w'
    >>> dialect_hint([(0, 1, "INSERT INTO t SELECT `a` FROM s")], "doris") is None
    True
    """
    checked = 0
    for index, line_no, sql in statements:
        signs = _signs(sql, dialect)
        checked += bool(signs)
        if checked > MAX_CHECKED:
            return None
        for sign, other in signs:
            theirs = _parse(sql, other)
            if theirs is None:
                continue
            ours = _parse(sql, dialect)
            head = f"statement {index + 1} (line {line_no}) uses {sign}, as {other} writes it,"
            if assumed:
                head = f"no dialect given (--dialect or headwater.toml), {dialect} assumed: {head}"
            advice = f"; give --dialect {other} if the script is {other} SQL"
            if project:
                advice = (
                    f'; give --dialect {other}, or dialect = "{other}" in headwater.toml, if the project is {other} SQL'
                )
            if ours is None:
                return f"{head} and parses as {other} but not as {dialect}{advice}"
            if _neutral(ours) != _neutral(theirs):
                diff = _first_difference(_neutral(ours), _neutral(theirs), dialect, other)
                return f"{head} and reads differently under {dialect}{diff}{advice}"
    return None
