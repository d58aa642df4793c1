"""Why each target column is not known to be complete: the codes of the diagnostics that touch it.

A WARNING or ERROR diagnostic raised at an identifier of the outermost query's select item that
gives a target column (in any branch of a set operation) touches that column; one that names its
target column touches it; any other (a JOIN, WHERE or GROUP BY name, a CTE, a ``*``, the statement
itself) touches every column, since the rows of all of them depend on it. INFO never does.

>>> import sqlglot
>>> from headwater.model import Diagnostic, Severity
>>> q = sqlglot.parse_one("SELECT a, b + c AS x FROM t")
>>> d = Diagnostic("ambiguous_column", Severity.WARNING, "", 0, 1, 15)  # at ``c``
>>> [(i.target_column, i.codes) for i in incomplete_columns(q, ["a", "x"], [d])]
[('x', ('ambiguous_column',))]
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from headwater.model import Diagnostic, IncompleteColumn, Severity


def _position(ident: exp.Expression) -> tuple[int, int] | None:
    """Where ``Binder.diag`` places a diagnostic raised at this identifier (its first character)."""
    meta = ident._meta
    if not meta or meta.get("line") is None or meta.get("col") is None:
        return None
    text = "*" if isinstance(ident, exp.Star) else str(ident.this)
    return meta["line"], max(1, meta["col"] - len(text) + 1)


def _branches(query: exp.Expression | None) -> list[exp.Select]:
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.SetOperation):
        return _branches(query.this) + _branches(query.expression)
    return [query] if isinstance(query, exp.Select) else []


def _item_positions(query: exp.Expression | None, width: int) -> dict[tuple[int, int], set[int]]:
    """(line, column) of each identifier of a select item → the output positions it gives. Items after a
    ``*`` are not placed (a star gives an unknown number of outputs)."""
    out: dict[tuple[int, int], set[int]] = {}
    for select in _branches(query):
        for pos, item in enumerate(select.expressions):
            if pos >= width or isinstance(item, exp.Star) or item.find(exp.Star) is not None:
                break
            for node in item.walk():
                if isinstance(node, exp.Identifier):
                    at = _position(node)
                    if at is not None:
                        out.setdefault(at, set()).add(pos)
    return out


def incomplete_columns(
    query: exp.Expression | None, columns: Sequence[str], diagnostics: Sequence[Diagnostic]
) -> tuple[IncompleteColumn, ...]:
    """The target ``columns`` (in order) that the WARNING / ERROR ``diagnostics`` touch, with their codes."""
    doubts = [d for d in diagnostics if d.severity is not Severity.INFO]
    if not doubts or not columns:
        return ()
    places = _item_positions(query, len(columns))
    index = {name: k for k, name in enumerate(columns)}
    codes: list[list[str]] = [[] for _ in columns]
    for d in doubts:
        if d.target_column is not None and d.target_column in index:
            touched: set[int] | range = {index[d.target_column]}
        elif d.line is not None and d.column is not None and (d.line, d.column) in places:
            touched = places[(d.line, d.column)]
        else:
            touched = range(len(columns))
        for k in touched:
            if d.code not in codes[k]:
                codes[k].append(d.code)
    return tuple(IncompleteColumn(name, tuple(c)) for name, c in zip(columns, codes, strict=True) if c)
