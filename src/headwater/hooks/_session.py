"""What a hook knows about a connection: user, session database, client address, dialect, and the
statement text in a form extraction can parse.

>>> normalise_placeholders("SELECT a FROM t WHERE b = %s AND c = %(c)s AND d LIKE 'x%%'")
"SELECT a FROM t WHERE b = ? AND c = ? AND d LIKE 'x%'"
>>> use_target("  USE `sales`"), use_target("USE sales;"), use_target("user_table")
('sales', 'sales', None)
"""

from __future__ import annotations

import re
import socket
import time
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from headwater.extract import RunInfo
from headwater.model.ol_naming import NAMESPACE_PROPERTY, PREFIX_PROPERTY, Place

_PLACEHOLDER = re.compile(r"%%|%s|%\([^)]*\)s")
_USE = re.compile(r"\s*use\s+[`\"]?([^`\"\s;]+)[`\"]?\s*;?\s*$", re.I)

now = time.perf_counter  # the clock of statement durations

SQLALCHEMY_DIALECTS = {"sqlite": "sqlite", "mysql": "mysql", "mariadb": "mysql", "postgresql": "postgres"}


def normalise_placeholders(sql: str) -> str:
    """``format`` / ``pyformat`` placeholders as ``?`` and ``%%`` as ``%`` (the driver's own reading)."""
    if "%" not in sql:
        return sql
    return _PLACEHOLDER.sub(lambda m: "%" if m.group(0) == "%%" else "?", sql)


def use_target(sql: str) -> str | None:
    """The database a ``USE db`` statement switches to, else None."""
    m = _USE.match(sql)
    return m.group(1) if m else None


def statement_text(statement: Any, connection: Any = None) -> str:
    """A statement as text: str as is, bytes decoded, psycopg ``sql.Composable`` rendered."""
    if isinstance(statement, str):
        return statement
    if isinstance(statement, bytes | bytearray):
        return bytes(statement).decode("utf-8", "replace")
    as_string = getattr(statement, "as_string", None)
    if callable(as_string):
        return str(as_string(connection))
    return str(statement)


def error_message(exc: BaseException) -> str:
    """The database's message of a rejected statement, one line per line of it.

    >>> error_message(ValueError(1146, "Table 'test.nowhere' doesn't exist"))
    "1146: Table 'test.nowhere' doesn't exist"
    """
    args = [str(a) for a in getattr(exc, "args", ()) if a is not None]
    text = ": ".join(args) if len(args) > 1 else (args[0] if args else "")
    return text.strip() or type(exc).__name__


@dataclass(slots=True)
class Session:
    """Facts about one connection; ``database`` follows successful ``USE`` statements (MySQL family)."""

    dialect: str
    user: str | None = None
    database: str | None = None
    client_ip: str | None = None
    tracks_use: bool = False
    properties: dict[str, str] = field(default_factory=dict)
    """What the connection tells besides: its OpenLineage namespace (``openlineage_properties``)."""

    def run_info(self, started: float, ended: float) -> RunInfo:
        """A fresh query id, the current time and the statement's duration."""
        return RunInfo(
            query_id=uuid.uuid4().hex,
            user=self.user,
            client_ip=self.client_ip,
            database=self.database,
            timestamp=datetime.now(UTC).isoformat(timespec="milliseconds"),
            duration_ms=int((ended - started) * 1000),
            external_catalog_properties=dict(self.properties),
        )

    def after(self, sql: str) -> None:
        """Follow the session state a successful statement changed."""
        if self.tracks_use:
            db = use_target(sql)
            if db is not None:
                self.database = db

    def with_database(self, database: str | None) -> Session:
        return replace(self, database=database) if database is not None else self


def _local_ip(sock: socket.socket | None) -> str | None:
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return None
    try:
        return str(sock.getsockname()[0])
    except OSError:
        return None


def _psycopg_ip(conn: Any) -> str | None:
    try:
        fd = conn.pgconn.socket
        with socket.socket(fileno=socket.dup(fd)) as sock:
            return _local_ip(sock)
    except Exception:
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def openlineage_properties(place: Place | None) -> dict[str, str]:
    """The event properties naming a connection's OpenLineage place (a namespace, and a name prefix
    such as the PostgreSQL database); ``[openlineage.namespaces]`` settings win over them.

    >>> openlineage_properties(Place("postgres://db:5432", "shop"))
    {'headwater.openlineage.namespace': 'postgres://db:5432', 'headwater.openlineage.prefix': 'shop'}
    """
    if place is None:
        return {}
    out = {NAMESPACE_PROPERTY: place.namespace}
    if place.prefix:
        out[PREFIX_PROPERTY] = place.prefix
    return out


def engine_properties(engine: str, version: str | None) -> dict[str, str]:
    """The event properties naming the engine a connection speaks to (PostgreSQL and SQLite only:
    a MySQL-protocol server may be MySQL, MariaDB, Doris or StarRocks, which the plugin's ``engine``
    setting tells)."""
    out = {"headwater.engine": engine}
    if version:
        out["headwater.engine.version"] = version
    return out


def _pg_version(info: Any) -> str | None:
    """``160002`` → ``16.2`` (PostgreSQL 10 and later: major * 10000 + minor)."""
    try:
        v = int(info.server_version)
    except (TypeError, ValueError, AttributeError):
        return None
    return f"{v // 10000}.{v % 10000}" if v >= 100000 else None


def session_of(conn: Any, default_schema: str | None = None) -> Session:
    """The facts of a sqlite3, pymysql or psycopg connection (``default_schema`` for PostgreSQL)."""
    module = type(conn).__module__.split(".")[0]
    if module == "sqlite3":
        import sqlite3

        return Session("sqlite", database="main", properties=engine_properties("sqlite", sqlite3.sqlite_version))
    if module == "pymysql":
        host, port = getattr(conn, "host", None), getattr(conn, "port", None)
        place = Place(f"mysql://{host}:{port or 3306}") if host and not str(host).startswith("/") else None
        return Session(
            "mysql",
            user=_text(conn.user),
            database=_text(conn.db),
            client_ip=_local_ip(getattr(conn, "_sock", None)),
            tracks_use=True,
            properties=openlineage_properties(place),
        )
    if module == "psycopg":
        info = conn.info
        host = info.host if info.host and not info.host.startswith("/") else None
        place = Place(f"postgres://{host}:{info.port or 5432}", info.dbname or None) if host else None
        return Session(
            "postgres",
            user=info.user,
            database=default_schema or "public",
            client_ip=_psycopg_ip(conn),
            properties={**openlineage_properties(place), **engine_properties("postgres", _pg_version(info))},
        )
    raise TypeError(f"unsupported DB-API connection {type(conn).__module__}.{type(conn).__qualname__}")
