"""DDL and USE: how a script changes the catalog and the session for the statements after it.

>>> import sqlglot
>>> from headwater.catalog import LayeredCatalog, Names
>>> cat, names = LayeredCatalog(), Names.for_dialect("doris")
>>> s = Session("internal", None)
>>> apply_statement(sqlglot.parse_one("USE shop", read="doris"), cat, names, s)
>>> apply_statement(sqlglot.parse_one("CREATE TABLE t (a INT, b VARCHAR(3))", read="doris"), cat, names, s)
>>> cat.table(s.ref("t")).column_names
('a', 'b')
>>> apply_statement(sqlglot.parse_one("ALTER TABLE t RENAME COLUMN b c", read="doris"), cat, names, s)
>>> cat.table(s.ref("t")).column_names
('a', 'c')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from headwater.catalog import ColumnSchema, LayeredCatalog, Names, TableSchema
from headwater.extract.exchange import table_renames
from headwater.extract.trees import sql_text
from headwater.model import TableRef
from headwater.model.storage import without_userinfo


@dataclass
class Session:
    """The session state that statements change: current catalog and database."""

    catalog: str
    database: str | None
    temp_views: dict[str, TableSchema] = field(default_factory=dict)  # session-scoped, not in a database

    def ref(self, name: str, database: str | None = None, catalog: str | None = None) -> TableRef:
        catalog, database = catalog or self.catalog, database or self.database
        if "@" in name or "@" in catalog or (database is not None and "@" in database):  # `s3://K:S@b`.t
            name, catalog = without_userinfo(name), without_userinfo(catalog)
            database = without_userinfo(database) if database is not None else None
        return TableRef(catalog, database, name)


def table_ref(node: exp.Table, names: Names, session: Session) -> TableRef:
    return session.ref(
        names.dataset_ident(node.this) or "",
        names.dataset_ident(node.args.get("db")),
        names.dataset_ident(node.args.get("catalog")),
    )


def _column_defs(schema: exp.Schema, names: Names, tree: exp.Create | None = None) -> tuple[ColumnSchema, ...]:
    """The declared columns, then Hive-style ``PARTITIONED BY (dt STRING)`` columns."""
    defs = list(schema.expressions)
    props = tree.args.get("properties") if tree is not None else None
    for p in props.expressions if props is not None else ():
        if isinstance(p, exp.PartitionedByProperty) and isinstance(p.this, exp.Schema):
            defs.extend(p.this.expressions)
    cols = []
    for c in defs:
        if isinstance(c, exp.ColumnDef):
            kind = c.args.get("kind")
            name = names.column_ident(c.this) or ""
            if name not in {x.name for x in cols}:
                cols.append(ColumnSchema(name, sql_text(kind, names.dialect) if kind else None))
    return tuple(cols)


def _bind_tables(query: exp.Expression, session: Session) -> exp.Expression:
    """The view's query with unqualified tables bound to the session database of its creation."""
    if session.database is None:
        return query
    ctes = {c.alias_or_name.lower() for c in query.find_all(exp.CTE)} | {v.lower() for v in session.temp_views}
    bound = query.copy()
    for t in bound.find_all(exp.Table):
        if isinstance(t.this, exp.Identifier) and not t.args.get("db") and t.name.lower() not in ctes:
            t.set("db", exp.to_identifier(session.database, quoted=True))
    return bound


def is_temporary(tree: exp.Create) -> bool:
    props = tree.args.get("properties")
    return bool(tree.args.get("temporary")) or any(
        isinstance(p, exp.TemporaryProperty) for p in (props.expressions if props is not None else ())
    )


def _options(tree: exp.Create) -> tuple[tuple[str, str], ...]:
    """The connector options of a table on an external system (Flink ``WITH ('connector' = …)``).

    Storage properties of internal tables (Doris ``PROPERTIES ("replication_num" = "1")``) are
    not external-catalog properties and are not kept.
    """
    props = tree.args.get("properties")
    out = []
    for p in props.expressions if props is not None else ():
        if type(p) is exp.Property and isinstance(p.this, exp.Literal) and isinstance(p.args.get("value"), exp.Literal):
            out.append((p.this.name, p.args["value"].name))
    return tuple(out) if any(k.lower() == "connector" for k, _ in out) else ()


