"""Live catalogs: table schemas read from a running database through SQLAlchemy's inspector.

``SqlAlchemyCatalog`` asks the database about one table the first time extraction needs it and
caches the answer (a missing table too). A ``TableRef(catalog, database, name)`` maps to the
backend's schema: ``database`` is the MySQL/Doris database, the PostgreSQL schema or the SQLite
schema (``main``); ``None`` is the connection's default schema. ``catalog`` must be the name the
catalog was opened under (``internal`` unless told otherwise; for PostgreSQL the connected
database's name is accepted too); tables of other catalogs are unknown here.

Column names come back normalised as the database stores them (quoted identifiers of the
dialect: lower-cased in the MySQL family, whose columns are case-insensitive); a view carries its
query as ``view_sql`` in the backend's dialect.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any

import sqlalchemy as sa
import sqlglot
from sqlalchemy.engine import Connection, Engine, Inspector
from sqlglot import exp

from headwater.catalog.base import ColumnSchema, TableSchema
from headwater.catalog.errors import CatalogConnectionError, CatalogError
from headwater.catalog.names import MYSQL_FAMILY, Names, sqlglot_dialect
from headwater.model import TableRef
from headwater.model.secrets import is_sensitive, mask_value

_BACKEND_DIALECTS = {"mysql": "mysql", "mariadb": "mysql", "postgresql": "postgres", "sqlite": "sqlite"}
_SYSTEM_SCHEMAS = {
    "mysql": {"information_schema", "mysql", "performance_schema", "sys", "__internal_schema"},
    "postgresql": {"information_schema"},
}


def mask_url(url: str | sa.URL) -> str:
    """The URL as text with its password replaced by ``***``, in the user part and in the query
    (``?password=…`` and any other sensitive parameter, as ``headwater.model.secrets`` decides).

    >>> mask_url("mysql+pymysql://root:s3cret@db:9030/sales")
    'mysql+pymysql://root:***@db:9030/sales'
    >>> mask_url("postgresql+psycopg://etl@db/sales?password=s3cret&sslmode=require")
    'postgresql+psycopg://etl@db/sales?password=***&sslmode=require'
    >>> mask_url("not a url://u:p@h")
    'not a url://u:***@h'
    """
    try:
        u = url if isinstance(url, sa.URL) else sa.make_url(url)
    except Exception:
        return mask_value(re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", str(url)))
    hidden = {k: "***" for k in u.query if is_sensitive(k)}
    return u.update_query_dict(hidden).render_as_string(hide_password=True).replace("%2A%2A%2A", "***")


def view_query(definition: str, dialect: str) -> str:
    """The query of a view from the definition a backend reports (a ``CREATE VIEW`` or the query).

    A definition sqlglot cannot parse is returned as given (without a trailing semicolon).

    >>> view_query("CREATE ALGORITHM=UNDEFINED VIEW `v` AS select ucase(`t`.`a`) AS `a` from `t`", "mysql")
    'SELECT UPPER(`t`.`a`) AS `a` FROM `t`'
    >>> view_query(" SELECT t.a\\n   FROM t;", "postgres")
    'SELECT t.a\\n   FROM t'
    """
    text = definition.strip().rstrip(";").strip()
    try:
        tree = sqlglot.parse_one(text, read=sqlglot_dialect(dialect))
    except sqlglot.errors.SqlglotError:
        return text
    if isinstance(tree, exp.Create) and isinstance(tree.expression, exp.Query):
        return tree.expression.sql(dialect=sqlglot_dialect(dialect))
    return text


def backend_view_dialect(backend: str, dialect: str) -> str:
    """The dialect a backend writes its view SQL in: the user's own for a MySQL-family dialect over
    the MySQL protocol (Doris, StarRocks), else the backend's.

    >>> backend_view_dialect("mysql", "doris"), backend_view_dialect("postgresql", "doris")
    ('doris', 'postgres')
    """
    if backend in ("mysql", "mariadb") and dialect in MYSQL_FAMILY:
        return dialect
    return _BACKEND_DIALECTS.get(backend, dialect)


def type_text(coltype: Any, dialect: sa.Dialect) -> str | None:
    """A reflected column type as the backend spells it; None when the backend gives none."""
    if isinstance(coltype, sa.types.NullType):
        return None
    try:
        return str(coltype.compile(dialect=dialect))
    except Exception:
        return type(coltype).__name__


def view_names(insp: Inspector, schema: str | None) -> set[str]:
    """Views (and materialized views where the backend has them) of one schema."""
    names = set(insp.get_view_names(schema))
    with contextlib.suppress(NotImplementedError):
        names.update(insp.get_materialized_view_names(schema))
    return names


def reflect_table(
    insp: Inspector, schema: str | None, name: str, is_view: bool, view_dialect: str
) -> TableSchema | None:
    """Columns (names as the backend stores them), and a view's query; None for a missing table."""
    try:
        raw = insp.get_columns(name, schema=schema)
    except sa.exc.NoSuchTableError:
        return None
    dialect = insp.bind.dialect
    columns = tuple(ColumnSchema(c["name"], type_text(c["type"], dialect)) for c in raw)
    view_sql = None
    if is_view:
        try:
            definition = insp.get_view_definition(name, schema=schema)
        except (sa.exc.NoSuchTableError, NotImplementedError):
            definition = None
        if definition:
            view_sql = view_query(definition, view_dialect)
    return TableSchema(columns, view_sql, view_dialect if view_sql is not None else None)


