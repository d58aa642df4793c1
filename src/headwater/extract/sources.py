"""Binding what a FROM clause names: tables, CTEs, views, derived tables, joins, UNNEST, PIVOT.

The third class of the resolver's chain (``headwater.extract.binder``), under ``Resolver``: each
method adds a ``Source`` to a scope.
"""

from __future__ import annotations

import itertools
from typing import Final, cast

from sqlglot import exp

from headwater.catalog import LayeredCatalog, TableSchema
from headwater.catalog.listing import closest, one_edit_away, tables_in
from headwater.extract.columns import ColumnBinder
from headwater.extract.guards import EmptyName, view_refused
from headwater.extract.scope import Alts, Relation, Scope, Source
from headwater.extract.storage import is_external_query, parse_external, table_storage
from headwater.extract.trees import QUERY_TYPES, clone
from headwater.extract.unnest import ELEMENT_DIALECTS, element_relation, may_be_struct, row_fields
from headwater.model import IndirectType, Severity, TableRef
from headwater.model.slots import slot_setters
from headwater.model.storage import without_userinfo

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_ALIAS: Final = exp.Alias
_CASE: Final = exp.Case
_COLUMN: Final = exp.Column
_CREATE: Final = exp.Create
_EQ: Final = exp.EQ
_EXPLODE: Final = exp.Explode
_EXPRESSION: Final = exp.Expression
_IDENTIFIER: Final = exp.Identifier
_IF: Final = exp.If
_IN: Final = exp.In
_INLINE: Final = exp.Inline
_LATERAL: Final = exp.Lateral
_LITERAL: Final = exp.Literal
_PIVOT_ALIAS: Final = exp.PivotAlias
_SELECT: Final = exp.Select
_TUPLE: Final = exp.Tuple
_STAR: Final = exp.Star
_SUBQUERY: Final = exp.Subquery
_TABLE: Final = exp.Table
_UNNEST: Final = exp.Unnest
# a SEMI / ANTI join keeps one side's columns, but in ClickHouse, whose SEMI join also gives the right
# side's values and whose ANTI join gives its columns' defaults
_ONE_SIDED: Final = frozenset({"SEMI", "ANTI"})
_BOTH_SIDED_SEMI: Final = frozenset({"clickhouse"})
_exp_column: Final = exp.column

_NEW: Final = object.__new__
_TABLE_REF: Final = slot_setters(TableRef)  # ``table_ref``'s values made without the dataclass's ``__init__``


def _parenthesised_tables(node: exp.Subquery) -> bool:
    """True for parentheses around a table or a join (``(t1)``, ``((a JOIN b ON …))``), not a query.

    >>> import sqlglot
    >>> _parenthesised_tables(sqlglot.parse_one("SELECT * FROM ((a JOIN b ON a.k = b.k))").args["from_"].this)
    True
    """
    inner = node.this
    while isinstance(inner, _SUBQUERY) and not inner.args.get("alias"):
        inner = inner.this
    return isinstance(inner, _TABLE)


def _enclosing_select(node: exp.Expression) -> exp.Expression | None:
    """The SELECT whose FROM clause holds ``node``."""
    parent = node.parent
    while parent is not None and not isinstance(parent, _SELECT):
        parent = parent.parent
    return parent