def apply_statement(tree: exp.Expression, catalog: LayeredCatalog, names: Names, session: Session) -> None:
    """Apply USE / CREATE / DROP / ALTER to the catalog and session (other statements: no-op)."""
    dialect = names.dialect or None
    if isinstance(tree, exp.Use):
        kind = str(tree.args.get("kind") or "").upper()
        target = tree.this
        if kind in ("CATALOG",) and target is not None:
            session.catalog = (
                names.dataset_ident(target.this if isinstance(target, exp.Table) else target) or session.catalog
            )
        elif isinstance(target, exp.Table):
            db = names.dataset_ident(target.this)
            if target.args.get("db") is not None:  # USE catalog.db
                session.catalog = names.dataset_ident(target.args["db"]) or session.catalog
            session.database = db
        return
    if isinstance(tree, exp.Create):
        kind = str(tree.args.get("kind") or "").upper()
        target = tree.this
        if kind == "TABLE":
            if isinstance(target, exp.Schema) and isinstance(target.this, exp.Table):
                catalog.put(
                    table_ref(target.this, names, session),
                    TableSchema(
                        _column_defs(target, names, tree),
                        properties=_options(tree),
                        tentative=bool(tree.args.get("exists")),
                    ),
                )
            elif isinstance(target, exp.Table):
                like = next((p for p in tree.find_all(exp.LikeProperty)), None)
                if like is not None and isinstance(like.this, exp.Table):
                    src = catalog.table(table_ref(like.this, names, session))
                    if src is not None:
                        catalog.put(table_ref(target, names, session), TableSchema(src.columns))
        elif kind == "VIEW":
            table = target.this if isinstance(target, exp.Schema) else target
            if isinstance(table, exp.Table) and tree.expression is not None:
                cols: tuple[ColumnSchema, ...] = ()
                if isinstance(target, exp.Schema):
                    cols = tuple(
                        ColumnSchema(names.column_ident(c.this if isinstance(c, exp.ColumnDef) else c) or "")
                        for c in target.expressions
                    )
                query = _bind_tables(tree.expression, session)
                schema = TableSchema(cols, view_sql=sql_text(query, names.dialect), view_dialect=names.dialect)
                if is_temporary(tree) and table.args.get("db") is None:
                    session.temp_views[names.table_ident(table.this) or ""] = schema
                else:
                    catalog.put(table_ref(table, names, session), schema)
        return
    if isinstance(tree, exp.Drop):
        kind = str(tree.args.get("kind") or "").upper()
        if kind in ("TABLE", "VIEW"):
            for table in tree.args.get("tables") or [tree.this]:
                if isinstance(table, exp.Table):
                    catalog.drop(table_ref(table, names, session))
        return
    if isinstance(tree, exp.Command) and str(tree.this).upper() == "ALTER":
        _doris_rename(str(tree.expression or ""), catalog, names, session)
        return
    renames = table_renames(tree, dialect)
    if renames:  # ALTER TABLE a RENAME TO b, RENAME TABLE a TO b: b has a's columns, a is gone
        for old, new in renames:
            old_ref, new_ref = table_ref(old, names, session), table_ref(new, names, session)
            current = catalog.table(old_ref)
            if current is not None:
                catalog.put(new_ref, current)
                catalog.drop(old_ref)
        return
    if isinstance(tree, exp.Alter) and isinstance(tree.this, exp.Table):
        ref = table_ref(tree.this, names, session)
        current = catalog.table(ref)
        if current is None:
            return
        cols = list(current.columns)
        for action in tree.args.get("actions") or []:
            cols = _alter_columns(action, cols, names)
        catalog.put(ref, TableSchema(tuple(cols), current.view_sql, current.view_dialect, tentative=current.tentative))


_DORIS_RENAME = re.compile(
    r"^\s*TABLE\s+(?P<table>[`\w.]+)\s+RENAME\s+COLUMN\s+(?P<old>`[^`]+`|\w+)\s+(?P<new>`[^`]+`|\w+)\s*$",
    re.IGNORECASE,
)


def _doris_rename(text: str, catalog: LayeredCatalog, names: Names, session: Session) -> None:
    """Doris' ``ALTER TABLE t RENAME COLUMN old new`` (no TO), which sqlglot leaves unparsed."""
    m = _DORIS_RENAME.match(text)
    if m is None:
        return
    parts = [p.strip("`") for p in m["table"].split(".")]
    table = exp.Table(
        this=exp.to_identifier(parts[-1]),
        db=exp.to_identifier(parts[-2]) if len(parts) > 1 else None,
    )
    rename = exp.RenameColumn(this=exp.to_identifier(m["old"].strip("`")), to=exp.to_identifier(m["new"].strip("`")))
    apply_statement(exp.Alter(this=table, kind="TABLE", actions=[rename]), catalog, names, session)


def _alter_columns(action: exp.Expression, cols: list[ColumnSchema], names: Names) -> list[ColumnSchema]:
    if isinstance(action, exp.ColumnDef):  # ADD COLUMN
        kind = action.args.get("kind")
        return [
            *cols,
            ColumnSchema(names.column_ident(action.this) or "", sql_text(kind, names.dialect) if kind else None),
        ]
    if isinstance(action, exp.Schema):  # ADD COLUMN (a INT, b INT)
        for c in action.expressions:
            cols = _alter_columns(c, cols, names)
        return cols
    if isinstance(action, exp.Drop):
        dropped = {
            names.column_ident(e.this if isinstance(e, exp.Column) else e) for e in action.find_all(exp.Identifier)
        }
        return [c for c in cols if c.name not in dropped]
    if isinstance(action, exp.RenameColumn):
        old = names.column_ident(action.this.this if isinstance(action.this, exp.Column) else action.this)
        new = names.column_ident(
            action.args["to"].this if isinstance(action.args["to"], exp.Column) else action.args["to"]
        )
        return [ColumnSchema(new or c.name, c.type) if c.name == old else c for c in cols]
    return cols