def user_schemas(insp: Inspector, backend: str) -> list[str]:
    """Schema names without the backend's system schemas."""
    system = _SYSTEM_SCHEMAS.get(backend, set())
    return [s for s in insp.get_schema_names() if s not in system and not s.startswith("pg_")]


def create_engine(url: str | sa.URL) -> Engine:
    """An engine for ``url``; a bad URL or a missing driver is a ``CatalogError`` naming the URL."""
    try:
        return sa.create_engine(url, pool_pre_ping=True)
    except ImportError as exc:
        hint = "headwater installs the drivers of mysql+pymysql://, postgresql+psycopg:// and sqlite:///"
        message = f"cannot use catalog URL {mask_url(url)}: driver not installed ({exc}); {hint}"
        raise CatalogError(message) from None
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as exc:
        raise CatalogError(f"cannot use catalog URL {mask_url(url)}: {exc}") from None


def connect(engine: Engine) -> Connection:
    """A connection; failing to connect is a ``CatalogConnectionError`` naming the masked URL."""
    try:
        return engine.connect()
    except sa.exc.DBAPIError as exc:
        message = f"cannot connect to {mask_url(engine.url)}: {reason(exc, engine.url)}"
        raise CatalogConnectionError(message) from None


def reason(exc: BaseException, url: sa.URL) -> str:
    """The driver's message of ``exc``, on one line, with the URL's password scrubbed."""
    text = " ".join(str(getattr(exc, "orig", None) or exc).split())
    secrets = [str(url.password)] if url.password else []
    for key, value in url.query.items():
        if is_sensitive(key):
            secrets.extend([value] if isinstance(value, str) else value)
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return mask_value(text)


