"""Pass 1b: what each statement is, and whether the guide's rules let it make an event.

>>> import sqlglot
>>> kind_of(sqlglot.parse_one("INSERT INTO t VALUES (1)")).skip
'values-insert: an INSERT … VALUES reads no table (Doris makes no event)'
>>> kind_of(sqlglot.parse_one("INSERT OVERWRITE TABLE t SELECT a FROM s", read="hive")).command.value
'InsertOverwriteTableCommand'
>>> kind_of(sqlglot.parse_one("CREATE TABLE t AS SELECT a FROM s")).name
'ctas'
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from headwater.model import SourceCommand

SKIP_SELECT = "select: a query writes no table (Doris makes no event; --statements all records it)"
SKIP_VALUES = "values-insert: an INSERT … VALUES reads no table (Doris makes no event)"
SKIP_NO_TABLE = "no-source-table: the INSERT's query reads no table (Doris makes no event)"
SKIP_INTERNAL = "internal-schema: writes to __internal_schema make no event"
SKIP_DDL = "ddl: updates the catalog for later statements; makes no event"
SKIP_USE = "use: sets the session database for later statements; makes no event"


def skip_unsupported(name: str) -> str:
    return f"{name}: not an INSERT … SELECT, INSERT OVERWRITE … SELECT or CREATE TABLE AS SELECT (Doris makes no event)"


# Statements sqlglot may not parse but that never make lineage: skipped, not failed.
NON_LINEAGE_COMMANDS = {
    "LOAD",
    "COPY",
    "SET",
    "SHOW",
    "DESC",
    "DESCRIBE",
    "EXPLAIN",
    "ANALYZE",
    "GRANT",
    "REVOKE",
    "ADMIN",
    "KILL",
    "CANCEL",
    "REFRESH",
    "SYNC",
    "BACKUP",
    "RESTORE",
    "EXPORT",
    "STOP",
    "RESUME",
    "PAUSE",
    "INSTALL",
    "UNINSTALL",
    "RECOVER",
    "CLEAN",
    "HELP",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "START",
    "TRUNCATE",
    "OPTIMIZE",
    "VACUUM",
    "MSCK",
    "CALL",
    "STREAMING",
}


def command_word(sql: str) -> str:
    r"""The first keyword of a statement, comments skipped.

    >>> command_word("-- a load\n  load label x (DATA INFILE ...)")
    'LOAD'
    """
    for line in sql.splitlines():
        text = line.strip()
        if text and not text.startswith(("--", "#", "/*")):
            return text.split(None, 1)[0].upper().rstrip(";")
    return ""


@dataclass(frozen=True, slots=True)
class Kind:
    """``name``: insert, ctas, ddl, use, view, select, other. ``skip`` is set when no event can come."""

    name: str
    command: SourceCommand | None = None
    skip: str | None = None


def select_into_as_ctas(tree: exp.Expression) -> exp.Expression:
    """``SELECT … INTO t FROM …`` (PostgreSQL, T-SQL, Redshift) as the ``CREATE TABLE t AS SELECT …`` it is.

    Other statements, and ``SELECT … INTO`` a variable or a file, are returned as they are.

    >>> import sqlglot
    >>> select_into_as_ctas(sqlglot.parse_one("SELECT a INTO t2 FROM s", read="postgres")).sql()
    'CREATE TABLE t2 AS SELECT a FROM s'
    """
    into = tree.args.get("into") if isinstance(tree, exp.Select) else None
    if into is None or not isinstance(into.this, exp.Table) or not isinstance(into.this.this, exp.Identifier):
        return tree
    query = tree.copy()
    query.set("into", None)
    return exp.Create(this=into.this.copy(), kind="TABLE", expression=query, temporary=bool(into.args.get("temporary")))


def clone_as_ctas(tree: exp.Expression) -> exp.Expression:
    """``CREATE TABLE b [SHALLOW | DEEP] CLONE a`` (Snowflake, BigQuery, Databricks) copies a's rows:
    lineage as for ``CREATE TABLE b AS SELECT * FROM a``. Other statements are returned as they are.

    >>> import sqlglot
    >>> clone_as_ctas(sqlglot.parse_one("CREATE TABLE b CLONE db.a", read="snowflake")).sql()
    'CREATE TABLE b AS SELECT * FROM db.a'
    """
    clone = tree.args.get("clone") if isinstance(tree, exp.Create) else None
    if clone is None or not isinstance(clone.this, exp.Table):
        return tree
    source = clone.this.copy()
    for key in ("when", "version"):  # time travel (AT / BEFORE) reads the same table
        source.set(key, None)
    query = exp.select("*").from_(source)
    return exp.Create(this=tree.this.copy(), kind="TABLE", expression=query, replace=tree.args.get("replace"))


def kind_of(tree: exp.Expression) -> Kind:
    if isinstance(tree, exp.Insert):
        query = tree.expression
        command = SourceCommand.INSERT_OVERWRITE if tree.args.get("overwrite") else SourceCommand.INSERT_INTO
        if isinstance(query, exp.Values) or (isinstance(query, exp.Subquery) and isinstance(query.this, exp.Values)):
            if any(isinstance(t.this, exp.Identifier) for t in query.find_all(exp.Table)):
                return Kind("insert", command)  # ``VALUES ((SELECT MAX(x) FROM t), 1)`` reads a table
            return Kind("insert", command, SKIP_VALUES)
        if isinstance(query, exp.Query):
            return Kind("insert", command)
        return Kind("insert", command, skip_unsupported("INSERT without a query"))
    if isinstance(tree, exp.Create):
        kind = str(tree.args.get("kind") or "").upper()
        if kind == "TABLE" and isinstance(tree.expression, exp.Query):
            return Kind("ctas", SourceCommand.CREATE_TABLE)
        if kind == "VIEW" and isinstance(tree.expression, exp.Query) and tree.find(exp.MaterializedProperty):
            return Kind("mv", SourceCommand.CREATE_MATERIALIZED_VIEW)  # its rows are the query's, stored
        if kind == "VIEW":
            return Kind("view", None, SKIP_DDL)
        return Kind("ddl", None, SKIP_DDL)
    if isinstance(tree, exp.Drop | exp.Alter):
        return Kind("ddl", None, SKIP_DDL)
    if isinstance(tree, exp.Use):
        return Kind("use", None, SKIP_USE)
    if isinstance(tree, exp.Query):
        return Kind("select", None, SKIP_SELECT)
    if isinstance(tree, exp.Update | exp.Delete | exp.Merge):
        return Kind(tree.key, None, skip_unsupported(tree.key.upper()))
    if isinstance(tree, exp.Command):
        return Kind("other", None, skip_unsupported(str(tree.this).upper()))
    return Kind("other", None, skip_unsupported(tree.key.upper()))
