"""Where a statement names a storage path, and which dataset it is (``headwater.model.storage``).

- read: Spark / Databricks file sources (``parquet.`s3://b/p` ``, ``csv.`/tmp/x.csv` ``), Doris
  ``S3('uri' = …)`` / ``HDFS('uri' = …)`` and ClickHouse ``s3('…')`` / ``hdfs('…')`` table functions,
  DuckDB ``read_parquet('…')`` / ``read_csv('…')`` / ``read_json('…')`` and a quoted path in FROM;
- write: Hive / Spark ``INSERT OVERWRITE [LOCAL] DIRECTORY '…' SELECT …``;
- both: ``COPY`` (``copy_moves``) and Redshift ``UNLOAD ('select …') TO '…'`` (``unload_parts``).

>>> import sqlglot
>>> t = sqlglot.parse_one("SELECT a FROM parquet.`s3://b/p`", read="spark").find(exp.Table)
>>> table_storage(t, "spark")
TableRef(catalog='s3://b', database=None, name='p')
>>> table_storage(sqlglot.parse_one("SELECT a FROM parquet.`out/p/`", read="spark").find(exp.Table), "spark")
TableRef(catalog='hdfs://', database=None, name='out/p/')
>>> unload_parts("('select a from t where d = ''x''') TO 's3://b/out/' IAM_ROLE 'r'")
("select a from t where d = 'x'", 's3://b/out/')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from headwater.model import TableRef
from headwater.model.storage import storage_ref

FILE_FORMATS = frozenset(
    {"parquet", "orc", "csv", "json", "avro", "text", "delta", "binaryfile", "iceberg", "hudi", "xml"}
)
"""Spark's ``format.`path` `` sources."""
_PATH_FUNCTIONS = frozenset({"S3", "HDFS", "GCS", "AZUREBLOBSTORAGE", "URL", "FILE"})
"""Table functions that read a path: Doris ``S3('uri' = …)``, ClickHouse ``s3('…', 'CSV')``…"""
_URI_KEYS = ("uri", "path", "url", "file_path")
_READ_CLASSES = tuple(getattr(exp, name) for name in ("ReadParquet", "ReadCSV", "ReadJSON") if hasattr(exp, name))
_UNLOAD = re.compile(r"^\s*\(\s*'((?:[^']|'')*)'\s*\)\s*TO\s*'((?:[^']|'')*)'", re.I | re.S)


def default_scheme(dialect: str | None) -> str | None:
    """The file system of an absolute path without a scheme: the cluster's (``hdfs://``, DBFS on
    Databricks) where the engine runs on one, the local file system else."""
    if dialect == "databricks":
        return "dbfs"
    if dialect in ("hive", "spark", "spark2"):
        return "hdfs"
    return None


def path_ref(node: exp.Expression | None, dialect: str | None) -> TableRef | None:
    """The dataset a string literal names as a path, or None (not a literal, not a path)."""
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Literal):  # Snowflake's 's3://…'
        node = node.this
    if not (isinstance(node, exp.Literal) and node.is_string):
        return None
    return storage_ref(node.name, default_scheme(dialect))


def table_storage(node: exp.Table, dialect: str | None) -> TableRef | None:
    """The storage dataset a FROM item reads, or None when it is no storage path."""
    this = node.this
    if isinstance(this, exp.Identifier):
        db = node.args.get("db")
        path = this.name
        if this.args.get("quoted") and ("/" in path or "://" in path):
            if db is None and dialect == "duckdb":  # FROM 's3://b/x.parquet'
                return storage_ref(path)
            if db is not None and db.name.lower() in FILE_FORMATS and node.args.get("catalog") is None:
                return storage_ref(path, default_scheme(dialect)) or relative_path_ref(path, dialect)
        return None
    if _READ_CLASSES and isinstance(this, _READ_CLASSES):
        first = this.this if this.this is not None else (this.expressions or [None])[0]
        return path_ref(first, dialect)
    if isinstance(this, exp.Anonymous) and str(this.this).upper() in _PATH_FUNCTIONS:
        return _function_path(this, dialect)
    if isinstance(this, exp.Anonymous) and str(this.this).lower().startswith("read_"):  # DuckDB read_json_auto…
        return path_ref((this.expressions or [None])[0], dialect)
    return None


def is_external_query(node: exp.Expression | None) -> bool:
    """BigQuery ``EXTERNAL_QUERY('connection', 'SELECT …')`` in FROM (a federated query)."""
    return isinstance(node, exp.Anonymous) and str(node.this).upper() == "EXTERNAL_QUERY"


