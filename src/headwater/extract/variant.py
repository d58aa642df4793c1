"""Snowflake semi-structured paths as struct fields: ``w.asset:id`` is the field ``asset.id``.

``variant_paths`` rewrites ``col:a.b`` (a ``JSONExtract`` of keys only, no subscripts) into the
field column ``col.a.b`` before binding, marked so that it binds as a field of ``col`` and never
as a table qualifier. Keys keep their case (a VARIANT's keys are case-sensitive).

>>> import sqlglot
>>> tree = variant_paths(sqlglot.parse_one("SELECT w.asset:id::string AS a FROM widgets w", read="snowflake"))
>>> tree.sql("snowflake"), tree.find(exp.Column).meta[FIELD_PATH]
('SELECT CAST(w.asset."id" AS VARCHAR) AS a FROM widgets AS w', True)
"""

from __future__ import annotations

from sqlglot import exp

FIELD_PATH = "headwater.field_path"
"""Meta key of a column that is a struct field path (``col.f.g``), whatever its qualifier looks like."""


def variant_paths(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each key-only VARIANT path over a column as a field column (in place)."""
    for node in list(tree.find_all(exp.JSONExtract)):
        path = node.expression
        col = node.this
        if not (node.args.get("variant_extract") and isinstance(col, exp.Column) and isinstance(path, exp.JSONPath)):
            continue
        keys = path.expressions[1:] if path.expressions and isinstance(path.expressions[0], exp.JSONPathRoot) else []
        if not keys or not all(isinstance(k, exp.JSONPathKey) and isinstance(k.this, str) for k in keys):
            continue
        parts = [p for p in (col.args.get(k) for k in ("catalog", "db", "table")) if p is not None]
        parts.append(col.this)
        parts += [exp.Identifier(this=k.this, quoted=True) for k in keys]
        field = _column(parts)
        node.replace(field)
        if node is tree:
            tree = field
    return tree


def _column(parts: list[exp.Expression]) -> exp.Expression:
    """A column of up to four parts; a longer path as a column under field accesses."""
    head, rest = parts[:4], parts[4:]
    keys = dict(zip(("catalog", "db", "table", "this")[4 - len(head) :], head, strict=True))
    col = exp.Column(**{k: v.copy() for k, v in keys.items()})
    col.meta[FIELD_PATH] = True
    node: exp.Expression = col
    for part in rest:
        node = exp.Dot(this=node, expression=part.copy())
    return node
