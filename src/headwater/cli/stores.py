"""Opening the store named by ``--store`` for a command, with one-line errors instead of tracebacks.

Only the commands that fill a store (``ingest``, ``ingest-log``, ``db upgrade``, ``demo``) may
create one; the others (``query``, ``serve``, ``db delete``) refuse a SQLite file that does not
exist, so that a mistyped path is an error, not an empty answer.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.pool import NullPool

from headwater.cli.display import fail
from headwater.store import LineageStore, open_store
from headwater.store.engine import default_url, normalise_url

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="The store: a SQLite path, sqlite:///file.db or postgresql+psycopg://user@host/db "
        "(default: $HEADWATER_STORE, else ~/.headwater/lineage.db).",
    ),
]
"""``--store`` of every command (here, not in ``store_cmd``: ``ingest`` need not import the service)."""

URL_FORMS = (
    "a SQLite path (lineage.db), sqlite:///relative.db, sqlite:////absolute.db, "
    "or postgresql+psycopg://user@host:5432/database"
)


def check_store_url(url: str | None) -> str:
    """The normalised store URL, or exit 2 naming the accepted forms."""
    raw = url or default_url()
    key = normalise_url(raw)
    try:
        u = make_url(key)
    except ArgumentError:
        fail(f"--store: {raw!r} is not a store URL; give {URL_FORMS}")
    backend = u.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        fail(f"--store: {u.drivername}:// is not a store; give {URL_FORMS}")
    if backend == "postgresql" and u.drivername not in ("postgresql", "postgresql+psycopg"):
        fail(f"--store: driver {u.drivername} is not supported; give {URL_FORMS}")
    return key


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite store URL (None for in-memory stores and other backends)."""
    u = make_url(url)
    if u.get_backend_name() != "sqlite" or u.database in (None, "", ":memory:"):
        return None
    return Path(u.database).expanduser().resolve()


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def connect_error(url: str, exc: BaseException) -> str:
    """One line for a store that cannot be reached or opened."""
    orig = getattr(exc, "orig", None) or exc
    first = next((ln.strip() for ln in str(orig).splitlines() if ln.strip()), type(orig).__name__)
    first = first.removeprefix("connection failed: ")
    if "does not exist" in first and "database" in first:
        hint = "create the database first (createdb), or check the URL's database name"
    elif "refused" in first or "could not connect" in first.lower() or "timeout" in first.lower():
        hint = "is the server running and listening there?"
    elif "authentication" in first or "password" in first:
        hint = "check the user and password"
    else:
        hint = "check --store"
    return f"cannot open the store {_shown(url)}: {first} ({hint})"


def read_engine(url: str) -> Engine:
    """An engine that only reads: a SQLite file is opened as it is (nothing created, no journal mode
    set, so an empty file stays empty); other backends as usual."""
    from headwater.store.engine import make_engine

    path = sqlite_path(url)
    if path is None or make_url(url).query:
        return make_engine(url)
    uri = f"{path.as_uri()}?mode=rw"  # rw, not ro: the last connection then removes -wal/-shm on close
    return create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, timeout=30), poolclass=NullPool)


def _require_schema(url: str) -> None:
    """Exit 2 when the database holds no headwater store (an empty file or database is not one)."""
    from headwater.store.migrate import current_revision

    engine = read_engine(url)
    try:
        revision = current_revision(engine)
    finally:
        engine.dispose()
    if revision is None:
        fail(f"no store in {_shown(url)}: it has no headwater tables (headwater db upgrade creates them)")


def open_cli_store(url: str | None, create: bool = False) -> LineageStore:
    """The store at ``url`` (None: ``$HEADWATER_STORE`` or ``~/.headwater/lineage.db``); exit 2 with
    one line for a bad URL, an unreachable server, a missing database or (unless ``create``) a
    SQLite file that does not exist."""
    key = check_store_url(url)
    path = sqlite_path(key)
    if path is not None and not create and not path.is_file():
        fail(
            f"no store at {path} (check --store / $HEADWATER_STORE; "
            "headwater ingest or headwater db upgrade creates one)"
        )
    try:
        if not create:
            _require_schema(key)
        return open_store(key)
    except (DBAPIError, NoSuchModuleError, ArgumentError) as exc:
        fail(connect_error(key, exc))
    except OSError as exc:
        fail(f"cannot open the store {_shown(key)}: {exc.strerror or exc}")
