"""Binding column names to the sources of their scope (and outer scopes), and struct fields.

The second class of the resolver's chain (``headwater.extract.binder``): ``SourceBinder`` and
``Resolver`` build on it. A name that cannot be bound becomes an unresolved marker and a diagnostic,
never a guess.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any, Final

from sqlglot import exp

from headwater.extract.aliases import ALIAS
from headwater.extract.binder import Binder
from headwater.extract.scope import REF, UNRESOLVED, USING_NAME, Alts, Scope, Source, column_node, columns_in
from headwater.extract.trees import clone
from headwater.extract.unnest import ELEMENT_FUNCS, element_field
from headwater.extract.variant import FIELD_PATH
from headwater.model import ColumnRef, Severity, TableRef

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_COALESCE: Final = exp.Coalesce
_COLUMN: Final = exp.Column
_DOT: Final = exp.Dot
_exp_column: Final = exp.column
_exp_to_identifier: Final = exp.to_identifier

_IDENTIFIER: Final = exp.Identifier
_UNNEST: Final = exp.Unnest
_PROPERTY_EQ: Final = exp.PropertyEQ
_STRUCT_NODE: Final = exp.Struct
LeafKey = tuple[object, object, object, object]


def leaf_ref(node: exp.Expression) -> ColumnRef | None:
    """The ``ColumnRef`` of a resolved base-table column as ``column_node`` and ``struct_field`` make
    it (``table.column``: two plain identifiers, the reference its only metadata, no comments); None
    for any other node, which is then treated as every expression is."""
    meta = node._meta
    if meta is None or len(meta) != 1 or type(node) is not _COLUMN or node.comments:
        return None
    ref = meta.get(REF)
    return ref if isinstance(ref, ColumnRef) else None


def leaf_key(node: exp.Expression) -> LeafKey | None:
    """What the generator's text of a base-table leaf (``leaf_ref``) is made of: each identifier's
    text and quoting, when the leaf and its identifiers hold nothing else (no other argument, no
    metadata, no comments). None: the node is rendered by the generator as it comes."""
    if leaf_ref(node) is None:
        return None
    args = node.args
    if len(args) != 2:
        return None
    this = args.get("this")
    table = args.get("table")
    if type(this) is not _IDENTIFIER or type(table) is not _IDENTIFIER:
        return None
    if len(this.args) != 2 or len(table.args) != 2 or this._meta or table._meta or this.comments or table.comments:
        return None
    if "quoted" not in this.args or "quoted" not in table.args:
        return None
    return (this.args["this"], this.args["quoted"], table.args["this"], table.args["quoted"])


def describe_source(src: Source) -> str:
    return src.table.qualified if src.table is not None else src.alias


class ColumnBinder(Binder):
    """Column binding for ``Resolver``."""

    def _find_source(self, scope: Scope, qualifier: str) -> Source | None:
        src = scope.sources.get(qualifier)
        if src is not None:
            return src
        # a qualifier may name the table while an alias is in use (Doris/MySQL allow db.t.col)
        for s in scope.sources.values():
            if s.table is not None and s.table.name == qualifier and s.alias == qualifier:
                return s
        return None

    def _find_table(self, scope: Scope, catalog: str | None, db: str, name: str) -> Source | None:
        """The source of table ``[catalog.]db.name`` in ``scope`` or an outer one, under any alias."""
        s: Scope | None = scope
        while s is not None:
            for src in s.sources.values():
                t = src.table
                if t is not None and t.name == name and t.database == db and catalog in (None, t.catalog):
                    if s is not scope:
                        scope.outer_hit = True
                    return src
            s = s.parent
        return None

    def _column(self, col: exp.Column, scope: Scope, alias_first: bool, alias_fallback: bool) -> Alts:
        args = col.args  # read once (``col.this`` is a property: a call)
        name = self.column_ident(args.get("this")) or ""
        qualifier = self.table_ident(args.get("table"))
        meta = col._meta
        if qualifier is not None and meta and meta.get(FIELD_PATH):  # Snowflake ``s:f``: a field of s
            field = self._alias_field(col, scope, alias_first or alias_fallback)
            if field is not None:  # ``parse_ip(…) AS p, p:error``: a field of the alias's value
                return field
            field = self._struct_field(col, scope, qualifier, name)
            if field is not None:
                return field
            return self._unresolved(
                col, "unknown_column", f"column {qualifier} is in no table of its scope", Severity.ERROR
            )
        if qualifier is not None:
            db = self.dataset_ident(args.get("db"))
            if db is not None:  # db.t.x names table db.t, whatever alias it has in scope
                table = self.dataset_ident(args.get("table")) or ""
                found = self._find_table(scope, self.dataset_ident(args.get("catalog")), db, table)
                if found is not None:
                    return self._from_source(found, name, col)
            s: Scope | None = scope
            while s is not None:
                src = self._find_source(s, qualifier)
                if src is not None:
                    if s is not scope:
                        scope.outer_hit = True
                    return self._from_source(src, name, col)
                s = s.parent
            field = self._alias_field(col, scope, alias_first or alias_fallback)
            if field is None:
                field = self._struct_field(col, scope, qualifier, name)
            if field is not None:
                return field
            return self._unresolved(
                col, "unknown_qualifier", f"{qualifier}.{name}: {qualifier} names no table in scope", Severity.ERROR
            )

        if ((alias_first or alias_fallback) and name in scope.aliases) or name in scope.lateral:
            alias = self._alias_reading(scope, name, alias_first, alias_fallback)
            if alias is not None:
                return alias
        s = scope
        as_table = self.table_ident(args.get("this")) or ""  # the name as a table's alias would be folded
        while s is not None:
            if s.sources.get(as_table) is not None and not any(
                src.has(name) for src in s.sources.values() if settled(src)
            ):  # a table's alias, and no table of its scope has such a column: its row as a value
                row = self._row_value(s, as_table, col)
                if row is not None:
                    if s is not scope:
                        scope.outer_hit = True
                    return row
            bound = self._unqualified(s, name, col)
            if bound is not None:
                if s is not scope:
                    scope.outer_hit = True
                if s.parent is not None:
                    known = s.bound.get(name)
                    if known is not None and not known[0] and known[1]:  # bound to a table of unknown columns
                        self._outer_doubt(s, name, col)
                return bound
            s = s.parent
        if not scope.sources and scope.parent is None:
            return self._unresolved(
                col, "unknown_column", f"column {name} with no table to read it from", Severity.ERROR
            )
        row = self._row_value(scope, self.table_ident(args.get("this")) or "", col)
        if row is not None:
            return row
        stale = self._stale_source(scope)
        if stale is not None and stale.table is not None:  # the SQL runs: the table has the column
            self.diag(
                "column_not_in_catalog",
                f"column {name} is not in {stale.table.qualified} as its CREATE TABLE IF NOT EXISTS lists it, "
                "and the statement reads no other table: the column is kept (that DDL may be older than the table)",
                col,
            )
            return [self._leaf(stale.table, name)]
        return self._unresolved(col, "unknown_column", f"column {name} is in no table of its scope", Severity.ERROR)

    def _leaf(self, table: TableRef, name: str) -> exp.Expression:
        """The base column ``table.name``, made once per statement (``_from_source`` makes it inline)."""
        key = (table.catalog, table.database, table.name, name)  # TableRef's fields: hashed without it
        leaf = self._columns.get(key)
        if leaf is None:
            leaf = self._columns[key] = base_leaf(table, name, key)
        return leaf

    def _stale_source(self, scope: Scope) -> Source | None:
        """The one source of ``scope`` when it is a table whose columns a CREATE TABLE IF NOT EXISTS of the
        SQL gives (``TableSchema.tentative``): an unqualified name none of them has is the table's."""
        if len(scope.sources) != 1:
            return None
        src = next(iter(scope.sources.values()))
        if src.table is None or src.columns is None:
            return None
        schema = self.schema(src.table)
        return src if schema is not None and schema.tentative else None

    def _outer_doubt(self, scope: Scope, name: str, col: exp.Column) -> None:
        """``name`` was bound in ``scope`` to a table whose columns are unknown, while an outer scope's
        table certainly has it: either may be meant (a correlated reference), so a WARNING."""
        outer = scope.parent
        while outer is not None:
            known = [src for src in outer.sources.values() if settled(src) and src.has(name)]
            if known:
                self.diag(
                    "ambiguous_column",
                    f"column {name} is bound to a table of its subquery whose columns are unknown, and "
                    f"{describe_source(known[0])} of the outer query has it: either may be meant",
                    col,
                )
                return
            outer = outer.parent

    def _row_value(self, scope: Scope, alias: str, col: exp.Column) -> Alts | None:
        """A table's alias used as a value (BigQuery ``ARRAY_AGG(t ORDER BY …)``, PostgreSQL's row
        value): the row, ``STRUCT(t.a AS a, …)`` when its columns are known; None when ``alias``
        names no source in scope."""
        s: Scope | None = scope
        while s is not None:
            src = next((x for x in s.sources.values() if x.alias == alias), None)
            if src is not None:
                if s is not scope:
                    scope.outer_hit = True
                names = src.known_columns()
                if names is None:
                    marker = self._unresolved(
                        col, "star_unknown_columns", f"{alias}: a table's row as a value, whose columns are unknown"
                    )
                    if src.table is not None:  # a field read from it later is that table's column
                        marker[0].meta[UNRESOLVED] = src.table
                    return marker
                members: list[exp.Expression] = []
                for n in names:
                    alts = self._from_source(src, n, col)
                    if alts:
                        members.append(_PROPERTY_EQ(this=_IDENTIFIER(this=n, quoted=True), expression=clone(alts[0])))
                return [_STRUCT_NODE(expressions=members)]
            s = s.parent
        return None

    def _alias_reading(self, scope: Scope, name: str, alias_first: bool, alias_fallback: bool) -> Alts | None:
        """The select-list alias ``name`` where it is the reading (``aliases.py``), else None: in a later
        clause first (``alias_first``; a name HAVING groups by under ``GROUPED`` is read as under
        ``COLUMN``) or unless a column of that name is in scope (``alias_fallback``); in the select list
        itself, an earlier item's alias (lateral) as the dialect's rule for it says."""
        if (alias_first or alias_fallback) and name in scope.aliases:
            alts = scope.aliases[name]
            if (alias_first and name not in scope.grouped) or self._alias_over_column(scope, name, alts):
                return [self._take(alt) for alt in alts]
        if name in scope.lateral:
            alts = scope.lateral[name]
            if self.alias_rules.select == ALIAS or self._alias_over_column(scope, name, alts):
                return [clone(alt) for alt in alts]
        return None

    def _alias_field(self, col: exp.Column, scope: Scope, visible: bool) -> Alts | None:
        """``a.f`` / ``a:f`` whose ``a`` names no table but a select-list alias the clause sees
        (``visible``) or an earlier item of the same select list: the field ``f`` of the alias's value
        (a table's struct column ``a`` of that name wins where a column would, ``_alias_over_column``)."""
        args = col.args
        if args.get("db") is not None:
            return None
        name = self.column_ident(args.get("table")) or ""
        if not (visible and name in scope.aliases) and name not in scope.lateral:
            return None
        alts = self._alias_reading(scope, name, False, visible)
        if alts is None:
            return None
        return [struct_field(alt, [col.this], self.column_ident) for alt in alts]

    def _alias_over_column(self, scope: Scope, name: str, alts: Alts) -> bool:
        """Whether the select-list alias ``name`` (resolved as ``alts``) is read where a column of that
        name would win (``aliases.COLUMN``): when no source of the scope has the column. A source whose
        columns are unknown has it only if the alias's own expression reads a column of that name
        (``UPPER(x) AS x``): the alias is otherwise the reading, never a column made up for an
        unknown table."""
        if name in scope.using or name in scope.merged:
            return False
        known, unknown = scope.bound.get(name) or _candidates(scope, name)
        if known:  # a name two tables have is, in the MySQL family, the alias (MariaDB checked)
            return len(known) > 1 and self.alias_rules.ambiguous
        if not unknown:
            return True
        for alt in alts:
            for node in columns_in(alt, self.shared):
                meta = node._meta
                ref = meta.get(REF) if meta else None
                if (ref.column if isinstance(ref, ColumnRef) else self.column_ident(node.this)) == name:
                    return False
        return True

    def _may_have_column(self, scope: Scope, name: str) -> bool:
        """Whether a source of ``scope`` has, or may have (its columns unknown), a column ``name``."""
        if name in scope.using or name in scope.merged:
            return True
        known, unknown = scope.bound.get(name) or _candidates(scope, name)
        return bool(known or unknown)

    def _struct_field(self, col: exp.Column, scope: Scope, qualifier: str, name: str) -> Alts | None:
        """``s.f`` / ``t.s.f`` / ``t.s.f.g`` where ``s`` is a (struct) column: the field ``s.f`` of
        that column (``struct_field``), or the field access over an expression that is no column."""
        parts = [p for p in (col.args.get(k) for k in ("catalog", "db", "table")) if p is not None]
        parts.append(col.this)
        base: Alts | None = None
        path = parts[1:]
        if len(parts) >= 3:  # t.s.f…: table t, column s, fields
            s: Scope | None = scope
            while s is not None and not base:
                src = self._find_source(s, self.table_ident(parts[0]) or "")
                if src is not None:
                    base = self._from_source(src, self.column_ident(parts[1]) or "", col)
                s = s.parent
            path = parts[2:]
        if not base:  # s.f…: column s of a table in scope
            s = scope
            while s is not None and not base:
                base = self._unqualified(s, self.column_ident(parts[0]) or "", col)
                s = s.parent
            path = parts[1:]
        if not base:
            return None
        if any(b._meta and b._meta.get(UNRESOLVED) for b in base):  # the column itself is not bound
            return base
        return [struct_field(b, path, self.column_ident) for b in base]

    def _unqualified(self, scope: Scope, name: str, col: exp.Column) -> Alts | None:
        """Bind an unqualified column in one scope; None when this scope certainly lacks it."""
        if name in scope.merged:  # FULL / RIGHT JOIN USING: the value comes from either side
            left_src, right_src = scope.merged[name]
            pairs = itertools.product(self._from_source(left_src, name, col), self._from_source(right_src, name, col))
            return [
                _COALESCE(this=clone(lalt), expressions=[clone(ralt)], **{USING_NAME: name}) for lalt, ralt in pairs
            ]
        if name in scope.using:
            return self._from_source(scope.using[name], name, col)
        bound = scope.bound.get(name)
        if bound is None:
            bound = _candidates(scope, name)
        known, unknown = bound
        if len(known) == 1:
            return self._from_source(known[0], name, col)
        if len(known) > 1:
            tables = ", ".join(describe_source(s) for s in known)
            return self._unresolved(
                col, "ambiguous_column", f"column {name} is in more than one table: {tables}", Severity.ERROR
            )
        if len(unknown) == 1:
            return self._from_source(unknown[0], name, col)
        if len(unknown) > 1:
            tables = ", ".join(describe_source(s) for s in unknown)
            return self._unresolved(
                col,
                "ambiguous_column",
                f"column {name} may come from {tables}: their columns are unknown; "
                "a schema for them (--schema or --catalog-url) would resolve it",
            )
        return None

    def _from_source(self, src: Source, name: str, node: exp.Expression) -> Alts:
        if src.opaque:
            return self._unresolved(
                node,
                "unsupported_construct",
                f"column {name} comes from a {src.opaque}, which is not resolved",
                Severity.WARNING,
            )
        if src.table is not None:
            if src.columns is not None and src.has(name) is False:
                if src.defined or not (isinstance(node, _COLUMN) and node.args.get("table")):
                    return self._unresolved(
                        node, "unknown_column", f"column {name} is not in table {src.table.qualified}", Severity.ERROR
                    )
                # ``o.x``: the SQL names the table; a catalog that lacks the column is stale, the edge is kept
                self.diag(
                    "column_not_in_catalog",
                    f"column {name} is not in the catalog's table {src.table.qualified}, which the SQL names: "
                    "the column is kept (the catalog may be out of date)",
                    node,
                )
            table = src.table
            key = (table.catalog, table.database, table.name, name)  # TableRef's fields: hashed without it
            leaf = self._columns.get(key)
            if leaf is None:
                leaf = self._columns[key] = base_leaf(table, name, key)
            return [leaf]
        rel = src.relation
        if rel is None:
            return self._unresolved(node, "unknown_column", f"column {name}: its relation is unknown", Severity.ERROR)
        idx = rel.index(name)
        if idx is None and rel.element is not None:  # an array's element: a field of it (``unnest``)
            field = element_field(self, src, rel, name, node)
            if field is not None:
                return field
        element = rel.index(src.alias)
        if idx is None and element is not None and isinstance(node, _COLUMN) and node.args.get("table"):
            # UNNEST(array_of_structs) AS i … i.sku: a field of the element, which the alias names
            member = _IDENTIFIER(this=node.name, quoted=bool(node.this.args.get("quoted")))
            return [_DOT(this=clone(alt), expression=member.copy()) for alt in rel.columns[element]]
        if idx is None and rel.fields is not None:  # a field of a struct expression's ``.*``
            return rel.fields(name)
        if idx is None and rel.open is not None and not rel.open.opaque:
            return self._from_source(rel.open, name, node)  # through a ``*`` over one unknown source
        if idx is None:
            if not rel.complete:
                return self._unresolved(
                    node, "unknown_column", f"column {name} of {src.alias}: that relation's columns are not all known"
                )
            return self._unresolved(
                node, "unknown_column", f"column {name} is not an output of {src.alias}", Severity.ERROR
            )
        self._origin = id(rel)
        return [self._take(alt) for alt in rel.columns[idx]]

    def _unresolved(self, node: exp.Expression, code: str, message: str, severity: Severity = Severity.WARNING) -> Alts:
        self.unbound = True
        self.diag(code, message, node, severity)
        marker = node.copy() if isinstance(node, _COLUMN) else _exp_column(message)
        marker.meta[UNRESOLVED] = True
        return [marker]


