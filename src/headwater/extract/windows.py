"""Named windows (``WINDOW w AS (…)``) written out where they are used.

``OVER w`` is the window ``w`` defines; ``OVER (w ORDER BY …)`` and ``WINDOW w2 AS (w ORDER BY …)``
extend ``w`` (its PARTITION BY, and its ORDER BY and frame where they give none), as the SQL standard
and every dialect that has the clause read them. The resolver then meets the inline form only, so a
named window gives the same WINDOW lineage as the same window written inline.

>>> import sqlglot
>>> q = sqlglot.parse_one("SELECT LAG(s) OVER w AS p, SUM(x) OVER (w ROWS UNBOUNDED PRECEDING) AS c FROM h "
...                       "WINDOW w AS (PARTITION BY k ORDER BY t)", read="bigquery")
>>> for e in inline_windows(q).expressions:
...     print(e.sql("bigquery"))
LAG(s) OVER (PARTITION BY k ORDER BY t) AS p
SUM(x) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c
"""

from __future__ import annotations

from typing import Final

from sqlglot import exp

_WINDOW: Final = exp.Window
_SELECT: Final = exp.Select
_PARTS: Final = ("partition_by", "order", "spec")


def _key(ident: exp.Expression | None) -> str | None:
    """A window name, compared as the databases do: without case (window names are identifiers)."""
    return ident.name.lower() if isinstance(ident, exp.Identifier) and ident.name else None


def _extend(node: exp.Window, base: exp.Window | None) -> None:
    """Give ``node`` the parts of ``base`` it does not have itself, and drop its reference to it."""
    if base is not None:
        for part in _PARTS:
            value = base.args.get(part)
            if value and not node.args.get(part):
                node.set(part, [v.copy() for v in value] if isinstance(value, list) else value.copy())
    node.set("alias", None)


def inline_windows(select: exp.Select) -> exp.Select:
    """A copy of ``select`` whose window functions carry the named windows they use, without its
    WINDOW clause; ``select`` itself when it has none. A name no definition gives is left as written.
    Subqueries keep their own WINDOW clauses (they are written out when the resolver reaches them)."""
    definitions = select.args.get("windows")
    if not definitions:
        return select
    copy = select.copy()
    named: dict[str, exp.Window] = {}
    for definition in copy.args.get("windows") or []:
        name = _key(definition.this)
        if name is None:
            continue
        _extend(definition, named.get(_key(definition.args.get("alias")) or ""))
        named[name] = definition
    copy.set("windows", None)
    for node in list(copy.find_all(_WINDOW)):
        name = _key(node.args.get("alias"))
        if name is None or name not in named or node.find_ancestor(_SELECT) is not copy:
            continue
        _extend(node, named[name])
    return copy
