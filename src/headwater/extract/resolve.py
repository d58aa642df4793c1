"""Passes 2 and 3: bind names scope by scope and resolve every output to base-table columns.

One ``Resolver`` serves one statement. ``relation(query)`` returns the query's ``Relation``;
along the way it records every base table scanned, every dataset-level indirect expression
(JOIN, FILTER, GROUP_BY, SORT of every scope) and every diagnostic. Each query node is resolved
once (a CTE used five times is resolved once); referencing a CTE column substitutes a copy of
its resolved expression.

>>> from headwater.catalog import LayeredCatalog, Names
>>> import sqlglot
>>> r = Resolver(LayeredCatalog(), Names.for_dialect("doris"), "internal", "db", statement_index=0)
>>> q = sqlglot.parse_one("SELECT UPPER(o.region) AS r FROM orders o WHERE o.s = 'x'", read="doris")
>>> r.relation(q).columns[0][0].sql()
'UPPER(orders.region)'
>>> [(t, e.sql()) for t, e in r.indirect]
[(<IndirectType.FILTER: 'FILTER'>, "orders.s = 'x'")]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Final, cast

from sqlglot import exp

from headwater.extract.aliases import GROUPED, NONE, flags
from headwater.extract.columns import settled
from headwater.extract.scope import Alts, Relation, Scope, Source, find_all
from headwater.extract.sources import SourceBinder
from headwater.extract.trees import (
    QUERY_TYPES,
    clone,
    conjuncts,
    flat_columns,
    grouping_keys,
    reads_table,
    scope_nodes,
    sql_text,
    substitute,
)
from headwater.extract.unnest import element_of, pushed_field, written_fields
from headwater.extract.windows import inline_windows
from headwater.model import IndirectType, Severity

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_AGG_FUNC: Final = exp.AggFunc
_ALIAS: Final = exp.Alias
_AND: Final = exp.And
_CAST: Final = exp.Cast
_COLUMN: Final = exp.Column
_CUBE: Final = exp.Cube
_DOT: Final = exp.Dot
_EXISTS: Final = exp.Exists
_FROM: Final = exp.From
_GROUPING_SETS: Final = exp.GroupingSets
_IDENTIFIER: Final = exp.Identifier
_JOIN: Final = exp.Join
_LITERAL: Final = exp.Literal
_ORDERED: Final = exp.Ordered
_ROLLUP: Final = exp.Rollup
_SELECT: Final = exp.Select
_SET_OPERATION: Final = exp.SetOperation
_STAR: Final = exp.Star
_SUBQUERY: Final = exp.Subquery
_TUPLE: Final = exp.Tuple
_VALUES: Final = exp.Values
_WHERE: Final = exp.Where
_exp_to_table: Final = exp.to_table

# a class tuple typed ``tuple[type, ...]``: one object (an ``A | B`` union is made at every test)
_PREDICATES: Final[tuple[type, ...]] = (exp.In, exp.Exists, exp.Any, exp.All)  # what a predicate subquery is under

MAX_ALTERNATIVES: Final = 64
_COLUMN_OR_QUERY: Final[tuple[type, ...]] = (exp.Column, *QUERY_TYPES)  # one tuple object (see ``QUERY_TYPES``)


class Resolver(SourceBinder):
    """Resolves the queries of one statement (see the module docstring)."""

    # ------------------------------------------------------------------ queries

    def relation(
        self, query: exp.Expression, parent: Scope | None = None, ctes: dict[str, Source] | None = None
    ) -> Relation:
        """The resolved outputs of ``query`` (memoised per node)."""
        key = id(query)
        rel = self._memo.get(key)
        if rel is None:
            if self.top_query is None:
                self.top_query = query
            self._spend(1)
            rel = self._relation(query, parent, dict(ctes or {}))
            self._memo[key] = rel
        else:
            self._memo_hits[id(rel)] = self._memo_hits.get(id(rel), 0) + 1
        return rel

    def _relation(self, query: exp.Expression, parent: Scope | None, ctes: dict[str, Source]) -> Relation:
        if isinstance(query, _SUBQUERY):
            return self.relation(query.this, parent, self.ctes_of(query, ctes, parent))
        if isinstance(query, _SELECT):
            return self._select(query, parent, ctes)
        if isinstance(query, _SET_OPERATION):
            return self._set_operation(query, parent, ctes)
        if isinstance(query, _VALUES):
            return self._values(query)
        self.diag(
            "unsupported_construct", f"cannot resolve a {query.key.upper()} as a query", query, construct=query.key
        )
        return Relation([], [], [], complete=False)

    def ctes_of(self, node: exp.Expression, ctes: dict[str, Source], parent: Scope | None) -> dict[str, Source]:
        """The CTEs visible inside ``node``: ``ctes`` plus those of its own WITH (each sees the earlier ones)."""
        with_ = node.args.get("with_")
        if not with_:
            return ctes
        ctes = dict(ctes)
        recursive = bool(with_.args.get("recursive"))
        for cte in with_.expressions:
            name = self.table_ident(cte.args["alias"].this) or ""
            body = cte.this
            visible = dict(ctes)
            alias = cte.args.get("alias")
            if recursive and isinstance(body, _SET_OPERATION) and reads_table(body.expression, name or ""):
                self.diag(
                    "recursive_cte",
                    f"recursive CTE {name}: its recursive member is resolved once, with the reference to "
                    f"{name} standing for the anchor's rows",
                    cte,
                    Severity.INFO,
                    construct="WITH RECURSIVE",
                )
                anchor = body.this

                def anchor_load(
                    anchor: exp.Expression = anchor,
                    visible: dict[str, Source] = visible,
                    alias: exp.TableAlias | None = alias,
                ) -> Relation:
                    return self._aliased(self.relation(anchor, None, visible), alias)

                visible[name] = Source(alias=name, load=anchor_load)

            def load(
                body: exp.Expression = body, visible: dict[str, Source] = visible, alias: exp.TableAlias | None = alias
            ) -> Relation:
                return self._aliased(self.relation(body, None, visible), alias)

            ctes[name] = Source(alias=name, load=load)
        return ctes

    def _aliased(self, rel: Relation, alias: exp.TableAlias | None) -> Relation:
        """Apply a column alias list ``t(a, b)`` to a relation."""
        cols = alias.args.get("columns") if alias is not None else None
        if not cols:
            return rel
        names = [self.column_ident(c) or "" for c in cols]
        labels = [c.name for c in cols]
        n = len(names)
        if n > len(rel.columns):  # more names than known columns: the extra names name nothing known
            if rel.complete:  # ``(SELECT 1 AS a) AS t(a, b)``: the database rejects it
                who = (alias.name if alias is not None else "") or "a derived table"
                self.diag(
                    "column_count_mismatch",
                    f"{who} has {len(rel.columns)} columns but its alias lists {n}",
                    alias,
                    Severity.ERROR,
                )
            n = len(rel.columns)
            names, labels = names[:n], labels[:n]
        return Relation(
            names + rel.names[n:], labels + rel.labels[n:], rel.columns, rel.complete, rel.tables, rel.correlated
        )

    def _values(self, values: exp.Values) -> Relation:
        rows = values.expressions
        width = len(rows[0].expressions) if rows and isinstance(rows[0], _TUPLE) else 1
        columns: list[Alts] = [[] for _ in range(width)]
        for row in rows:
            items = row.expressions if isinstance(row, _TUPLE) else [row]
            for i, item in enumerate(items[:width]):
                if any(isinstance(n, QUERY_TYPES) for n in item.walk()):  # a subquery: resolve it
                    columns[i].extend(self.resolve(item, Scope(None, {})))
                else:
                    columns[i].append(item.copy())
        names = [f"col{i + 1}" for i in range(width)]
        return self._aliased(Relation(names, list(names), columns), values.args.get("alias"))

    def _set_operation(self, node: exp.SetOperation, parent: Scope | None, ctes: dict[str, Source]) -> Relation:
        ctes = self.ctes_of(node, ctes, parent)
        left = self.relation(node.this, parent, ctes)
        right = self.relation(node.expression, parent, ctes)
        if left.complete and right.complete and len(left.columns) != len(right.columns):
            self.diag(
                "set_operation_width",
                f"{node.key.upper()} branches have {len(left.columns)} and {len(right.columns)} columns",
                node,
                Severity.ERROR,
            )
        width = min(len(left.columns), len(right.columns)) if right.complete else len(left.columns)
        # A left branch that is itself a set operation made its lists for this one alone: they are
        # extended in place, so a chain of n branches costs n, not n² (a memoised relation someone
        # else asked for again, such as a recursive CTE's anchor, is copied first).
        own = isinstance(node.this, _SET_OPERATION) and self._memo_hits.get(id(left), 0) == 0
        columns = left.columns[:width] if own else [list(left.columns[i]) for i in range(width)]
        for i in range(min(width, len(right.columns))):
            columns[i].extend(right.columns[i])
        tables = left.tables if own else list(left.tables)
        tables.extend(right.tables)
        rel = Relation(left.names[:width], left.labels[:width], columns, left.complete and right.complete, tables)
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                key = ordered.this
                idx = self._output_ref(key, rel.names)
                if idx is not None:
                    self._record(IndirectType.SORT, rel.columns[idx])
                else:
                    self.diag("unknown_column", f"ORDER BY {key.sql()} names no output column", key, Severity.ERROR)
        return rel

    def _output_ref(self, key: exp.Expression, names: list[str]) -> int | None:
        if isinstance(key, _LITERAL) and not key.is_string and key.this.isdigit():
            idx = int(key.this) - 1
            return idx if 0 <= idx < len(names) else None
        if isinstance(key, _COLUMN) and not key.table:
            name = self.column_ident(key.this)
            return names.index(name) if name in names else None
        return None

    # ------------------------------------------------------------------ SELECT

    def _select(self, sel: exp.Select, parent: Scope | None, ctes: dict[str, Source]) -> Relation:
        if sel.args.get("windows"):  # ``WINDOW w AS (…)``: its windows written out where they are used
            sel = inline_windows(sel)
        ctes = self.ctes_of(sel, ctes, parent)
        scope = Scope(parent, ctes)
        from_ = sel.args.get("from_")
        if from_ is not None:
            self._add_source(from_.this, scope)
        for join in sel.args.get("joins") or []:
            self._add_join(join, scope)
            scope.joins.append(join)
        joins = scope.joins
        for lateral in sel.args.get("laterals") or []:
            self._add_source(lateral, scope)
        if sel.args.get("pivots"):
            self.diag(
                "unsupported_construct", "PIVOT / UNPIVOT: lineage through it is not resolved", sel, construct="PIVOT"
            )

        every = scope.sources
        if scope.on_sources:  # a SEMI / ANTI join's hidden side is read too (the first join saw every source)
            every = {**next(iter(scope.on_sources.values())), **every}
        for src in every.values():
            _ = src.relation  # every relation in FROM is scanned, even when no column of it is read
        names, labels, items, complete, open_sources = self._expand(sel, scope)
        columns = self._select_list(names, items, scope)
        rel = Relation(names, labels, columns, complete, [s.table for s in every.values() if s.table])
        if len(open_sources) == 1:
            rel.open = open_sources[0]
        for name, alts in zip(names, columns, strict=True):
            scope.aliases.setdefault(name, alts)

        rules = self.alias_rules  # where the select list's aliases are visible (``aliases.py``)
        visible = scope.sources
        for join in joins:
            on = join.args.get("on")
            seen = scope.on_sources.get(id(join)) if scope.on_sources else None
            if seen is not None:  # a join before a SEMI / ANTI join's: the sources it saw
                scope.sources = seen
                scope.bound.clear()
            for part in conjuncts(on):
                self._record(IndirectType.JOIN, self.resolve(part, scope, *flags(rules.join, False)))
            if seen is not None:
                scope.sources = visible
                scope.bound.clear()
        for part in conjuncts(sel.args["where"].this if sel.args.get("where") else None):
            scope.outer_hit = False
            alts = self.resolve(part, scope, *flags(rules.where, False))
            self._record(IndirectType.FILTER, alts)
            if scope.outer_hit:
                rel.correlated.extend(alts)
        group = sel.args.get("group")
        if group is not None:
            self._group(group, scope, items)
        for key in ("having", "qualify"):
            clause = sel.args.get(key)
            if clause is not None:
                rule = rules.having if key == "having" else rules.qualify
                if rule == GROUPED and group is not None:  # a name HAVING groups by is the column
                    scope.grouped = frozenset(
                        self.column_ident(k.this) or ""
                        for k in group.expressions
                        if isinstance(k, _COLUMN) and not k.table
                    )
                for part in conjuncts(clause.this):
                    self._record(IndirectType.FILTER, self.resolve(part, scope, *flags(rule, False)))
                scope.grouped = frozenset()
        for key in ("order", "sort", "cluster"):  # ORDER BY; Hive SORT BY and CLUSTER BY
            clause = sel.args.get(key)
            for ordered in clause.expressions if clause is not None else []:
                node = ordered.this if isinstance(ordered, _ORDERED) else ordered
                self._record(IndirectType.SORT, self._key(node, scope, items, rules.order))
        return rel

    def _select_list(self, names: list[str], items: list[exp.Expression], scope: Scope) -> list[Alts]:
        """Resolve the select list. Where the dialect allows it, an item may use an earlier item's
        alias (``SELECT a AS x, x || b AS y``); elsewhere such a use is reported, when no source of the
        scope may have a column of that name (the name is then that column, as the database reads it)."""
        if self.alias_rules.select == NONE:
            columns = [self.resolve(item, scope) for item in items]
            if not self.unbound:  # no column of the statement is unresolved: no marker to look for
                return columns
            for i in range(1, len(items)):  # the item's own columns (not its subqueries') naming an earlier alias
                earlier = set(names[:i])
                for col in scope_nodes(items[i]):
                    if type(col) is not _COLUMN or col.args.get("table") or isinstance(col.this, _STAR):
                        continue
                    name = self.column_ident(col.this) or ""
                    if name in earlier and not self._in_some_scope(scope, name):
                        self.diag(
                            "lateral_alias_unsupported",
                            f"{col.name} is an alias of an earlier select item: {self.names.dialect} does "
                            "not allow a select-list alias in the same select list (give the expression)",
                            col,
                            Severity.ERROR,
                        )
            return columns
        columns = []
        for name, item in zip(names, items, strict=True):
            alts = self.resolve(item, scope)
            columns.append(alts)
            if name:
                scope.lateral.setdefault(name, alts)
        scope.lateral = {}
        return columns

    def _in_some_scope(self, scope: Scope, name: str) -> bool:
        """Whether a source of ``scope`` or of an outer scope has, or may have, a column ``name``."""
        s: Scope | None = scope
        while s is not None:
            if self._may_have_column(s, name):
                return True
            s = s.parent
        return False

    def _group(self, group: exp.Group, scope: Scope, items: list[exp.Expression]) -> None:
        keys: list[exp.Expression] = []
        nodes = list(group.expressions)
        all_items: list[exp.Expression] = []
        if group.args.get("all"):  # GROUP BY ALL: every select item without an aggregate
            all_items = [i for i in items if not any(isinstance(n, _AGG_FUNC) for n in i.walk())]
            nodes.extend(all_items)
        for arg in ("grouping_sets", "cube", "rollup"):
            nodes.extend(group.args.get(arg) or [])
        for node in nodes:
            if isinstance(node, _GROUPING_SETS | _CUBE | _ROLLUP):
                construct = {_GROUPING_SETS: "GROUPING SETS", _CUBE: "CUBE", _ROLLUP: "ROLLUP"}[type(node)]
                self.diag(
                    "grouping_sets",
                    f"{construct}: every grouping column is recorded as GROUP_BY",
                    node,
                    Severity.INFO,
                    construct=construct,
                )
                keys.extend(grouping_keys(node))
            else:
                keys.append(node)
        for key in keys:
            # a select item GROUP BY ALL adds is read as in the select list: no alias
            rule = NONE if any(key is i for i in all_items) else self.alias_rules.group
            self._record(IndirectType.GROUP_BY, self._key(key, scope, items, rule))

    def _key(self, key: exp.Expression, scope: Scope, items: list[exp.Expression], rule: int) -> Alts:
        """A GROUP BY / ORDER BY key: an ordinal, an output alias (where ``rule`` lets it be one,
        ``aliases.py``) or an expression."""
        if isinstance(key, _LITERAL) and not key.is_string and key.this.isdigit():
            idx = int(key.this) - 1
            if 0 <= idx < len(items):
                return self.resolve(items[idx], scope)  # fresh copies
            self.diag("unknown_column", f"position {key.this} is not in the select list", key, Severity.ERROR)
            return []
        return self.resolve(key, scope, *flags(rule, isinstance(key, _COLUMN)))

    # ------------------------------------------------------------------ FROM

    def _expand(
        self, sel: exp.Select, scope: Scope
    ) -> tuple[list[str], list[str], list[exp.Expression], bool, list[Source]]:
        """Names, labels and expressions of the select list, whether all are known, and the
        sources of unknown columns that a ``*`` passed through."""
        names: list[str] = []
        labels: list[str] = []
        items: list[exp.Expression] = []
        complete = True
        open_sources: dict[int, Source] = {}
        for item in sel.expressions:
            if isinstance(item, _STAR) or (isinstance(item, _COLUMN) and isinstance(item.this, _STAR)):
                qualifier = self.table_ident(item.args.get("table")) if isinstance(item, _COLUMN) else None
                star = item if isinstance(item, _STAR) else item.this
                excluded = {
                    self.column_ident(c.this if isinstance(c, _COLUMN) else c) for c in star.args.get("except_") or []
                }
                replaced = {  # BigQuery ``* REPLACE (expr AS col)``
                    self.column_ident(r.args["alias"]) or "": r.this
                    for r in star.args.get("replace") or []
                    if isinstance(r, _ALIAS)
                }
                start = len(names)
                unknown = self._expand_star(scope, qualifier, excluded, item, names, labels, items, replaced)
                complete = complete and not unknown
                open_sources.update((id(src), src) for src in unknown)
                if unknown:  # ``* REPLACE (x AS c)`` over unknown columns: the REPLACE names ``c``
                    self._replaced(star, names, labels, items, start)
                continue
            if isinstance(item, _DOT) and isinstance(item.expression, _STAR):  # ``IF(…).*``
                fields = written_fields(item.this)
                if fields is None:
                    fields = self._row_fields(item.this, scope)
                if fields is not None:  # its members are written out: each is an output
                    self._struct_members(item, fields, scope, names, labels, items)
                    continue
                self.diag(
                    "star_unknown_columns",
                    f"{item.sql(dialect=self.names.dialect or None)[:60]}: the fields of a struct expression "
                    "are unknown",
                    item,
                )
                complete = False
                src = self._struct_source(item.this, scope)
                open_sources[id(src)] = src
                self._replaced(item.expression, names, labels, items, len(names))
                continue
            if isinstance(item, exp.Aliases):  # Spark ``EXPLODE(m) AS (k, v)``: each name is the function's
                for ident in item.expressions:
                    names.append(self.column_ident(ident) or "")
                    labels.append(ident.name)
                    items.append(item.this)
                continue
            inner = item.this if isinstance(item, _ALIAS) else item
            if isinstance(item, _ALIAS):
                label = item.alias
                name = self.column_ident(item.args["alias"])
            elif isinstance(item, _COLUMN):
                label = item.name
                name = self.column_ident(item.this)
            elif (named := _cast_column(item, self.names.dialect)) is not None:
                label = named.name
                name = self.column_ident(named.this)
            else:
                label = sql_text(item, self.names.dialect)
                name = self.column_ident(label)
            names.append(name or "")
            labels.append(label)
            items.append(inner)
        return names, labels, items, complete, list(open_sources.values())

    def _expand_star(
        self,
        scope: Scope,
        qualifier: str | None,
        excluded: set[str | None],
        node: exp.Expression,
        names: list[str],
        labels: list[str],
        items: list[exp.Expression],
        replaced: dict[str, exp.Expression] | None = None,
    ) -> list[Source]:
        """Expand ``*`` / ``q.*`` into ``names``, ``labels`` and ``items``; return the sources whose
        columns are unknown (they could not be expanded). ``replaced``: columns whose value a
        ``REPLACE (expr AS col)`` gives."""
        replaced = replaced or {}
        if qualifier is not None:
            src = self._find_source(scope, qualifier)
            if src is None and self._may_be_column(scope, node):
                self.diag(  # ``s.*`` over a struct column s
                    "star_unknown_columns", f"{qualifier}.*: the fields of struct {qualifier} are unknown", node
                )
                parts = [p.copy() for p in node.parts[:-1]] if isinstance(node, _COLUMN) else []
                struct = _COLUMN(**dict(zip(("this", "table", "db", "catalog"), reversed(parts), strict=False)))
                return [self._struct_source(struct, scope)]
            if src is None:
                self.diag("unknown_qualifier", f"{qualifier}.* names no table in scope", node, Severity.ERROR)
                return [Source(alias=qualifier, opaque="unknown qualifier")]
            sources = [(src.alias, src)]
        else:
            sources = list(scope.sources.items())  # keyed as in the scope (one name may be there twice)
        unknown: list[Source] = []
        seen_using: set[str] = set()
        for key, src in sources:
            cols = src.known_columns()
            if cols is None:
                what = src.table.qualified if src.table else (src.opaque or src.alias)
                self.diag(
                    "star_unknown_columns",
                    f"* over {what}, whose columns are unknown: give its schema (--schema or --catalog-url)",
                    node,
                )
                unknown.append(src)
                if qualifier is None and scope.using:  # its USING columns are outputs all the same
                    cols = [c for c, owner in scope.using.items() if owner is src and c not in seen_using]
                    if not cols:
                        continue
                else:
                    continue
            for col in cols:
                if col in excluded:
                    continue
                if qualifier is None and col in scope.using:
                    if col in seen_using:
                        continue
                    seen_using.add(col)
                names.append(col)
                labels.append(col)
                # names are normalised already: quote them so they are not folded a second time;
                # a FULL / RIGHT JOIN's USING column is unqualified: it comes from both sides
                if col in replaced:
                    items.append(replaced[col])
                    continue
                # (``exp.to_identifier(name, quoted=True)`` of a text is this identifier); a USING column is
                # its left side's, whichever side lists it (the left one's columns may be unknown)
                owner = key
                if qualifier is None and col in scope.using and scope.using[col] is not src:
                    owner = next((k for k, s in scope.sources.items() if s is scope.using[col]), key)
                table = None if qualifier is None and col in scope.merged else _IDENTIFIER(this=owner, quoted=True)
                items.append(_COLUMN(this=_IDENTIFIER(this=col, quoted=True), table=table))
        return unknown

    def _may_be_column(self, scope: Scope, node: exp.Expression) -> bool:
        """Whether the path before ``.*`` in ``node`` (``s.*``, ``t.s.*``, ``payload.fields.*``) may be a
        struct column of this scope or an outer one (a correlated ``SELECT AS STRUCT s.* …``)."""
        parts = cast(list[exp.Expression], node.parts[:-1]) if isinstance(node, _COLUMN) else []
        first = parts[0] if parts else None
        s: Scope | None = scope
        while s is not None and first is not None:
            name = self.column_ident(first) or ""
            alias = self.table_ident(first) or ""
            for src in s.sources.values():
                if (src.alias == alias and len(parts) > 1) or (settled(src) and src.has(name) is not False):
                    return True
            s = s.parent
        return False

    def _struct_members(
        self,
        item: exp.Dot,
        fields: list[exp.Expression],
        scope: Scope,
        names: list[str],
        labels: list[str],
        items: list[exp.Expression],
    ) -> None:
        """``IF(c, STRUCT(a AS x, …), …).* [EXCEPT …] [REPLACE …]``: each member of the written-out
        struct, its value the field of the expression (``IF(c, a, …)``)."""
        star = item.expression
        excluded = {self.column_ident(c.this if isinstance(c, _COLUMN) else c) for c in star.args.get("except_") or []}
        replaced = {
            self.column_ident(r.args["alias"]) or "": r.this
            for r in star.args.get("replace") or []
            if isinstance(r, _ALIAS)
        }
        ranges: set[str] = set()
        outer: Scope | None = scope
        while outer is not None:
            ranges.update(s.alias for s in outer.sources.values())
            outer = outer.parent
        for ident in fields:
            name = self.column_ident(ident) or ""
            if name in excluded:
                continue
            names.append(name)
            labels.append(ident.name)
            items.append(replaced[name] if name in replaced else pushed_field(item.this, name, ranges, self))

    def _replaced(
        self, star: exp.Expression, names: list[str], labels: list[str], items: list[exp.Expression], start: int
    ) -> None:
        """The ``REPLACE (expr AS c)`` columns of a ``*`` whose columns are unknown: ``c`` is an output,
        the expression its value (the star's other columns stay unknown)."""
        for r in star.args.get("replace") or []:
            name = self.column_ident(r.args.get("alias")) if isinstance(r, _ALIAS) else None
            if name and name not in names[start:]:
                names.append(name)
                labels.append(r.alias)
                items.append(r.this)

    def _row_fields(self, struct: exp.Expression | None, scope: Scope) -> list[exp.Expression] | None:
        """The fields of ``IF(c, cur, prev)`` / ``COALESCE(cur, prev)`` whose branch is a table's alias used
        as a value (its row: no table of the scope has a column of that name) over known columns: those
        columns (BigQuery types both branches alike), as identifiers; None when no branch tells."""
        if isinstance(struct, exp.Paren):
            return self._row_fields(struct.this, scope)
        if isinstance(struct, exp.If):
            return self._row_fields(struct.args.get("true"), scope) or self._row_fields(struct.args.get("false"), scope)
        if isinstance(struct, exp.Coalesce):
            for e in [struct.this, *struct.expressions]:
                found = self._row_fields(e, scope)
                if found:
                    return found
            return None
        if not (isinstance(struct, _COLUMN) and not struct.args.get("table") and isinstance(struct.this, _IDENTIFIER)):
            return None
        alias = self.table_ident(struct.this) or ""
        name = self.column_ident(struct.this) or ""
        s: Scope | None = scope
        while s is not None:
            src = next((x for x in s.sources.values() if x.alias == alias), None)
            if src is not None:
                if any(other.has(name) is not False for other in s.sources.values()):
                    return None  # a column of that name may exist: not certainly the row
                cols = src.known_columns()
                return [_IDENTIFIER(this=c, quoted=True) for c in cols] if cols else None
            s = s.parent
        return None

    def _struct_source(self, struct: exp.Expression, scope: Scope) -> Source:
        """The rows of ``struct.*`` whose fields are unknown: a name read from them is that field
        (``unnest.pushed_field``), resolved in ``scope`` when it is read."""
        ranges: set[str] = set()
        outer: Scope | None = scope
        while outer is not None:  # the aliases of this scope and the outer ones (a correlated row)
            ranges.update(s.alias for s in outer.sources.values())
            outer = outer.parent

        def field(name: str, struct: exp.Expression = struct, scope: Scope = scope) -> Alts:
            return self.resolve(pushed_field(struct, name, ranges, self), scope)

        def whole(struct: exp.Expression = struct, scope: Scope = scope) -> Alts:
            return self.resolve(struct, scope)

        rel = Relation([], [], [], complete=False, fields=field, whole=whole)
        return Source(alias=f"__struct{len(scope.sources)}", load=lambda: rel)

    # ------------------------------------------------------------------ expressions

    def _last_origin(self) -> int | None:
        """The relation ``_column`` last bound a column from (read through a call: the compiled
        build would otherwise trust the ``None`` assigned before ``_column`` ran)."""
        return self._origin

    def resolve(
        self, expr: exp.Expression, scope: Scope, alias_first: bool = False, alias_fallback: bool = False
    ) -> Alts:
        """Copies of ``expr`` with every column replaced by its resolved expression.

        Several copies when a column comes from a set operation with several branches.
        """
        if isinstance(expr, _COLUMN) and not isinstance(expr.this, _STAR):
            return self._column(expr, scope, alias_first, alias_fallback)
        subs: list[tuple[int, Alts, int | None]] = []  # (node id, alternatives, relation they come from)
        flat = flat_columns(expr)  # one level of columns and literals (``a = b``, ``SUM(x)``): no walk
        nodes: Iterable[exp.Expression]
        if flat is not None:
            self._spend(len(flat) + 1)
            nodes = flat
        else:
            found = find_all(expr, _COLUMN_OR_QUERY)
            self._spend(len(found) + 1)
            nested = False
            for node in found:
                if not isinstance(node, _COLUMN):
                    nested = True
                    break
            nodes = scope_nodes(expr) if nested else found
        several = False  # some column has several alternatives (set-operation branches)
        for node in nodes:
            if isinstance(node, _COLUMN):
                if isinstance(node.this, _STAR):
                    continue
                self._origin = None
                alts = self._column(node, scope, alias_first, alias_fallback)
                subs.append((id(node), alts, self._last_origin()))
            elif isinstance(node, QUERY_TYPES):
                alts = self._subquery(node, scope)  # type: ignore[arg-type]  # a query node is an Expression
                subs.append((id(node), alts, None))
            else:
                continue
            if len(alts) > 1:
                several = True
        if not subs:
            return [substitute(expr, {})]
        if not several:  # one combination: each column's one alternative (a column with none keeps its node)
            mapping = {key: alts[0] for key, alts, _ in subs if alts}
            self._spend(len(mapping))
            return [substitute(expr, mapping)]
        out: Alts = []
        for assignment in _combinations(subs):
            if len(out) == MAX_ALTERNATIVES:
                self.diag(
                    "alternatives_capped",
                    f"{expr.sql()[:80]}: more than {MAX_ALTERNATIVES} combinations of set-operation branches; "
                    f"the first {MAX_ALTERNATIVES} are kept",
                    expr,
                )
                break
            fresh = not out  # later combinations share replacements with the first: copy them
            self._spend(len(assignment))
            mapping = {key: alt if fresh else self._reuse(alt) for key, alt in assignment}
            out.append(substitute(expr, mapping))
        return out

    def _subquery(self, node: exp.Expression, scope: Scope) -> Alts:
        query = node.this if isinstance(node, _SUBQUERY) else node
        rel = self.relation(query, scope, scope.ctes)
        parent = node.parent
        scalar = not isinstance(parent, _PREDICATES)
        struct = isinstance(query, _SELECT) and query.args.get("kind") == "STRUCT"  # BigQuery SELECT AS STRUCT
        if scalar and len(rel.columns) == 1 and not struct:
            return [self._take(alt) for alt in rel.columns[0]]
        # a predicate subquery: render what it compares, over its base tables. EXISTS compares no
        # output (its select list is irrelevant), only its correlation predicates.
        if isinstance(parent, _EXISTS):
            outputs: list[exp.Expression] = [_STAR()]
        elif struct:  # its fields by name (``unnest`` reads them from ``ARRAY(SELECT AS STRUCT …)``)
            outputs = [_ALIAS(this=self._take(alts[0]), alias=_IDENTIFIER(this=n, quoted=True))
                       for n, alts in zip(rel.names, rel.columns, strict=True) if alts and n]  # fmt: skip
            opened = rel.open.relation if rel.open is not None and rel.open.load is not None else None
            if opened is not None and opened.whole is not None:  # ``s.* REPLACE (…)``: s's other fields
                outputs.extend(_DOT(this=self._take(alt), expression=_STAR()) for alt in opened.whole()[:1])
        else:
            outputs = [self._take(alts[0]) for alts in rel.columns if alts]
        if not outputs:
            outputs = element_of(rel) or [_STAR()]
        select = _SELECT(expressions=outputs)
        if struct and not isinstance(parent, _EXISTS):
            select.set("kind", "STRUCT")
        if rel.tables:
            select.set("from_", _FROM(this=_table_node(rel.tables[0].name)))
            for t in rel.tables[1:]:
                select.append("joins", _JOIN(this=_table_node(t.name)))
        if rel.correlated:
            cond = self._take(rel.correlated[0])
            for c in rel.correlated[1:]:
                cond = _AND(this=cond, expression=self._take(c))
            select.set("where", _WHERE(this=cond))
        return [select if isinstance(node, _SELECT) else _SUBQUERY(this=select)]


_TABLE_NODES: Final[dict[str, exp.Table]] = {}


def _table_node(name: str) -> exp.Table:
    """``exp.to_table(name)`` (which parses the name), parsed once per name and copied after (a cheap
    copy, ``clone``: the node's text is the same without the token positions)."""
    node = _TABLE_NODES.get(name)
    if node is None:
        if len(_TABLE_NODES) >= 4096:
            _TABLE_NODES.clear()
        node = _TABLE_NODES[name] = _exp_to_table(name)
    return clone(node)  # type: ignore[return-value]  # a copy of a Table is a Table


# Dialects that name an unaliased ``CAST(col AS …)`` / ``col::type`` output after the column:
# PostgreSQL (and Redshift, from it) names a cast by its argument; Spark names a cast of a
# column by the column. The others name it by its text (MySQL, DuckDB, Snowflake) or by position
# (Hive ``_c0``, Trino ``_col0``), which the expression's text stands for here.
CAST_NAMED_BY_COLUMN: Final = frozenset(
    {"postgres", "redshift", "materialize", "risingwave", "spark", "spark2", "databricks"}
)


def _cast_column(item: exp.Expression, dialect: str) -> exp.Column | None:
    """The column an unaliased cast output is named after in ``dialect``, if it is.

    >>> import sqlglot
    >>> _cast_column(sqlglot.parse_one("x::int::text", read="postgres"), "postgres").sql()
    'x'
    >>> _cast_column(sqlglot.parse_one("CAST(x AS INT)"), "mysql") is None
    True
    """
    if dialect not in CAST_NAMED_BY_COLUMN:
        return None
    while isinstance(item, _CAST):
        item = item.this
    return item if isinstance(item, _COLUMN) and not isinstance(item.this, _STAR) else None


def _combinations(subs: list[tuple[int, Alts, int | None]]) -> Iterator[list[tuple[int, exp.Expression]]]:
    """The ways to fill an expression's columns when some have several alternatives.

    Columns of one set-operation relation go together branch by branch (``a + b`` over a UNION is
    ``a1 + b1`` and ``a2 + b2``, never ``a1 + b2``); columns of different relations combine freely.
    A column with no alternative keeps its original node.
    """
    dims: list[list[list[tuple[int, exp.Expression]]]] = []
    grouped: dict[int, list[tuple[int, Alts]]] = {}
    for key, alts, origin in subs:
        if not alts:
            continue
        if origin is not None and len(alts) > 1:
            grouped.setdefault(origin, []).append((key, alts))
        else:
            dims.append([[(key, alt)] for alt in alts])
    for members in grouped.values():
        width = len(members[0][1])
        if all(len(alts) == width for _, alts in members):
            dims.append([[(key, alts[b]) for key, alts in members] for b in range(width)])
        else:  # not aligned (should not happen): combine freely rather than drop facts
            dims.extend([[(key, alt)] for alt in alts] for key, alts in members)
    for combo in itertools.product(*dims):
        yield [pair for part in combo for pair in part]