# One leaf per base column across statements (``base_leaf``), bounded; ``LEAF_KEYS``: each one's
# ``leaf_key`` by its id (the leaf held), for the event's renderer
LEAVES_KEPT: Final = 16384  # about 1.3 kB each (three sqlglot nodes and the parts): at most about 22 MB
_LEAVES: Final[dict[tuple[str, str | None, str, str], exp.Column]] = {}
LEAF_KEYS: Final[dict[int, tuple[exp.Expression, LeafKey | None]]] = {}


def base_leaf(table: TableRef, name: str, key: tuple[str, str | None, str, str]) -> exp.Column:
    """``column_node(table, name)``, made once and shared by every statement after (``key``: the
    table's fields and the name). Resolved trees are never mutated and a column's SQL does not depend
    on its parent, so one node serves every tree; the leaf's ``parent`` link, which sqlglot sets to
    the last tree built over it, is let go once a statement's event is made (``release_leaves``), so
    that the leaf does not keep that tree alive."""
    leaf = _LEAVES.get(key)
    if leaf is None:
        if len(_LEAVES) >= LEAVES_KEPT:
            _LEAVES.clear()
            LEAF_KEYS.clear()
        leaf = _LEAVES[key] = column_node(table, name)
        LEAF_KEYS[id(leaf)] = (leaf, leaf_key(leaf))
    return leaf


