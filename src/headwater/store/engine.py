"""Engines for store URLs: SQLite (WAL, immediate write transactions) and PostgreSQL.

>>> default_url().startswith("sqlite:///") or "HEADWATER_STORE" in __import__("os").environ
True
>>> normalise_url("lineage.db")
'sqlite:///lineage.db'
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool

DEFAULT_PATH = Path.home() / ".headwater" / "lineage.db"
ENV_VAR = "HEADWATER_STORE"

SQLITE_POOL = (5, 3)
"""SQLite connections per engine: kept open, and more at peaks. One of them writes at a time (the
write lock and ``BEGIN IMMEDIATE``); the others read beside it (WAL)."""
SQLITE_CACHE_KIB = 16384
"""Each SQLite connection's private page cache (KiB): with the pool's bound, the server's page
caches stay under 8 x 16 MB. (A 64 MB cache per connection and up to 15 connections made a busy
server grow by up to a gigabyte; the operating system's file cache serves the rest.)"""
POSTGRES_POOL = (10, 10)
"""PostgreSQL connections per engine (kept, and more at peaks): the server runs queries in parallel."""
READ = {"headwater_read": True}
"""The execution options of a connection that only reads (``LineageStore`` queries): on PostgreSQL
its statements run without a transaction (``_postgres_engine``)."""

_write_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def default_url() -> str:
    """``$HEADWATER_STORE``, else the SQLite file ``~/.headwater/lineage.db``."""
    return os.environ.get(ENV_VAR) or f"sqlite:///{DEFAULT_PATH}"


def normalise_url(url: str) -> str:
    """A bare path means a SQLite file."""
    return url if "://" in url else f"sqlite:///{url}"


def write_lock(url: str) -> threading.Lock:
    """One lock per database within this process: SQLite has a single writer anyway."""
    with _locks_guard:
        return _write_locks.setdefault(url, threading.Lock())


def _sqlite_engine(url: str) -> Engine:
    u = make_url(url)
    memory = u.database in (None, "", ":memory:")
    if not memory:
        Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
    if memory:
        kwargs["poolclass"] = StaticPool
    else:
        kwargs["pool_size"], kwargs["max_overflow"] = SQLITE_POOL
    engine = create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" event below issues BEGIN
        cur = dbapi_conn.cursor()
        if not memory:
            _use_wal(cur)
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        write = conn.get_execution_options().get("headwater_write", False)
        dbapi_conn = conn.connection.dbapi_connection
        if write and dbapi_conn.in_transaction:
            return  # begun on the DBAPI connection (``store._write_transaction``): SQLAlchemy's on top
        # on the DBAPI connection: no statement compiled, no cursor result made
        dbapi_conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _use_wal(cur: Any, wait_s: float = 30.0) -> None:
    """Put a file database in WAL mode (once: the mode is kept in the file). Switching the mode needs
    the database to itself, and SQLite answers "database is locked" at once, without its busy
    timeout, when another connection (a concurrent first writer) holds it: try again until
    ``wait_s`` has passed."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            if str(cur.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def checkpoint(engine: Engine) -> bool:
    """Copy a SQLite file store's write-ahead log into the database file and truncate it
    (``PRAGMA wal_checkpoint(TRUNCATE)``), so that the ``.db`` file alone is the whole store; True when
    the log is empty now. Nothing to do for PostgreSQL or an in-memory store. A reader or writer in
    another process keeps the log busy: the checkpoint then does what it can, without waiting, and
    says False (that process's last connection checkpoints when it closes)."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return True
    if not os.path.exists(engine.url.database):  # removed since (a temporary store): nothing to fold, none to create
        return True
    try:
        with engine.connect() as conn:
            dbapi: Any = conn.connection.dbapi_connection
            dbapi.execute("PRAGMA busy_timeout=0")  # never wait for another process at exit
            try:
                busy, _, _ = dbapi.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                dbapi.execute("PRAGMA busy_timeout=30000")
    except (sqlite3.Error, DBAPIError):  # SQLAlchemy wraps a failed connect: best effort at exit
        return False
    return not busy


def make_engine(url: str) -> Engine:
    """An engine for ``url`` (``sqlite:///…``, ``postgresql+psycopg://…`` or a bare file path)."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        return _sqlite_engine(url)
    return _postgres_engine(url)


def _postgres_engine(url: str) -> Engine:
    """A PostgreSQL engine whose read connections (``READ``) run in autocommit: at READ COMMITTED
    each statement sees its own snapshot in a transaction too, so a read needs none, and without one
    it saves the BEGIN and ROLLBACK round trips, and psycopg keeps the statements it prepared (a
    rollback drops them: with one per request, none was ever reused)."""
    size, overflow = POSTGRES_POOL
    engine = create_engine(url, pool_pre_ping=True, pool_size=size, max_overflow=overflow)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        dbapi_conn = conn.connection.dbapi_connection
        read = bool(conn.get_execution_options().get("headwater_read", False))
        if dbapi_conn.autocommit != read:
            dbapi_conn.autocommit = read

    return engine


def write_concurrency(engine: Engine) -> int:
    """Writes a server runs at once over ``engine``: SQLite 1 (one writer; the others would only
    wait for its lock while holding connections), PostgreSQL half the connections it keeps.

    >>> write_concurrency(make_engine("sqlite://"))
    1
    """
    if engine.dialect.name == "sqlite":
        return 1
    return max(1, getattr(engine.pool, "size", lambda: 2)() // 2)


def pool_capacity(engine: Engine) -> int:
    """How many connections ``engine`` opens at most (the server runs that many requests at once)."""
    pool = engine.pool
    size = getattr(pool, "size", lambda: 1)()
    overflow = getattr(pool, "_max_overflow", 0)
    return max(1, size + max(0, overflow))


_URL_TEXTS: dict[int, tuple[object, str]] = {}


def database_key(conn: Connection | Engine) -> str:
    """The text of the engine URL (password hidden) of a connection or an engine, which keys
    per-database state of the write path; rendered once per URL object (``str(url)`` quotes every
    part of it anew, some 5 µs).

    >>> engine = create_engine("sqlite://")
    >>> with engine.connect() as conn:
    ...     database_key(conn), database_key(conn) is database_key(engine)
    ('sqlite://', True)
    """
    url = conn.url if isinstance(conn, Engine) else conn.engine.url
    kept = _URL_TEXTS.get(id(url))
    if kept is None or kept[0] is not url:
        if len(_URL_TEXTS) >= 256:  # engines made and dropped (tests): the texts are cheap to remake
            _URL_TEXTS.clear()
        kept = _URL_TEXTS[id(url)] = (url, str(url))  # the URL held: its id stays its own
    return kept[1]