class SourceBinder(ColumnBinder):
    """FROM-clause binding for ``Resolver``."""

    def _add_source(self, node: exp.Expression, scope: Scope) -> Source | None:
        if isinstance(node, _SUBQUERY) and not node.args.get("alias") and _parenthesised_tables(node):
            src = self._add_source(node.this, scope)  # ``FROM (t1)``, ``FROM ((a JOIN b ON …))``
            for join in node.args.get("joins") or []:  # ``((a JOIN b ON …) JOIN c ON …)``: the outer joins
                self._add_join(join, scope)
                scope.joins.append(join)
            return src
        alias_node = node.args.get("alias")
        alias = self.table_ident(alias_node.this) if alias_node is not None and alias_node.this else None
        path = table_storage(node, self.names.dialect or None) if isinstance(node, _TABLE) else None
        if path is not None:  # a storage path read as a dataset: its columns are unknown
            self.tables[path] = None
            written = self.catalog.table(path)  # a path an earlier statement wrote
            columns = list(written.column_names) if written is not None else None
            src = Source(alias=alias or path.name, table=path, columns=columns)
        elif isinstance(node, _TABLE) and isinstance(node.this, _IDENTIFIER):
            src = self._table_source(node, scope, alias)
        elif isinstance(node, _TABLE) and is_external_query(node.this):
            src = self._external_query_source(cast(exp.Anonymous, node.this), scope, alias)
        elif isinstance(node, _UNNEST) or (
            isinstance(node, _LATERAL) and isinstance(node.this, _EXPLODE | _INLINE | _UNNEST)
        ):
            src = self._unnest_source(node, scope, alias)
        elif isinstance(node, _LATERAL) and isinstance(node.this, QUERY_TYPES):
            body = cast(exp.Expression, node.this)

            def lateral_load(body: exp.Expression = body, scope: Scope = scope) -> Relation:
                return self._aliased(self.relation(body, scope, scope.ctes), node.args.get("alias"))

            src = Source(alias=alias or f"__lateral{len(scope.sources)}", load=lateral_load)
        elif isinstance(node, QUERY_TYPES):
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
        for join in node.args.get("joins") or []:  # a join list inside parentheses, or an UPDATE's
            self._add_join(join, scope)
            scope.joins.append(join)
        return src

    def _external_query_source(self, func: exp.Anonymous, scope: Scope, alias: str | None) -> Source:
        """BigQuery ``EXTERNAL_QUERY('connection', 'SELECT …')``: a federated query, run by the external
        database (Cloud SQL MySQL or PostgreSQL, Spanner). Its SQL is resolved as a query whose tables are
        in the connection's namespace (their catalog is the connection id); SQL that neither MySQL nor
        PostgreSQL reads is reported and its outputs stay unknown."""
        connection, sql = (a.name if isinstance(a, exp.Literal) else None for a in [*func.expressions, None][:2])
        inner = parse_external(sql) if connection and sql else None
        name = alias or f"__external{len(scope.sources)}"
        if inner is None:
            self.diag(
                "unsupported_construct",
                "EXTERNAL_QUERY whose connection or SQL is not a literal, or whose SQL is not read: "
                "its output columns are not resolved to sources",
                func,
                construct="EXTERNAL_QUERY",
            )
            return Source(alias=name, opaque="EXTERNAL_QUERY")
        saved = self.catalog_name, self.database
        self.catalog_name, self.database = connection or "", None  # the external database's names
        try:
            rel = self.relation(inner, None, {})
        finally:
            self.catalog_name, self.database = saved
        return Source(alias=name, load=lambda: rel)

    def _pivot_source(self, base: Source, pivot: exp.Pivot, scope: Scope) -> Source:
        """PIVOT as the aggregation it is: ``PIVOT (SUM(v) FOR k IN ('a' AS x))`` makes
        ``x = SUM(CASE WHEN k = 'a' THEN v END)``, grouped by the other input columns.

        UNPIVOT, and a PIVOT over an input whose columns are unknown, are reported, not resolved.
        """
        alias_node = pivot.args.get("alias")
        alias = (
            self.table_ident(alias_node.this) if alias_node is not None and alias_node.this else None
        ) or base.alias
        field = (pivot.args.get("fields") or [None])[0]
        columns = base.known_columns()
        if pivot.args.get("unpivot") and isinstance(field, _IN):
            return self._unpivot_source(base, pivot, field, alias, columns, scope)
        if pivot.args.get("unpivot") or not isinstance(field, _IN) or columns is None:
            why = "UNPIVOT" if pivot.args.get("unpivot") else "PIVOT over an input whose columns are unknown"
            self.diag("unsupported_construct", f"{why}: lineage through it is not resolved", pivot, construct="PIVOT")
            return Source(alias=alias, opaque="PIVOT")
        inner = Scope(scope.parent, scope.ctes)
        inner.add(base)
        aggs = [a.this if isinstance(a, _ALIAS) else a for a in pivot.expressions]
        used = {self.column_ident(c.this) for a in [field.this, *aggs] for c in a.find_all(_COLUMN)}
        group = [c for c in columns if c not in used]
        names, outputs = list(group), [self.resolve(_exp_column(c, quoted=True), inner) for c in group]
        for key in outputs:
            self._record(IndirectType.GROUP_BY, key)
        values = [v.this if isinstance(v, _PIVOT_ALIAS) else v for v in field.expressions]
        labels = [self.column_ident(c) or "" for c in pivot.args.get("columns") or []]
        k = 0
        for value in values:
            for agg in aggs:
                cond = _EQ(this=field.this.copy(), expression=value.copy())
                arg = agg.this if not isinstance(agg.this, _STAR) else _LITERAL.number(1)
                case = _CASE(ifs=[_IF(this=cond, true=arg.copy())])
                names.append(labels[k] if k < len(labels) else f"{value.name}_{agg.key}")
                outputs.append(self.resolve(agg.__class__(**{**agg.args, "this": case}), inner))
                k += 1
        rel = Relation(names, list(names), outputs, tables=[base.table] if base.table else [])
        return Source(alias=alias, load=lambda: rel)

    def _unpivot_source(
        self, base: Source, pivot: exp.Pivot, field: exp.In, alias: str, columns: list[str] | None, scope: Scope
    ) -> Source:
        """UNPIVOT: ``UNPIVOT (v FOR k IN (a, b AS 'x'))`` gives the input's other columns as they are,
        ``k`` = the listed columns' names (constants) and ``v`` = one of the listed columns, each a branch
        (``a`` or ``b``); with several value columns (``(v, w) FOR k IN ((a1, a2), (b1, b2))``) each takes
        its place in every tuple. Over an input whose columns are unknown, only ``k`` and ``v`` are known
        (the relation stays incomplete, reported)."""
        inner = Scope(scope.parent, scope.ctes)
        inner.add(base)
        values = [e.expressions if isinstance(e, _TUPLE) else [e] for e in pivot.expressions]
        value_names = [self.column_ident(v) or "" for group in values for v in group]
        entries = [v.this if isinstance(v, _PIVOT_ALIAS) else v for v in field.expressions]
        labels = [
            (v.args["alias"].name if isinstance(v, _PIVOT_ALIAS) else "_".join(c.name for c in e.find_all(_COLUMN)))
            for v, e in zip(field.expressions, entries, strict=True)
        ]
        listed = {self.column_ident(c.this) for e in entries for c in e.find_all(_COLUMN)}
        width = len(value_names)
        value_alts: list[Alts] = [[] for _ in range(width)]
        for entry in entries:
            parts = entry.expressions if isinstance(entry, _TUPLE) else [entry]
            for k, part in enumerate(parts[:width]):
                value_alts[k].extend(self.resolve(part, inner))
        name_column = self.column_ident(field.this) or ""
        others = [c for c in columns or [] if c not in listed]
        outputs: list[Alts] = [self.resolve(_exp_column(c, quoted=True), inner) for c in others]
        outputs.append([_LITERAL.string(label) for label in labels])
        outputs.extend(value_alts)
        names = [*others, name_column, *value_names]
        if columns is None:
            self.diag(
                "unsupported_construct",
                "UNPIVOT over an input whose columns are unknown: its other columns are not resolved",
                pivot,
                construct="UNPIVOT",
            )
        rel = Relation(
            names, list(names), outputs, complete=columns is not None, tables=[base.table] if base.table else []
        )
        return Source(alias=alias, load=lambda: rel)

    def _unnest_source(self, node: exp.Expression, scope: Scope, alias: str | None) -> Source:
        """UNNEST / EXPLODE / LATERAL VIEW: each output column is the function over its array.

        ``LATERAL VIEW EXPLODE(t.tags) x AS tag`` gives ``tag`` = ``EXPLODE(t.tags)``; a map's key and
        value columns, a POSEXPLODE position and an UNNEST offset are all functions of their input.
        """
        func = node.this if isinstance(node, _LATERAL) else node
        args = list(func.expressions) if isinstance(func, _UNNEST) else [func.this, *func.expressions]
        args = [a for a in args if isinstance(a, _EXPRESSION)]
        alias_node = node.args.get("alias") or func.args.get("alias")
        cols = list(alias_node.args.get("columns") or []) if alias_node is not None else []
        names = [self.column_ident(c) or "" for c in cols]
        if not names and alias_node is not None and alias_node.this and isinstance(func, _UNNEST):
            names = [alias or ""]  # UNNEST(arr) AS x names the value column (BigQuery, DuckDB)
        width = max(len(names), len(args), 1)
        names += [f"col{i + 1}" for i in range(len(names), width)]
        labels = [c.name for c in cols] or list(names)
        offset = func.args.get("offset") if isinstance(func, _UNNEST) else None
        if offset:  # WITH ORDINALITY AS u(x, n) / WITH OFFSET [AS pos]: the position column
            named = isinstance(offset, _IDENTIFIER)
            names.append((self.column_ident(offset) or "") if named else "offset")
            labels.append(offset.name if named else "offset")
        resolved = [self.resolve(a, scope) for a in args]
        if isinstance(func, _UNNEST) and len(args) == 1 and len(cols) <= 1 and self.names.dialect in ELEMENT_DIALECTS:
            # BigQuery: the fields of a struct element are columns of the row
            named = bool(cols) or alias is not None
            struct = not named or may_be_struct(_enclosing_select(node), alias or names[0], self)
            rel = element_relation(self, resolved[0], names[0], labels[0], struct)
            if offset:
                rel.names.append(names[-1])
                rel.labels.append(labels[-1])
                rel.columns.append([_UNNEST(expressions=[clone(a)]) for a in resolved[0]])
            return Source(alias=alias or names[0], load=lambda: rel)
        fields = len(cols) - (1 if offset and not isinstance(offset, _IDENTIFIER) and len(cols) > len(args) else 0)
        by_position = (
            row_fields(self, func, resolved[0], fields)
            if len(args) == 1 and fields > 1 and (isinstance(func, _UNNEST | _INLINE))
            else None
        )
        columns: list[Alts] = []
        if by_position is not None:  # the columns named by position are the fields of the array's rows
            columns.extend(by_position)
        for i in range(len(columns), len(names)):
            alts = resolved[min(i, len(resolved) - 1)] if resolved else []
            if isinstance(func, _UNNEST):
                columns.append([_UNNEST(expressions=[clone(a)]) for a in alts])
            else:
                columns.append([func.__class__(this=clone(a)) for a in alts])
        rel = Relation(names, labels, columns)
        return Source(alias=alias or (names[0] if names else f"__unnest{len(scope.sources)}"), load=lambda: rel)

    def _opaque(self, node: exp.Expression, scope: Scope, construct: str) -> Source:
        alias_node = node.args.get("alias")
        alias = None
        if alias_node is not None:
            alias = self.table_ident(alias_node.this) if alias_node.this else None
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
        catalog = self.dataset_ident(node.args.get("catalog")) or self.catalog_name
        db = self.dataset_ident(node.args.get("db")) or self.database
        name = self.dataset_ident(node.this) or ""
        if "@" in catalog or (db is not None and "@" in db) or "@" in name:  # `s3://KEY:SECRET@bucket`.t
            catalog, name = without_userinfo(catalog), without_userinfo(name)
            db = without_userinfo(db) if db is not None else None
        made: TableRef = _NEW(TableRef)  # ``TableRef(catalog, db, name)``, each field set by its slot
        s = _TABLE_REF
        s[0](made, catalog)
        s[1](made, db)
        s[2](made, name)
        return made

    def _table_source(self, node: exp.Table, scope: Scope, alias: str | None) -> Source:
        name = self.table_ident(node.this) or ""
        if not name:
            raise EmptyName("an empty identifier names a source table: no lineage can be recorded")
        if not node.args.get("db") and name in scope.ctes:
            cte = scope.ctes[name]
            if cte.opaque:
                return Source(alias=alias or name, opaque=cte.opaque)
            return Source(alias=alias or name, load=lambda: cte.relation or Relation([], [], [], False))
        if not node.args.get("db") and name in self.temp_views:  # session-scoped temporary view
            ref = TableRef(self.catalog_name, None, name)
            return self._view_source(ref, self.temp_views[name], alias or name)
        ref = self.table_ref(node)
        schema = self.schema(ref)
        if schema is not None and schema.view_sql and not (schema.columns and ref in self.view_nodes):
            return self._view_source(ref, schema, alias or name)
        self.tables[ref] = None
        if schema is None:
            self._unknown_table(ref, node)
            return Source(alias=alias or name, table=ref, columns=None)
        return Source(
            alias=alias or name,
            table=ref,
            columns=list(schema.column_names),
            partial=schema.open,
            defined=schema.view_sql is not None,
        )

    def _unknown_table(self, ref: TableRef, node: exp.Table) -> None:
        """A table neither the catalog nor the project describes: unknown, not a mistake (an INFO, with a
        catalog), unless its name is one edit from a table the catalog lists or the project defines in
        its database (``mart.fct_order`` beside ``mart.fct_orders``): then a WARNING naming the likely
        table, with or without a catalog (the event is PARTIAL; ``--strict`` fails)."""
        base = self.catalog.base if isinstance(self.catalog, LayeredCatalog) else self.catalog
        listed = tables_in(base, ref.catalog, ref.database) if self.report_unknown_tables else None
        own = (
            tables_in(self.catalog.overlay, ref.catalog, ref.database)
            if isinstance(self.catalog, LayeredCatalog)
            else None
        )
        near = one_edit_away(ref.name, (listed or set()) | (own or set()))
        if near:
            if listed:
                likely = closest(ref.name, listed | (own or set())) or near
                guesses = ", ".join(f"`{ref.database}.{n}`" for n in likely)
                where = f"the catalog, which lists {len(listed)} tables of database {ref.database}"
            else:
                guesses = ", ".join(f"`{ref.database}.{n}`" for n in near)
                where = "the catalog nor defined by a statement of the project"
            self.diag(
                "unknown_table",
                f"table {ref.qualified} is not in {where}: did you mean {guesses}?",
                node,
                Severity.WARNING,
            )
        elif self.report_unknown_tables:
            self.diag(
                "unknown_table",
                f"table {ref.qualified} is not in the catalog; its columns are unknown",
                node,
                Severity.INFO,
            )

    def _view_source(self, ref: TableRef, schema: TableSchema, alias: str) -> Source:
        self.via[ref] = None

        def load() -> Relation:
            done = self._views.get(ref)  # a view read twice is resolved once (chains stay linear)
            if done is None:
                done = self._views[ref] = self._load_view(ref, schema)
            return done

        return Source(alias=alias, load=load)

    def _load_view(self, ref: TableRef, schema: TableSchema) -> Relation:
        import sqlglot

        if ref in self._loading_views:
            self.diag(
                "view_cycle",
                f"view {ref.qualified} reads itself (directly or through other views): its lineage is not resolved",
                None,
                Severity.ERROR,
            )
            return Relation([], [], [], complete=False)
        try:
            refused = view_refused(schema.view_sql or "", schema.view_dialect or self.names.dialect)
            if refused is not None:
                self.diag("view_unreadable", f"view {ref.qualified}: {refused}", None)
                return Relation([], [], [], complete=False)
            tree = sqlglot.parse_one(schema.view_sql or "", read=schema.view_dialect or self.names.dialect)
        except Exception as err:  # a stored view definition we cannot read
            self.diag("view_unreadable", f"view {ref.qualified}: cannot parse its definition: {err}", None)
            return Relation([], [], [], complete=False)
        if isinstance(tree, _CREATE):
            tree = tree.expression
        saved = self.database
        self.database = ref.database or saved
        self._loading_views.add(ref)
        try:
            rel = self.relation(cast(exp.Expression, tree), None, {})
        finally:
            self.database = saved
            self._loading_views.discard(ref)
        names = list(schema.column_names) or rel.names
        if len(names) == len(rel.names):
            return Relation(names, names, rel.columns, rel.complete, rel.tables)
        return rel

    def _add_join(self, join: exp.Join, scope: Scope) -> None:
        before = list(scope.sources.values())
        kind = join.args.get("kind")
        one_side = kind in _ONE_SIDED and self.names.dialect not in _BOTH_SIDED_SEMI
        keys = set(scope.sources) if one_side else None
        src = self._add_source(join.this, scope)
        if keys is not None:
            self._keep_one_side(join, scope, keys)
        if src is None:
            return
        using = join.args.get("using") or []
        names = [self.column_ident(u.this if isinstance(u, _COLUMN) else u) or "" for u in using]
        if str(join.args.get("method") or "").upper() == "NATURAL":
            names = self._natural_columns(before, src, join)
        for name in names:
            left = self._lookup_in(before, name, join)
            right_alts = self._from_source(src, name, join)
            for lalt, ralt in itertools.product(left, right_alts):
                self.indirect.append((IndirectType.JOIN, _EQ(this=lalt, expression=ralt)))
            if left:
                left_src = next(s for s in before if s.has(name) is not False)
                scope.using.setdefault(name, left_src)
                if str(join.args.get("side") or "").upper() in ("FULL", "RIGHT"):
                    scope.merged[name] = (scope.merged[name][0] if name in scope.merged else left_src, src)

    def _keep_one_side(self, join: exp.Join, scope: Scope, before: set[str]) -> None:
        """A SEMI / ANTI join: its rows and columns are the left side's (``LEFT``, or no side), or the right
        side's (``RIGHT``, Doris / StarRocks); the other side is read by its ON condition alone. The ON
        conditions of this join and of the earlier ones keep seeing every source they saw."""
        whole = scope.sources
        for j in [*scope.joins, join]:
            scope.on_sources.setdefault(id(j), whole)
        right = str(join.args.get("side") or "").upper() == "RIGHT"
        scope.sources = {key: s for key, s in whole.items() if (key in before) != right}
        scope.bound.clear()

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
