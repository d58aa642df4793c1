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
from collections.abc import Iterator

from sqlglot import exp

from headwater.catalog import Catalog, LayeredCatalog, Names, TableSchema
from headwater.extract.scope import REF, UNRESOLVED, Alts, Relation, Scope, Source, column_node
from headwater.model import Diagnostic, IndirectType, Severity, TableRef

MAX_ALTERNATIVES = 64

_QUERY_TYPES = (exp.Query, exp.Subquery, exp.Values)


def conjuncts(node: exp.Expression | None) -> Iterator[exp.Expression]:
    """The AND-ed parts of a predicate (parentheses unwrapped)."""
    if node is None:
        return
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        yield from conjuncts(node.this)
        yield from conjuncts(node.expression)
    else:
        yield node


class Resolver:
    def __init__(
        self,
        catalog: Catalog | LayeredCatalog,
        names: Names,
        catalog_name: str,
        database: str | None,
        statement_index: int,
        report_unknown_tables: bool = False,
        temp_views: dict[str, TableSchema] | None = None,
    ) -> None:
        self.catalog = catalog
        self.names = names
        self.catalog_name = catalog_name
        self.database = database
        self.statement_index = statement_index
        self.report_unknown_tables = report_unknown_tables
        self.temp_views = temp_views or {}
        self.tables: dict[TableRef, None] = {}
        self.via: dict[TableRef, None] = {}
        self.indirect: list[tuple[IndirectType, exp.Expression]] = []
        self.diagnostics: list[Diagnostic] = []
        self.incomplete = False
        self._memo: dict[int, Relation] = {}
        self._taken: set[int] = set()
        # One node per base column, shared by every tree that reads it: column SQL does not
        # depend on the parent, and nothing mutates resolved trees.
        self._columns: dict[tuple[TableRef, str], exp.Column] = {}

    # ------------------------------------------------------------------ diagnostics

    def diag(
        self,
        code: str,
        message: str,
        node: exp.Expression | None,
        severity: Severity = Severity.WARNING,
        construct: str | None = None,
    ) -> None:
        line = col = None
        if node is not None:
            ident = node if isinstance(node, exp.Identifier) else node.find(exp.Identifier)
            meta = ident._meta if ident is not None else None
            if meta:
                line, col = meta.get("line"), meta.get("col")
                if line is not None and col is not None:
                    col = max(1, col - len(ident.this) + 1)  # sqlglot records the token's end
        d = Diagnostic(code, severity, message, self.statement_index, line, col, construct)
        if d not in self.diagnostics:
            self.diagnostics.append(d)
        if severity != Severity.INFO:
            self.incomplete = True

    # ------------------------------------------------------------------ queries

    def relation(
        self, query: exp.Expression, parent: Scope | None = None, ctes: dict[str, Source] | None = None
    ) -> Relation:
        """The resolved outputs of ``query`` (memoised per node)."""
        key = id(query)
        rel = self._memo.get(key)
        if rel is None:
            rel = self._relation(query, parent, dict(ctes or {}))
            self._memo[key] = rel
        return rel

    def _relation(self, query: exp.Expression, parent: Scope | None, ctes: dict[str, Source]) -> Relation:
        if isinstance(query, exp.Subquery):
            return self.relation(query.this, parent, self._with(query, ctes, parent))
        if isinstance(query, exp.Select):
            return self._select(query, parent, ctes)
        if isinstance(query, exp.SetOperation):
            return self._set_operation(query, parent, ctes)
        if isinstance(query, exp.Values):
            return self._values(query)
        self.diag(
            "unsupported_construct", f"cannot resolve a {query.key.upper()} as a query", query, construct=query.key
        )
        return Relation([], [], [], complete=False)

    def _with(self, node: exp.Expression, ctes: dict[str, Source], parent: Scope | None) -> dict[str, Source]:
        with_ = node.args.get("with_")
        if not with_:
            return ctes
        ctes = dict(ctes)
        recursive = bool(with_.args.get("recursive"))
        for cte in with_.expressions:
            name = self.names.table_ident(cte.args["alias"].this)
            body = cte.this
            visible = dict(ctes)
            alias = cte.args.get("alias")
            if recursive and isinstance(body, exp.SetOperation) and _reads_table(body.expression, name or ""):
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
        names = [self.names.column_ident(c) or "" for c in cols]
        labels = [c.name for c in cols]
        n = len(names)
        return Relation(
            names + rel.names[n:], labels + rel.labels[n:], rel.columns, rel.complete, rel.tables, rel.correlated
        )

    def _values(self, values: exp.Values) -> Relation:
        rows = values.expressions
        width = len(rows[0].expressions) if rows and isinstance(rows[0], exp.Tuple) else 1
        columns: list[Alts] = [[] for _ in range(width)]
        for row in rows:
            items = row.expressions if isinstance(row, exp.Tuple) else [row]
            for i, item in enumerate(items[:width]):
                columns[i].append(item.copy())
        names = [f"col{i + 1}" for i in range(width)]
        return self._aliased(Relation(names, list(names), columns), values.args.get("alias"))

    def _set_operation(self, node: exp.SetOperation, parent: Scope | None, ctes: dict[str, Source]) -> Relation:
        ctes = self._with(node, ctes, parent)
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
        columns = [left.columns[i] + (right.columns[i] if i < len(right.columns) else []) for i in range(width)]
        rel = Relation(
            left.names[:width],
            left.labels[:width],
            columns,
            left.complete and right.complete,
            left.tables + right.tables,
        )
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
        if isinstance(key, exp.Literal) and not key.is_string and key.this.isdigit():
            idx = int(key.this) - 1
            return idx if 0 <= idx < len(names) else None
        if isinstance(key, exp.Column) and not key.table:
            name = self.names.column_ident(key.this)
            return names.index(name) if name in names else None
        return None

    # ------------------------------------------------------------------ SELECT

    def _select(self, sel: exp.Select, parent: Scope | None, ctes: dict[str, Source]) -> Relation:
        ctes = self._with(sel, ctes, parent)
        scope = Scope(parent, ctes)
        from_ = sel.args.get("from_")
        if from_ is not None:
            self._add_source(from_.this, scope)
        joins = sel.args.get("joins") or []
        for join in joins:
            self._add_join(join, scope)
        for lateral in sel.args.get("laterals") or []:
            self._add_source(lateral, scope)
        if sel.args.get("pivots"):
            self.diag(
                "unsupported_construct", "PIVOT / UNPIVOT: lineage through it is not resolved", sel, construct="PIVOT"
            )

        for src in scope.sources.values():
            _ = src.relation  # every relation in FROM is scanned, even when no column of it is read
        names, labels, items, complete = self._expand(sel, scope)
        columns = [self.resolve(item, scope) for item in items]
        rel = Relation(names, labels, columns, complete, [s.table for s in scope.sources.values() if s.table])
        for name, alts in zip(names, columns, strict=True):
            scope.aliases.setdefault(name, alts)

        for join in joins:
            on = join.args.get("on")
            for part in conjuncts(on):
                self._record(IndirectType.JOIN, self.resolve(part, scope))
        for part in conjuncts(sel.args["where"].this if sel.args.get("where") else None):
            scope.outer_hit = False
            alts = self.resolve(part, scope)
            self._record(IndirectType.FILTER, alts)
            if scope.outer_hit:
                rel.correlated.extend(alts)
        group = sel.args.get("group")
        if group is not None:
            self._group(group, scope, items)
        for key in ("having", "qualify"):
            clause = sel.args.get(key)
            if clause is not None:
                for part in conjuncts(clause.this):
                    self._record(IndirectType.FILTER, self.resolve(part, scope, alias_first=True))
        for key in ("order", "sort", "cluster"):  # ORDER BY; Hive SORT BY and CLUSTER BY
            clause = sel.args.get(key)
            for ordered in clause.expressions if clause is not None else []:
                node = ordered.this if isinstance(ordered, exp.Ordered) else ordered
                self._record(IndirectType.SORT, self._key(node, scope, items, alias_first=True))
        return rel

    def _group(self, group: exp.Group, scope: Scope, items: list[exp.Expression]) -> None:
        keys: list[exp.Expression] = []
        nodes = list(group.expressions)
        if group.args.get("all"):  # GROUP BY ALL: every select item without an aggregate
            nodes.extend(i for i in items if not any(isinstance(n, exp.AggFunc) for n in i.walk()))
        for key in ("grouping_sets", "cube", "rollup"):
            nodes.extend(group.args.get(key) or [])
        for node in nodes:
            if isinstance(node, exp.GroupingSets | exp.Cube | exp.Rollup):
                construct = {exp.GroupingSets: "GROUPING SETS", exp.Cube: "CUBE", exp.Rollup: "ROLLUP"}[type(node)]
                self.diag(
                    "grouping_sets",
                    f"{construct}: every grouping column is recorded as GROUP_BY",
                    node,
                    Severity.INFO,
                    construct=construct,
                )
                keys.extend(_grouping_keys(node))
            else:
                keys.append(node)
        for key in keys:
            self._record(IndirectType.GROUP_BY, self._key(key, scope, items, alias_first=False))

    def _key(self, key: exp.Expression, scope: Scope, items: list[exp.Expression], alias_first: bool) -> Alts:
        """A GROUP BY / ORDER BY key: an ordinal, an output alias or an expression."""
        if isinstance(key, exp.Literal) and not key.is_string and key.this.isdigit():
            idx = int(key.this) - 1
            if 0 <= idx < len(items):
                return self.resolve(items[idx], scope)  # fresh copies
            self.diag("unknown_column", f"position {key.this} is not in the select list", key, Severity.ERROR)
            return []
        return self.resolve(key, scope, alias_first=alias_first, alias_fallback=True)

    def _record(self, kind: IndirectType, alts: Alts) -> None:
        for alt in alts:
            self.indirect.append((kind, alt))

    # ------------------------------------------------------------------ FROM

    def _add_source(self, node: exp.Expression, scope: Scope) -> Source | None:
        alias_node = node.args.get("alias")
        alias = self.names.table_ident(alias_node.this) if alias_node is not None and alias_node.this else None
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            src = self._table_source(node, scope, alias)
        elif isinstance(node, exp.Unnest) or (
            isinstance(node, exp.Lateral) and isinstance(node.this, exp.Explode | exp.Inline | exp.Unnest)
        ):
            src = self._unnest_source(node, scope, alias)
        elif isinstance(node, exp.Lateral) and isinstance(node.this, _QUERY_TYPES):
            body = node.this

            def lateral_load(body: exp.Expression = body, scope: Scope = scope) -> Relation:
                return self._aliased(self.relation(body, scope, scope.ctes), node.args.get("alias"))

            src = Source(alias=alias or f"__lateral{len(scope.sources)}", load=lateral_load)
        elif isinstance(node, _QUERY_TYPES):
            body = node
            parent = scope.parent
            ctes = scope.ctes

            def load(
                body: exp.Expression = body, parent: Scope | None = parent, ctes: dict[str, Source] = ctes
            ) -> Relation:
                return self._aliased(self.relation(body, parent, ctes), body.args.get("alias"))

            src = Source(alias=alias or f"__derived{len(scope.sources)}", load=load)
        else:
            return self._opaque(node, scope, node.key.upper())
        for pivot in node.args.get("pivots") or []:
            src = self._pivot_source(src, pivot, scope)
        scope.add(src)
        return src

    def _pivot_source(self, base: Source, pivot: exp.Pivot, scope: Scope) -> Source:
        """PIVOT as the aggregation it is: ``PIVOT (SUM(v) FOR k IN ('a' AS x))`` makes
        ``x = SUM(CASE WHEN k = 'a' THEN v END)``, grouped by the other input columns.

        UNPIVOT, and a PIVOT over an input whose columns are unknown, are reported, not resolved.
        """
        alias_node = pivot.args.get("alias")
        alias = (
            self.names.table_ident(alias_node.this) if alias_node is not None and alias_node.this else None
        ) or base.alias
        field = (pivot.args.get("fields") or [None])[0]
        columns = base.known_columns()
        if pivot.args.get("unpivot") or not isinstance(field, exp.In) or columns is None:
            why = "UNPIVOT" if pivot.args.get("unpivot") else "PIVOT over an input whose columns are unknown"
            self.diag("unsupported_construct", f"{why}: lineage through it is not resolved", pivot, construct="PIVOT")
            return Source(alias=alias, opaque="PIVOT")
        inner = Scope(scope.parent, scope.ctes)
        inner.add(base)
        aggs = [a.this if isinstance(a, exp.Alias) else a for a in pivot.expressions]
        used = {self.names.column_ident(c.this) for a in [field.this, *aggs] for c in a.find_all(exp.Column)}
        group = [c for c in columns if c not in used]
        names, outputs = list(group), [self.resolve(exp.column(c, quoted=True), inner) for c in group]
        for key in outputs:
            self._record(IndirectType.GROUP_BY, key)
        values = [v.this if isinstance(v, exp.PivotAlias) else v for v in field.expressions]
        labels = [self.names.column_ident(c) or "" for c in pivot.args.get("columns") or []]
        k = 0
        for value in values:
            for agg in aggs:
                cond = exp.EQ(this=field.this.copy(), expression=value.copy())
                arg = agg.this if not isinstance(agg.this, exp.Star) else exp.Literal.number(1)
                case = exp.Case(ifs=[exp.If(this=cond, true=arg.copy())])
                names.append(labels[k] if k < len(labels) else f"{value.name}_{agg.key}")
                outputs.append(self.resolve(agg.__class__(**{**agg.args, "this": case}), inner))
                k += 1
        rel = Relation(names, list(names), outputs, tables=[base.table] if base.table else [])
        return Source(alias=alias, load=lambda: rel)

    def _unnest_source(self, node: exp.Expression, scope: Scope, alias: str | None) -> Source:
        """UNNEST / EXPLODE / LATERAL VIEW: each output column is the function over its array.

        ``LATERAL VIEW EXPLODE(t.tags) x AS tag`` gives ``tag`` = ``EXPLODE(t.tags)``; a map's key and
        value columns, a POSEXPLODE position and an UNNEST offset are all functions of their input.
        """
        func = node.this if isinstance(node, exp.Lateral) else node
        args = list(func.expressions) if isinstance(func, exp.Unnest) else [func.this, *func.expressions]
        args = [a for a in args if isinstance(a, exp.Expression)]
        alias_node = node.args.get("alias") or func.args.get("alias")
        cols = list(alias_node.args.get("columns") or []) if alias_node is not None else []
        names = [self.names.column_ident(c) or "" for c in cols]
        if not names and alias_node is not None and alias_node.this and isinstance(func, exp.Unnest):
            names = [alias or ""]  # UNNEST(arr) AS x names the value column (BigQuery, DuckDB)
        width = max(len(names), len(args), 1)
        names += [f"col{i + 1}" for i in range(len(names), width)]
        resolved = [self.resolve(a, scope) for a in args]
        columns: list[Alts] = []
        for i in range(width):
            alts = resolved[min(i, len(resolved) - 1)] if resolved else []
            if isinstance(func, exp.Unnest):
                columns.append([exp.Unnest(expressions=[clone(a)]) for a in alts])
            else:
                columns.append([func.__class__(this=clone(a)) for a in alts])
        rel = Relation(names, [c.name for c in cols] or names, columns)
        return Source(alias=alias or (names[0] if names else f"__unnest{len(scope.sources)}"), load=lambda: rel)

    def _opaque(self, node: exp.Expression, scope: Scope, construct: str) -> Source:
        alias_node = node.args.get("alias")
        alias = None
        if alias_node is not None:
            alias = self.names.table_ident(alias_node.this) if alias_node.this else None
        self.diag(
            "unsupported_construct",
            f"{construct}: its output columns are not resolved to sources",
            node,
            construct=construct,
        )
        src = Source(alias=alias or f"__opaque{len(scope.sources)}", opaque=construct)
        scope.add(src)
        return src

    def table_ref(self, node: exp.Table) -> TableRef:
        """The normalised reference of a table name, with session defaults applied."""
        catalog = self.names.table_ident(node.args.get("catalog")) or self.catalog_name
        db = self.names.table_ident(node.args.get("db")) or self.database
        return TableRef(catalog, db, self.names.table_ident(node.this) or "")

    def _table_source(self, node: exp.Table, scope: Scope, alias: str | None) -> Source:
        name = self.names.table_ident(node.this) or ""
        if not node.args.get("db") and name in scope.ctes:
            cte = scope.ctes[name]
            if cte.opaque:
                return Source(alias=alias or name, opaque=cte.opaque)
            return Source(alias=alias or name, load=lambda: cte.relation or Relation([], [], [], False))
        if not node.args.get("db") and name in self.temp_views:  # session-scoped temporary view
            ref = TableRef(self.catalog_name, None, name)
            return self._view_source(ref, self.temp_views[name], alias or name)
        ref = self.table_ref(node)
        schema = self.catalog.table(ref)
        if schema is not None and schema.view_sql:
            return self._view_source(ref, schema, alias or name)
        self.tables[ref] = None
        if schema is None:
            if self.report_unknown_tables:
                self.diag(
                    "unknown_table",
                    f"table {ref.qualified} is not in the catalog; its columns are unknown",
                    node,
                    Severity.INFO,
                )
            return Source(alias=alias or name, table=ref, columns=None)
        return Source(alias=alias or name, table=ref, columns=list(schema.column_names))

    def _view_source(self, ref: TableRef, schema: TableSchema, alias: str) -> Source:
        import sqlglot

        self.via[ref] = None

        def load() -> Relation:
            try:
                tree = sqlglot.parse_one(schema.view_sql or "", read=schema.view_dialect or self.names.dialect)
            except Exception as err:  # a stored view definition we cannot read
                self.diag("view_unreadable", f"view {ref.qualified}: cannot parse its definition: {err}", None)
                return Relation([], [], [], complete=False)
            if isinstance(tree, exp.Create):
                tree = tree.expression
            saved = self.database
            self.database = ref.database or saved
            try:
                rel = self.relation(tree, None, {})
            finally:
                self.database = saved
            names = list(schema.column_names) or rel.names
            if len(names) == len(rel.names):
                return Relation(names, names, rel.columns, rel.complete, rel.tables)
            return rel

        return Source(alias=alias, load=load)

    def _add_join(self, join: exp.Join, scope: Scope) -> None:
        before = list(scope.sources.values())
        src = self._add_source(join.this, scope)
        if src is None:
            return
        using = join.args.get("using") or []
        names = [self.names.column_ident(u.this if isinstance(u, exp.Column) else u) or "" for u in using]
        if str(join.args.get("method") or "").upper() == "NATURAL":
            names = self._natural_columns(before, src, join)
        for name in names:
            left = self._lookup_in(before, name, join)
            right_alts = self._from_source(src, name, join)
            for lalt, ralt in itertools.product(left, right_alts):
                self.indirect.append((IndirectType.JOIN, exp.EQ(this=lalt, expression=ralt)))
            if left:
                scope.using.setdefault(name, next(s for s in before if s.has(name) is not False))

    def _natural_columns(self, before: list[Source], src: Source, join: exp.Join) -> list[str]:
        right = src.known_columns()
        lefts = [s.known_columns() for s in before]
        if right is None or any(c is None for c in lefts):
            self.diag("natural_join_unknown", "NATURAL JOIN over tables whose columns are unknown", join)
            return []
        left_names = {n for cols in lefts for n in cols or ()}
        return [n for n in right if n in left_names]

    def _lookup_in(self, sources: list[Source], name: str, node: exp.Expression) -> Alts:
        known = [s for s in sources if s.has(name)]
        if len(known) >= 1:
            return self._from_source(known[0], name, node)
        unknown = [s for s in sources if s.has(name) is None]
        if len(unknown) == 1:
            return self._from_source(unknown[0], name, node)
        return []

    # ------------------------------------------------------------------ select list

    def _expand(self, sel: exp.Select, scope: Scope) -> tuple[list[str], list[str], list[exp.Expression], bool]:
        names: list[str] = []
        labels: list[str] = []
        items: list[exp.Expression] = []
        complete = True
        for item in sel.expressions:
            if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
                qualifier = self.names.table_ident(item.args.get("table")) if isinstance(item, exp.Column) else None
                star = item if isinstance(item, exp.Star) else item.this
                excluded = {
                    self.names.column_ident(c.this if isinstance(c, exp.Column) else c)
                    for c in star.args.get("except_") or []
                }
                ok = self._expand_star(scope, qualifier, excluded, item, names, labels, items)
                complete = complete and ok
                continue
            inner = item.this if isinstance(item, exp.Alias) else item
            if isinstance(item, exp.Alias):
                label = item.alias
                name = self.names.column_ident(item.args["alias"])
            elif isinstance(item, exp.Column):
                label = item.name
                name = self.names.column_ident(item.this)
            else:
                label = item.sql(dialect=self.names.dialect or None)
                name = self.names.column_ident(label)
            names.append(name or "")
            labels.append(label)
            items.append(inner)
        return names, labels, items, complete

    def _expand_star(
        self,
        scope: Scope,
        qualifier: str | None,
        excluded: set[str | None],
        node: exp.Expression,
        names: list[str],
        labels: list[str],
        items: list[exp.Expression],
    ) -> bool:
        if qualifier is not None:
            src = self._find_source(scope, qualifier)
            sources = [src] if src is not None else []
            if src is None:
                self.diag("unknown_qualifier", f"{qualifier}.* names no table in scope", node, Severity.ERROR)
                return False
        else:
            sources = list(scope.sources.values())
        ok = True
        seen_using: set[str] = set()
        for src in sources:
            cols = src.known_columns()
            if cols is None:
                what = src.table.qualified if src.table else (src.opaque or src.alias)
                self.diag(
                    "star_unknown_columns",
                    f"* over {what}, whose columns are unknown: give its schema (--schema or --catalog-url)",
                    node,
                )
                ok = False
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
                # names are normalised already: quote them so they are not folded a second time
                items.append(
                    exp.Column(
                        this=exp.to_identifier(col, quoted=True), table=exp.to_identifier(src.alias, quoted=True)
                    )
                )
        return ok

    # ------------------------------------------------------------------ expressions

    def resolve(
        self, expr: exp.Expression, scope: Scope, alias_first: bool = False, alias_fallback: bool = False
    ) -> Alts:
        """Copies of ``expr`` with every column replaced by its resolved expression.

        Several copies when a column comes from a set operation with several branches.
        """
        if isinstance(expr, exp.Column) and not isinstance(expr.this, exp.Star):
            return self._column(expr, scope, alias_first, alias_fallback)
        subs: list[tuple[int, Alts]] = []
        found = list(expr.find_all(exp.Column, *_QUERY_TYPES))
        nodes = found if not any(isinstance(n, _QUERY_TYPES) for n in found) else _scope_nodes(expr)
        for node in nodes:
            if isinstance(node, exp.Column):
                if isinstance(node.this, exp.Star):
                    continue
                subs.append((id(node), self._column(node, scope, alias_first, alias_fallback)))
            elif isinstance(node, _QUERY_TYPES):
                subs.append((id(node), self._subquery(node, scope)))
        if not subs:
            return [_substitute(expr, {})]
        choices = [alts if alts else [None] for _, alts in subs]  # type: ignore[list-item]
        out: Alts = []
        for combo in itertools.islice(itertools.product(*choices), MAX_ALTERNATIVES):
            fresh = not out  # later combinations share replacements with the first: copy them
            mapping = {
                key: alt if fresh else clone(alt) for (key, _), alt in zip(subs, combo, strict=True) if alt is not None
            }
            out.append(_substitute(expr, mapping))
        return out

    def _subquery(self, node: exp.Expression, scope: Scope) -> Alts:
        query = node.this if isinstance(node, exp.Subquery) else node
        rel = self.relation(query, scope, scope.ctes)
        parent = node.parent
        scalar = not isinstance(parent, exp.In | exp.Exists | exp.Any | exp.All)
        if scalar and len(rel.columns) == 1:
            return [self._take(alt) for alt in rel.columns[0]]
        # a predicate subquery: render what it compares, over its base tables. EXISTS compares no
        # output (its select list is irrelevant), only its correlation predicates.
        if isinstance(parent, exp.Exists):
            outputs: list[exp.Expression] = [exp.Star()]
        else:
            outputs = [self._take(alts[0]) for alts in rel.columns if alts] or [exp.Star()]
        select = exp.Select(expressions=outputs)
        if rel.tables:
            select.set("from_", exp.From(this=exp.to_table(rel.tables[0].name)))
            for t in rel.tables[1:]:
                select.append("joins", exp.Join(this=exp.to_table(t.name)))
        if rel.correlated:
            cond = self._take(rel.correlated[0])
            for c in rel.correlated[1:]:
                cond = exp.And(this=cond, expression=self._take(c))
            select.set("where", exp.Where(this=cond))
        return [select if isinstance(node, exp.Select) else exp.Subquery(this=select)]

    def _find_source(self, scope: Scope, qualifier: str) -> Source | None:
        src = scope.sources.get(qualifier)
        if src is not None:
            return src
        # a qualifier may name the table while an alias is in use (Doris/MySQL allow db.t.col)
        for s in scope.sources.values():
            if s.table is not None and s.table.name == qualifier and s.alias == qualifier:
                return s
        return None

    def _column(self, col: exp.Column, scope: Scope, alias_first: bool, alias_fallback: bool) -> Alts:
        name = self.names.column_ident(col.this) or ""
        qualifier = self.names.table_ident(col.args.get("table"))
        if qualifier is not None:
            s: Scope | None = scope
            while s is not None:
                src = self._find_source(s, qualifier)
                if src is not None:
                    if s is not scope:
                        scope.outer_hit = True
                    return self._from_source(src, name, col)
                s = s.parent
            field = self._struct_field(col, scope, qualifier, name)
            if field is not None:
                return field
            return self._unresolved(
                col, "unknown_qualifier", f"{qualifier}.{name}: {qualifier} names no table in scope", Severity.ERROR
            )

        if alias_first and name in scope.aliases:
            return [self._take(alt) for alt in scope.aliases[name]]
        s = scope
        while s is not None:
            found = self._unqualified(s, name, col)
            if found is not None:
                if s is not scope:
                    scope.outer_hit = True
                return found
            s = s.parent
        if alias_fallback and name in scope.aliases:
            return [self._take(alt) for alt in scope.aliases[name]]
        if not scope.sources and scope.parent is None:
            return self._unresolved(
                col, "unknown_column", f"column {name} with no table to read it from", Severity.ERROR
            )
        return self._unresolved(col, "unknown_column", f"column {name} is in no table of its scope", Severity.ERROR)

    def _struct_field(self, col: exp.Column, scope: Scope, qualifier: str, name: str) -> Alts | None:
        """``s.f`` / ``t.s.f`` where ``s`` is a (struct) column: the field access over that column."""
        db = self.names.table_ident(col.args.get("db"))
        base: Alts | None = None
        s: Scope | None = scope
        while s is not None and not base:
            if db is not None:  # t.s.f: table t, column s, field f
                src = self._find_source(s, db)
                base = self._from_source(src, qualifier, col) if src is not None else None
            else:  # s.f: column s of a table in scope
                base = self._unqualified(s, qualifier, col)
            s = s.parent
        path = [col.this]
        if not base and db is not None:  # s.a.b: column s, fields a and b
            s = scope
            while s is not None and not base:
                base = self._unqualified(s, db, col)
                s = s.parent
            path = [col.args["table"], col.this]
        if not base:
            return None
        out: Alts = []
        for b in base:
            node = clone(b)
            for ident in path:
                quoted = ident.args.get("quoted") if isinstance(ident, exp.Identifier) else False
                node = exp.Dot(this=node, expression=exp.Identifier(this=ident.name, quoted=quoted))
            out.append(node)
        return out

    def _unqualified(self, scope: Scope, name: str, col: exp.Column) -> Alts | None:
        """Bind an unqualified column in one scope; None when this scope certainly lacks it."""
        if name in scope.using:
            return self._from_source(scope.using[name], name, col)
        known: list[Source] = []
        unknown: list[Source] = []
        for src in scope.sources.values():
            has = src.has(name)
            if has:
                known.append(src)
            elif has is None:
                unknown.append(src)
        if len(known) == 1:
            return self._from_source(known[0], name, col)
        if len(known) > 1:
            tables = ", ".join(_describe(s) for s in known)
            return self._unresolved(
                col, "ambiguous_column", f"column {name} is in more than one table: {tables}", Severity.ERROR
            )
        if len(unknown) == 1:
            return self._from_source(unknown[0], name, col)
        if len(unknown) > 1:
            tables = ", ".join(_describe(s) for s in unknown)
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
                return self._unresolved(
                    node, "unknown_column", f"column {name} is not in table {src.table.qualified}", Severity.ERROR
                )
            key = (src.table, name)
            node = self._columns.get(key)
            if node is None:
                node = self._columns[key] = column_node(src.table, name)
            return [node]
        rel = src.relation
        if rel is None:
            return self._unresolved(node, "unknown_column", f"column {name}: its relation is unknown", Severity.ERROR)
        idx = rel.index(name)
        element = rel.index(src.alias)
        if idx is None and element is not None and isinstance(node, exp.Column) and node.args.get("table"):
            # UNNEST(array_of_structs) AS i … i.sku: a field of the element, which the alias names
            field = exp.Identifier(this=node.name, quoted=bool(node.this.args.get("quoted")))
            return [exp.Dot(this=clone(alt), expression=field.copy()) for alt in rel.columns[element]]
        if idx is None:
            if not rel.complete:
                return self._unresolved(
                    node, "unknown_column", f"column {name} of {src.alias}: that relation's columns are not all known"
                )
            return self._unresolved(
                node, "unknown_column", f"column {name} is not an output of {src.alias}", Severity.ERROR
            )
        return [self._take(alt) for alt in rel.columns[idx]]

    def _take(self, node: exp.Expression) -> exp.Expression:
        """A resolved expression to build on: the node itself the first time, a copy after.

        Resolved trees are never mutated once built, so the first user may own a relation's
        output; later users get copies, so that every inner node has one parent (SQL generation
        reads parent links). Base-column leaves are shared everywhere (see ``_columns``).
        """
        if isinstance(node, exp.Column):
            return node
        key = id(node)
        if key in self._taken:
            return clone(node)
        self._taken.add(key)
        return node

    def _unresolved(self, node: exp.Expression, code: str, message: str, severity: Severity = Severity.WARNING) -> Alts:
        self.diag(code, message, node, severity)
        marker = node.copy() if isinstance(node, exp.Column) else exp.column(message)
        marker.meta[UNRESOLVED] = True
        return [marker]