def parse_external(sql: str) -> exp.Expression | None:
    """The query of an ``EXTERNAL_QUERY``, read as MySQL, then as PostgreSQL (Cloud SQL's engines);
    None when neither reads one query.

    >>> parse_external("SELECT uid FROM fxa.accounts").sql()
    'SELECT uid FROM fxa.accounts'
    """
    import sqlglot
    from sqlglot.errors import ParseError

    for dialect in ("mysql", "postgres"):
        try:
            trees = sqlglot.parse(sql, read=dialect)
        except (ParseError, ValueError):
            continue
        trees = [t for t in trees if t is not None]
        if len(trees) == 1 and isinstance(trees[0], exp.Query):
            return trees[0]
    return None


def relative_path_ref(path: str, dialect: str | None) -> TableRef:
    """A relative path read as a dataset (Spark ``parquet.`relative/path/` ``): the engine resolves it
    against its working directory, unknown here, so it stays relative (no leading slash) on the
    engine's default file system.

    >>> relative_path_ref("data/events/", "spark")
    TableRef(catalog='hdfs://', database=None, name='data/events/')
    """
    return TableRef(f"{default_scheme(dialect) or 'file'}://", None, path.strip().removeprefix("./"))


def _function_path(func: exp.Anonymous, dialect: str | None) -> TableRef | None:
    """Doris ``S3('uri' = 's3://…', …)``, or a positional path (ClickHouse ``s3('https://…')``)."""
    named = {
        str(a.this.name).lower(): a.expression
        for a in func.expressions
        if isinstance(a, exp.EQ) and isinstance(a.this, exp.Literal)
    }
    for key in _URI_KEYS:
        if key in named:
            return path_ref(named[key], dialect)
    if func.expressions and not named:
        return path_ref(func.expressions[0], dialect)
    return None


def directory_ref(node: exp.Directory, dialect: str | None) -> TableRef | None:
    """The dataset ``INSERT OVERWRITE [LOCAL] DIRECTORY 'path'`` writes: a LOCAL path is on the
    local file system, another one without a scheme on the cluster's (``default_scheme``); a relative
    one (or a script variable, ``'${out}'``) stays as written on that file system.

    >>> import sqlglot
    >>> directory_ref(sqlglot.parse_one("INSERT OVERWRITE DIRECTORY 'out/d' SELECT 1", read="hive").this, "hive")
    TableRef(catalog='hdfs://', database=None, name='out/d')
    """
    if not (isinstance(node.this, exp.Literal) and node.this.is_string and node.this.name.strip()):
        return None
    scheme = "file" if node.args.get("local") else default_scheme(dialect) or "hdfs"
    path = node.this.name
    return storage_ref(path, scheme) or TableRef(f"{scheme}://", None, path.strip().removeprefix("./"))


@dataclass(frozen=True, slots=True)
class CopyMove:
    """What a ``COPY`` moves: into ``table`` (with its column list) from ``path``, or out of
    ``query`` (a table or a query) into ``path``."""

    path: TableRef
    table: exp.Table | None = None
    columns: tuple[exp.Expression, ...] = ()
    query: exp.Query | None = None


def copy_move(tree: exp.Copy, dialect: str | None) -> CopyMove | None:
    """The move of a COPY whose path is a dataset; None for a stage, ``STDIN``, a program.

    Forms: PostgreSQL / Redshift / DuckDB ``COPY t [(c, …)] FROM 'path'`` and ``COPY t | (SELECT …)
    TO 'path'``; Snowflake ``COPY INTO t FROM 's3://…'`` and ``COPY INTO 's3://…' FROM t | (SELECT …)``.
    """
    this = tree.this
    files = list(tree.args.get("files") or [])
    into_path = path_ref(this, dialect)
    if into_path is not None:  # Snowflake: COPY INTO 's3://…' FROM t | (SELECT …)
        source = files[0] if len(files) == 1 else None
        query = _query_of(source)
        return CopyMove(into_path, query=query) if query is not None else None
    paths = [p for p in (path_ref(f, dialect) for f in files) if p is not None]
    if len(paths) != 1 or len(files) != 1:
        return None
    if tree.args.get("kind"):  # FROM: the path's rows into the table
        columns: tuple[exp.Expression, ...] = ()
        if isinstance(this, exp.Schema):
            columns = tuple(this.expressions)
            this = this.this
        return CopyMove(paths[0], table=this, columns=columns) if isinstance(this, exp.Table) else None
    query = _query_of(this)  # TO: the table's or the query's rows into the path
    return CopyMove(paths[0], query=query) if query is not None else None


def _query_of(node: exp.Expression | None) -> exp.Query | None:
    if isinstance(node, exp.Subquery):
        return node.this if isinstance(node.this, exp.Query) else None
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
        return exp.select("*").from_(node.copy())
    return None


def unload_parts(text: str) -> tuple[str, str] | None:
    """Redshift ``UNLOAD ('query') TO 'path' …`` (the text after ``UNLOAD``): the query and the path."""
    m = _UNLOAD.match(text)
    if m is None:
        return None
    return m.group(1).replace("''", "'"), m.group(2).replace("''", "'")
