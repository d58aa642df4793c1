"""The element of an array as a relation: BigQuery ``UNNEST(arr) [AS x]`` over an array of structs.

BigQuery makes one row per element of the array; when the element is a STRUCT, its fields are the
row's columns (``SELECT key, value.name FROM t, UNNEST(t.addons)``), and the alias names the whole
element (``x``, ``x.key``). ``element_relation`` builds that relation: the element column first
(``Relation.element`` names it), then the fields, found

- in the array's own text: an array of STRUCT literals (``[STRUCT('a' AS k, 1 AS v), …]``: each
  field's value is its literal, one alternative per element, as the rows of VALUES), a typed array
  (``ARRAY<STRUCT<k STRING>>[('a'), …]``), an ``ARRAY(SELECT AS STRUCT …)``;
- in the schema: the array is a column (or a struct field of one) whose type the catalog gives
  (``ARRAY<STRUCT<name STRING, value INT64>>``): a field's lineage is the array column's field,
  ``UNNEST(h.metadata.value)`` (the source ``h.metadata.value``, the store's field node).

When neither tells, the element's fields are unknown and the relation is *open* (incomplete): a
name it might have binds to it as a field of the element, never to the outer table, unless a
source that certainly has the name is in scope (``columns._candidates``). An aliased element whose
alias the query reads as a value and never as a qualifier is taken for a scalar (``UNNEST(tags) AS
tag`` … ``tag``).
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING, Final

from sqlglot import exp

from headwater.extract.scope import REF, USING_NAME, Alts, Relation
from headwater.extract.trees import clone

if TYPE_CHECKING:
    from headwater.extract.columns import ColumnBinder
    from headwater.extract.scope import Source

_ALIAS: Final = exp.Alias
_ARRAY: Final = exp.Array
_CAST: Final = exp.Cast
_COLUMN: Final = exp.Column
_COLUMN_DEF: Final = exp.ColumnDef
_DATA_TYPE: Final = exp.DataType
_IDENTIFIER: Final = exp.Identifier
_PROPERTY_EQ: Final = exp.PropertyEQ
_SELECT: Final = exp.Select
_STAR: Final = exp.Star
_STRUCT: Final = exp.Struct
_TUPLE: Final = exp.Tuple
_UNNEST: Final = exp.Unnest
# the functions whose value is an element of their array argument (``UNNEST(t.arr).f`` is ``UNNEST(t.arr.f)``)
ELEMENT_FUNCS: Final = frozenset({exp.Unnest, exp.Explode, exp.ExplodeOuter, exp.Inline})
_ARRAY_TYPE: Final = exp.DataType.Type.ARRAY
_STRUCT_TYPE: Final = exp.DataType.Type.STRUCT

ELEMENT_DIALECTS: Final = frozenset({"bigquery"})
"""Dialects in which the fields of an unnested struct are columns of the row (BigQuery's value tables)."""

MAX_ROWS: Final = 64  # elements of an array literal kept as alternatives; above, a field is ``UNNEST(arr).f``

_TYPES: Final[dict[tuple[str, str], exp.DataType | None]] = {}  # a schema's type text, parsed once


def element_relation(binder: ColumnBinder, alts: Alts, name: str, label: str, struct: bool) -> Relation:
    """The rows of the elements of the array ``alts`` (its resolved alternatives): the element
    column ``name`` and the element's fields. ``struct``: the element may be a struct (it has no
    alias, or the query uses its alias as a qualifier, ``x.f``); its fields are then open when unknown."""
    element = [_UNNEST(expressions=[clone(a)]) for a in alts]
    names, labels, columns = [name], [label], [element]
    found: tuple[list[str], list[str], list[Alts]] | None = None
    for alt, value in zip(alts, element, strict=True):
        found = _fields(binder, alt, value)
        if found is not None:
            break
    if found is None:  # the fields are unknown: open when the element may be a struct
        return Relation(names, labels, columns, complete=not struct, element=name if struct else None)
    field_names, field_labels, field_columns = found
    if not field_names:  # an array of scalars: the element is the row's one column
        return Relation(names, labels, columns)
    for n, lab, col in zip(field_names, field_labels, field_columns, strict=True):
        if n and n not in names:
            names.append(n)
            labels.append(lab)
            columns.append(col)
    return Relation(names, labels, columns, element=name)


def element_field(binder: ColumnBinder, src: Source, rel: Relation, name: str, node: exp.Expression) -> Alts | None:
    """A name an element relation does not list: a field of the element when the SQL qualifies it
    with the element's alias (``x.f``: certain), or when the element's fields are unknown."""
    qualified = isinstance(node, _COLUMN) and node.args.get("table") is not None
    if not qualified and rel.complete:
        return None
    from headwater.extract.columns import struct_field

    ident = (
        next(  # the identifier that names the field, as written (a struct path ``f.g`` names it first)
            (p for p in node.parts if binder.column_ident(p) == name),
            _IDENTIFIER(this=name, quoted=True),
        )
        if isinstance(node, _COLUMN)
        else _IDENTIFIER(this=name, quoted=True)
    )
    return [struct_field(alt, [ident], binder.column_ident) for alt in rel.columns[0]]


def may_be_struct(select: exp.Expression | None, alias: str, binder: ColumnBinder) -> bool:
    """Whether the element named ``alias`` may be a struct, as ``select`` uses it: unless it is only
    read as a value (``UNNEST(tags) AS tag`` … ``tag``), never as a qualifier (``alias.f``), and no
    ``*`` of the select list may expand its fields."""
    if select is None:
        return True
    if any(isinstance(e, _STAR) or (isinstance(e, _COLUMN) and isinstance(e.this, _STAR)) for e in select.expressions):
        return True  # ``SELECT *, x``: the ``*`` gives the fields of a struct element, ``x`` the element
    bare = False
    for col in select.find_all(_COLUMN):
        table = col.args.get("table")
        if table is not None:
            if binder.table_ident(table) == alias:
                return True
        elif isinstance(col.this, _IDENTIFIER) and binder.column_ident(col.this) == alias:
            bare = True
    return not bare


def _fields(
    binder: ColumnBinder, alt: exp.Expression, element: exp.Expression
) -> tuple[list[str], list[str], list[Alts]] | None:
    """The element's fields (names, labels, values) when the array's text or its column's type
    tells them; empty lists for an array of scalars; None when unknown."""
    rows = _literal_rows(alt)
    if rows is not None and any(rows[0]):
        field_labels, values = rows
        names = [binder.column_ident(n) or "" for n in field_labels]
        return names, field_labels, values
    dtype = _column_type(binder, alt)
    if dtype is None:
        return None
    if not dtype.is_type(_ARRAY_TYPE) or not dtype.expressions:
        return None
    inner = dtype.expressions[0]
    if not isinstance(inner, _DATA_TYPE) or not inner.is_type(_STRUCT_TYPE):
        return [], [], []  # an array of scalars: the element is the row's one column
    from headwater.extract.columns import struct_field

    names, labels, values = [], [], []
    for field in inner.expressions:
        if isinstance(field, _COLUMN_DEF) and isinstance(field.this, _IDENTIFIER):
            names.append(binder.column_ident(field.this) or "")
            labels.append(field.this.this)
            values.append([struct_field(element, [field.this], binder.column_ident)])
    return names, labels, values


def _literal_rows(alt: exp.Expression) -> tuple[list[str], list[Alts]] | None:
    """An array written out: ``[STRUCT(x AS a, …), …]``, ``ARRAY<STRUCT<a …>>[(…), …]``, or the
    resolved ``ARRAY(SELECT AS STRUCT …)``: its field labels and each field's values (one per element)."""
    typed: list[str] | None = None
    if isinstance(alt, _CAST) and isinstance(alt.this, _ARRAY):
        to = alt.args.get("to")
        if isinstance(to, _DATA_TYPE) and to.is_type(_ARRAY_TYPE) and to.expressions:
            inner = to.expressions[0]
            if isinstance(inner, _DATA_TYPE) and inner.is_type(_STRUCT_TYPE):
                typed = [f.this.this for f in inner.expressions if isinstance(f, _COLUMN_DEF)]
        alt = alt.this
    if isinstance(alt, exp.ArrayAgg):  # ``ARRAY_AGG(STRUCT(a, b) [ORDER BY …] [LIMIT n])``: rows of that struct
        value = alt.this
        while isinstance(value, exp.Limit | exp.Order | exp.Distinct | exp.IgnoreNulls | exp.RespectNulls):
            value = value.this if not isinstance(value, exp.Distinct) else (value.expressions or [None])[0]
        if not isinstance(value, _STRUCT):
            return None
        items = [value]
    elif not isinstance(alt, _ARRAY) or not alt.expressions:
        return None
    else:
        items = alt.expressions
    if len(items) == 1 and isinstance(items[0], _SELECT) and items[0].args.get("kind") == "STRUCT":
        outputs = items[0].expressions
        if not all(isinstance(o, _ALIAS) for o in outputs):
            return None
        return [o.alias for o in outputs], [[clone(o.this)] for o in outputs]
    if len(items) > MAX_ROWS or not all(isinstance(i, (_STRUCT, _TUPLE)) for i in items):
        return None
    labels = typed
    if labels is None:
        labels = [_field_label(e) for e in items[0].expressions]
    values: list[Alts] = [[] for _ in labels]
    constant = [False] * len(labels)  # a field has a value that reads no column already
    for item in items:
        for i, e in enumerate(item.expressions[: len(labels)]):
            value = _field_value(e)
            if value.find(_COLUMN) is None:  # constants: one stands for the others (they read nothing)
                if constant[i]:
                    continue
                constant[i] = True
            values[i].append(clone(value))
    return labels, values


def _field_label(e: exp.Expression) -> str:
    if isinstance(e, _ALIAS):
        return e.alias
    if isinstance(e, _PROPERTY_EQ) and isinstance(e.this, _IDENTIFIER):
        return e.this.this
    # ``STRUCT(t.a, c.f)``: BigQuery names a field after the column or field it is (here resolved:
    # ``t.a``, ``t.s.f``, ``UNNEST(t.arr.f)``, ``(expr).f``)
    while type(e) in ELEMENT_FUNCS and len(e.expressions if type(e) is _UNNEST else [e.this]) == 1:
        e = e.expressions[0] if type(e) is _UNNEST else e.this
    if type(e) is exp.Coalesce and e.args.get(USING_NAME):  # a FULL / RIGHT JOIN … USING column
        return str(e.args[USING_NAME])
    if isinstance(e, _COLUMN):
        ref = e.meta.get(REF) if e._meta else None
        return ref.column.rsplit(".", 1)[-1] if ref is not None else e.name
    if isinstance(e, exp.Dot):
        return e.name
    return ""


def _field_value(e: exp.Expression) -> exp.Expression:
    if isinstance(e, _PROPERTY_EQ):
        return e.expression
    if isinstance(e, _ALIAS):
        return e.this
    return e


def _column_type(binder: ColumnBinder, alt: exp.Expression) -> exp.DataType | None:
    """The type the catalog gives the base column (or struct field of one) ``alt``, when it is one."""
    ref = alt.meta.get(REF) if isinstance(alt, _COLUMN) and alt._meta else None
    if ref is None:
        return None
    schema = binder.schema(ref.table)
    if schema is None:
        return None
    parts = ref.column.split(".")
    text = schema.column_types.get(parts[0])
    if not text:
        return None
    dtype = _parsed(text, binder.names.dialect)
    for part in parts[1:]:  # a field of a struct column: ``a.b.c``
        if dtype is None or not dtype.is_type(_STRUCT_TYPE):
            return None
        dtype = next(
            (
                f.args.get("kind")
                for f in dtype.expressions
                if isinstance(f, _COLUMN_DEF) and binder.column_ident(f.this) == part
            ),
            None,
        )
    return dtype


def _parsed(text: str, dialect: str) -> exp.DataType | None:
    key = (text, dialect)
    if key not in _TYPES:
        if len(_TYPES) >= 4096:
            _TYPES.clear()
        try:
            _TYPES[key] = exp.DataType.build(text, dialect=dialect or None)
        except Exception:  # a type sqlglot does not read: the fields are unknown
            _TYPES[key] = None
    return _TYPES[key]


def pushed_field(struct: exp.Expression, name: str, ranges: Container[str], binder: ColumnBinder) -> exp.Expression:
    """Field ``name`` of the struct expression ``struct``, as an expression to resolve: ``s.name`` for a
    struct column ``s``, ``cur.name`` for a table alias ``cur`` used as a value (its row), and into the
    values of IF / COALESCE / CASE (``IF(c, cur, prev).name`` is ``IF(c, cur.name, prev.name)``);
    over any other expression, the field access ``(expr).name``. ``ranges``: the aliases in scope."""
    ident = _IDENTIFIER(this=name, quoted=True)
    if isinstance(struct, _COLUMN) and not isinstance(struct.this, exp.Star):
        if struct.args.get("table") is None and binder.table_ident(struct.this) in ranges:
            return exp.Column(this=ident, table=struct.this.copy())
        parts = [p.copy() for p in struct.parts]
        if len(parts) >= 4:
            return exp.Dot(this=struct.copy(), expression=ident)
        return exp.Column(this=ident, **dict(zip(("table", "db", "catalog"), reversed(parts), strict=False)))
    if isinstance(struct, exp.If):
        out = struct.copy()
        for arg in ("true", "false"):
            value = struct.args.get(arg)
            if value is not None:
                out.set(arg, pushed_field(value, name, ranges, binder))
        return out
    if isinstance(struct, exp.Coalesce):
        return exp.Coalesce(
            this=pushed_field(struct.this, name, ranges, binder),
            expressions=[pushed_field(e, name, ranges, binder) for e in struct.expressions],
        )
    if isinstance(struct, exp.Paren):
        return pushed_field(struct.this, name, ranges, binder)
    if isinstance(struct, _STRUCT):  # ``STRUCT(x AS name, …)``: the member's value
        for m in struct.expressions:
            if isinstance(m, _PROPERTY_EQ | _ALIAS) and binder.column_ident(_field_label(m)) == name:
                return _field_value(m).copy()
    if isinstance(struct, _TUPLE | exp.Null) and all(
        isinstance(e, exp.Null) for e in (struct.expressions if isinstance(struct, _TUPLE) else [struct])
    ):  # ``(NULL, NULL)``: every field is NULL
        return exp.Null()
    return exp.Dot(this=struct.copy(), expression=ident)


def element_of(rel: Relation) -> list[exp.Expression]:
    """The array a relation's unknown columns come from, when they are the fields of an unnested
    element (``SELECT AS STRUCT * EXCEPT (a) FROM UNNEST(t.arr)``): what its outputs read."""
    src = rel.open
    inner = src.relation if src is not None and src.load is not None else None
    if inner is None or inner.element is None or not inner.columns:
        return []
    return [clone(alt) for alt in inner.columns[0]]


def row_fields(binder: ColumnBinder, func: exp.Expression, alts: Alts, count: int) -> list[Alts] | None:
    """Trino ``UNNEST(rows) AS u(a, b)``, Spark ``inline(rows) AS a, b``: the columns named by position
    are the fields of the array's row (struct) type, when the array's text or its column's type tells
    them (``UNNEST(t.items.sku)``); None when it does not."""
    out: list[Alts] = [[] for _ in range(count)]
    for alt in alts:
        element = _UNNEST(expressions=[clone(alt)]) if isinstance(func, _UNNEST) else func.__class__(this=clone(alt))
        found = _fields(binder, alt, element)
        if found is None or len(found[2]) < count:
            return None
        for i in range(count):
            out[i].extend(found[2][i])
    return out


def written_fields(struct: exp.Expression | None) -> list[exp.Expression] | None:
    """The members of a struct expression written out, through IF / COALESCE / parentheses
    (``IF(c, STRUCT(a AS x, b AS y), (NULL, NULL))``: ``x``, ``y``), as the identifiers that name
    them; None when no branch is a STRUCT whose members all have names."""
    if isinstance(struct, exp.Paren):
        return written_fields(struct.this)
    if isinstance(struct, exp.If):
        return written_fields(struct.args.get("true")) or written_fields(struct.args.get("false"))
    if isinstance(struct, exp.Coalesce):
        for e in [struct.this, *struct.expressions]:
            found = written_fields(e)
            if found:
                return found
        return None
    if isinstance(struct, _STRUCT) and struct.expressions:
        names = [m.this if isinstance(m, _PROPERTY_EQ) else m.args.get("alias") for m in struct.expressions]
        if all(isinstance(n, _IDENTIFIER) for n in names):
            return names
    return None