class SqlAlchemyCatalog:
    """A live database as a catalog, read lazily per table, cached, safe to share between threads.

    >>> import sqlite3, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "db.sqlite")
    >>> with sqlite3.connect(path) as db:
    ...     _ = db.execute("CREATE TABLE Orders (ID INTEGER, Amount DECIMAL(10, 2))")
    >>> with SqlAlchemyCatalog(f"sqlite:///{path}", dialect="sqlite") as cat:
    ...     cat.table(TableRef("internal", None, "orders")).columns
    (ColumnSchema(name='id', type='INTEGER'), ColumnSchema(name='amount', type='DECIMAL(10, 2)'))
    >>> import shutil; shutil.rmtree(os.path.dirname(path))
    """

    def __init__(self, url: str | sa.URL, dialect: str = "doris", *, catalog: str = "internal") -> None:
        self.dialect = dialect
        self.names = Names.for_dialect(dialect)
        self.engine = create_engine(url)
        self.url = mask_url(self.engine.url)
        backend = self.engine.dialect.name
        self.backend = backend
        self.view_dialect = backend_view_dialect(backend, dialect)
        self.catalogs = {catalog}
        if backend == "postgresql" and self.engine.url.database:
            self.catalogs.add(self.engine.url.database)
        self._lock = threading.Lock()
        self._meta_lock = threading.Lock()
        self._tables: dict[TableRef, TableSchema | None] = {}
        self._pending: dict[TableRef, threading.Lock] = {}
        self._schemas: set[str] | None = None
        self._default_schema: str | None = None
        self._views: dict[str | None, set[str]] = {}
        self._listed: dict[str, set[str]] = {}

    def __repr__(self) -> str:
        return f"SqlAlchemyCatalog({self.url!r}, dialect={self.dialect!r})"

    def __enter__(self) -> SqlAlchemyCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the engine's connections (the cache stays)."""
        self.engine.dispose()

    def check(self) -> None:
        """Connect once, so that a wrong URL fails now with a ``CatalogConnectionError``."""
        connect(self.engine).close()

    def clear(self) -> None:
        """Forget every cached answer."""
        with self._lock, self._meta_lock:
            self._tables.clear()
            self._schemas = None
            self._views.clear()
            self._listed.clear()

    def table(self, ref: TableRef) -> TableSchema | None:
        with self._lock:
            if ref in self._tables:
                return self._tables[ref]
            key_lock = self._pending.setdefault(ref, threading.Lock())
        with key_lock:  # one reader per table; the others wait for its answer
            with self._lock:
                if ref in self._tables:
                    return self._tables[ref]
            found = self._read(ref)
            with self._lock:
                self._tables[ref] = found
                self._pending.pop(ref, None)
        return found

    def _read(self, ref: TableRef) -> TableSchema | None:
        if ref.catalog not in self.catalogs:
            return None
        with connect(self.engine) as conn:
            try:
                insp = sa.inspect(conn)
                schema = ref.database
                schemas, default = self._schema_info(insp)
                if schema is None and default is None:
                    return None  # no default database to look in
                if schema is not None and schema not in schemas:
                    return None
                is_view = ref.name in self._view_set(insp, schema)
                found = reflect_table(insp, schema, ref.name, is_view, self.view_dialect)
            except sa.exc.DBAPIError as exc:
                message = f"cannot read {ref} from {self.url}: {reason(exc, self.engine.url)}"
                raise CatalogError(message) from None
        if found is None:
            return None
        columns = tuple(ColumnSchema(self.names.column(c.name, True), c.type) for c in found.columns)
        return TableSchema(columns, found.view_sql, found.view_dialect)

    def table_names(self, catalog: str, database: str) -> set[str] | None:
        """The tables and views of schema ``database`` (None: not this catalog's, or unreadable), for
        ``headwater.catalog.listing``: what tells a mistyped table from one not described."""
        if catalog not in self.catalogs:
            return None
        with self._meta_lock:
            cached = self._listed.get(database)
        if cached is not None:
            return cached
        try:
            with connect(self.engine) as conn:
                insp = sa.inspect(conn)
                schemas, _ = self._schema_info(insp)
                if database not in schemas:
                    return None
                found = {*insp.get_table_names(schema=database), *self._view_set(insp, database)}
        except (sa.exc.DBAPIError, CatalogError):
            return None
        names = {self.names.dataset(n, True) for n in found}
        with self._meta_lock:
            self._listed[database] = names
        return names

    def _schema_info(self, insp: Inspector) -> tuple[set[str], str | None]:
        with self._meta_lock:
            if self._schemas is None:
                self._default_schema = insp.default_schema_name
                self._schemas = set(insp.get_schema_names())
            return self._schemas, self._default_schema

    def _view_set(self, insp: Inspector, schema: str | None) -> set[str]:
        with self._meta_lock:
            if schema not in self._views:
                self._views[schema] = view_names(insp, schema)
            return self._views[schema]