def _reads_table(query: exp.Expression, name: str) -> bool:
    """True when ``query`` reads a table called ``name`` (a recursive CTE's self-reference)."""
    return any(t.name.lower() == name.lower() and not t.args.get("db") for t in query.find_all(exp.Table))


def _describe(src: Source) -> str:
    return src.table.qualified if src.table is not None else src.alias


def _grouping_keys(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Tuple | exp.GroupingSets | exp.Cube | exp.Rollup):
        keys: list[exp.Expression] = []
        for e in node.expressions:
            keys.extend(_grouping_keys(e))
        return keys
    return [node]


def _scope_nodes(expr: exp.Expression) -> Iterator[exp.Expression]:
    """Nodes of ``expr`` that belong to its own scope: subqueries are yielded, not entered."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if node is not expr and isinstance(node, _QUERY_TYPES):
            continue
        for value in node.args.values():
            if isinstance(value, exp.Expression):
                stack.append(value)
            elif type(value) is list:
                stack.extend(v for v in value if isinstance(v, exp.Expression))


_OPERATORS = (exp.Binary, exp.Unary)


def _substitute(node: exp.Expression, mapping: dict[int, exp.Expression], operand: bool = False) -> exp.Expression:
    """A copy of ``node`` with the nodes whose id is in ``mapping`` replaced.

    A replacement that is itself an operator gets parentheses when it lands as an operand
    (``2 * x`` with ``x = a + b`` is ``2 * (a + b)``). Unlike ``Expression.copy`` the copy keeps no
    comments, token positions or other metadata but the resolved column reference, which makes it
    several times cheaper.
    """
    replacement = mapping.get(id(node))
    if replacement is not None:
        if operand and isinstance(replacement, _OPERATORS):
            return exp.Paren(this=replacement)
        return replacement
    child_operand = isinstance(node, _OPERATORS)
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            kwargs[key] = _substitute(value, mapping, child_operand)
        elif type(value) is list:
            kwargs[key] = [
                _substitute(v, mapping, child_operand) if isinstance(v, exp.Expression) else v for v in value
            ]
        else:
            kwargs[key] = value
    new = node.__class__(**kwargs)
    if node._meta and REF in node._meta:
        new.meta[REF] = node._meta[REF]
    return new


def clone(node: exp.Expression) -> exp.Expression:
    """A cheap copy of a resolved expression (see ``_substitute``); base-column leaves are shared."""
    if isinstance(node, exp.Column) and node._meta and REF in node._meta:
        return node
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            kwargs[key] = clone(value)
        elif type(value) is list:
            kwargs[key] = [clone(v) if isinstance(v, exp.Expression) else v for v in value]
        else:
            kwargs[key] = value
    new = node.__class__(**kwargs)
    meta = node._meta
    if meta and UNRESOLVED in meta:
        new.meta[UNRESOLVED] = True
    return new