def release_leaves(leaves: Iterable[exp.Expression]) -> None:
    """Let go of the trees the shared leaves of a statement were last put in (``base_leaf``)."""
    for leaf in leaves:
        leaf.parent = None


def settled(src: Source) -> bool:
    """Whether ``src``'s columns can be asked without loading a relation that may be the one being
    resolved (a LATERAL subquery reading its own scope)."""
    return src.table is not None or src.load is None or src._relation is not None


def _candidates(scope: Scope, name: str) -> tuple[list[Source], list[Source]]:
    """The sources of ``scope`` that have a column ``name`` and those that may have it (their columns
    unknown), kept in ``scope.bound`` once every source's answer is final (its relation loaded)."""
    known: list[Source] = []
    unknown: list[Source] = []
    final = True
    for src in scope.sources.values():
        has = src.has(name)
        if has:
            known.append(src)
        elif has is None:
            unknown.append(src)
        if src.table is None and src.load is not None and src._relation is None:
            final = False  # a relation still being loaded (its own columns are being bound)
    if final:
        scope.bound[name] = (known, unknown)
    return known, unknown


def struct_field(
    base: exp.Expression, path: list[exp.Expression], ident: Callable[[Any], str | None]
) -> exp.Expression:
    """Field ``path`` of the resolved ``base``: over a base-table column ``s``, the field column
    ``s.f.g`` (its source is the field, rendered ``t.s.f.g``); over any other expression, the
    field access ``expr.f.g`` (label ``FIELD``).

    >>> from headwater.model import TableRef
    >>> c = struct_field(column_node(TableRef("internal", "db", "w"), "asset"), [exp.to_identifier("id")], str)
    >>> c.sql(), str(c.meta[REF])
    ('w.asset.id', 'internal.db.w.asset.id')
    """
    if type(base) in ELEMENT_FUNCS and path:  # a field of an array's element: the array's field
        arg = base.expressions[0] if type(base) is _UNNEST and len(base.expressions) == 1 else base.this
        if (isinstance(arg, _COLUMN) and arg._meta and arg.meta.get(REF) is not None) or type(arg) in ELEMENT_FUNCS:
            field = struct_field(arg, path, ident)  # an element of an element: ``UNNEST(UNNEST(t.a.b).c)``
            if type(field) is not _DOT:
                return _UNNEST(expressions=[field]) if type(base) is _UNNEST else base.__class__(this=field)
    if path and type(base) is exp.Bracket and type(base.this) is exp.ArrayAgg:
        # ``ARRAY_AGG(row …)[OFFSET(0)].f``: the field of the aggregated rows (``ARRAY_AGG(row.f …)[…]``)
        out = base.copy()
        holder: exp.Expression = out.this
        while isinstance(holder.this, exp.Limit | exp.Order | exp.IgnoreNulls | exp.RespectNulls):
            holder = holder.this
        holder.set("this", struct_field(holder.this, path, ident))
        return out
    row = base.meta.get(UNRESOLVED) if path and isinstance(base, _COLUMN) and base._meta else None
    if isinstance(row, TableRef):  # a field of the row of a table whose columns are unknown: its column
        leaf = column_node(row, ident(path[0]) or path[0].name)
        return struct_field(leaf, path[1:], ident) if len(path) > 1 else leaf
    value = _struct_member(base, ident(path[0]) or path[0].name, ident) if path else None
    if value is not None:  # ``(SELECT AS STRUCT x AS f).f``, ``STRUCT(x AS f).f``: the member's value
        return struct_field(value, path[1:], ident) if len(path) > 1 else clone(value)
    ref = base.meta.get(REF) if isinstance(base, _COLUMN) and base._meta else None
    if ref is not None:
        names = [ident(p) or p.name for p in path]
        path_name = ".".join([ref.column, *names])
        leaf = _COLUMN(this=_IDENTIFIER(this=path_name, quoted=False), table=_exp_to_identifier(ref.table.name))
        leaf.meta[REF] = ColumnRef(ref.table, path_name)
        return leaf
    node = clone(base)
    for part in path:
        quoted = part.args.get("quoted") if isinstance(part, _IDENTIFIER) else False
        node = _DOT(this=node, expression=_IDENTIFIER(this=part.name, quoted=quoted))
    return node


def _struct_member(base: exp.Expression, name: str, ident: Callable[[Any], str | None]) -> exp.Expression | None:
    """The value of member ``name`` of a struct written out: BigQuery ``(SELECT AS STRUCT x AS f, …)``
    (its resolved form, without FROM) or ``STRUCT(x AS f, …)``; a member it does not name, of
    ``(SELECT AS STRUCT …, s.*)`` (a struct's fields the SQL does not list), is ``s``'s field; None for
    any other expression."""
    node = base.this if isinstance(base, exp.Subquery) else base
    written = isinstance(node, exp.Select) and node.args.get("kind") == "STRUCT" and not node.args.get("from_")
    if not written and not isinstance(node, exp.Struct):
        return None
    rest = None
    for m in node.expressions:
        if isinstance(m, exp.Alias) and ident(m.args.get("alias")) == name:
            return m.this
        if isinstance(m, exp.PropertyEQ) and isinstance(m.this, _IDENTIFIER) and ident(m.this) == name:
            return m.expression
        if written and type(m) is _DOT and type(m.expression) is exp.Star:
            rest = m.this
    return struct_field(rest, [_IDENTIFIER(this=name, quoted=True)], ident) if rest is not None else None
