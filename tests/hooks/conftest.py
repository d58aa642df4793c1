"""Real databases for the hook tests: SQLite (a file), the MariaDB and the PostgreSQL on this machine."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import pytest
import sqlalchemy as sa

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.testing import RecordingPlugin, StaticFactory, discovery_of

MARIADB_URL = "mysql+pymysql://root@127.0.0.1:3306/test"
POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "mariadb", "postgres")


@dataclass
class Recorder:
    """A running dispatch with one recording plugin."""

    dispatch: LineageDispatch
    plugin: RecordingPlugin
    calls: list


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    calls: list = []
    plugin = RecordingPlugin("rec", calls)
    d = start_dispatch(
        DispatchSettings(plugin_dir=None),  # type: ignore[arg-type]
        discovery=discovery_of(StaticFactory("rec", lambda ctx: plugin)),
    )
    yield Recorder(d, plugin, calls)
    d.close()


@pytest.fixture
def suffix() -> str:
    return uuid.uuid4().hex[:8]


def _dbapi_connect(backend: str, tmp_path: Path) -> Any:
    if backend == "sqlite":
        return sqlite3.connect(tmp_path / "hooks.sqlite", isolation_level=None)
    if backend == "mariadb":
        return pymysql.connect(host="127.0.0.1", port=3306, user="root", password="", database="test", autocommit=True)
    return psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True)


def _engine_for(backend: str, tmp_path: Path) -> sa.Engine:
    url = {"sqlite": f"sqlite:///{tmp_path / 'hooks.sqlite'}", "mariadb": MARIADB_URL, "postgres": POSTGRES_URL}
    return sa.create_engine(url[backend])


def drop_tables(backend: str, tmp_path: Path, names: list[str]) -> None:
    """Clean up with a plain connection (not through any hook)."""
    conn = _dbapi_connect(backend, tmp_path)
    try:
        cur = conn.cursor()
        for name in names:
            cur.execute(f"DROP TABLE IF EXISTS {name}")
    finally:
        conn.close()


@pytest.fixture
def cleanup(tmp_path: Path) -> Iterator[Callable[[str, list[str]], None]]:
    todo: list[tuple[str, list[str]]] = []
    yield lambda backend, names: todo.append((backend, names))
    for backend, names in todo:
        drop_tables(backend, tmp_path, names)


@pytest.fixture
def dbapi_connect() -> Callable[[str, Path], Any]:
    """``(backend, tmp_path) -> connection``: a plain, autocommitting DB-API connection."""
    return _dbapi_connect


@pytest.fixture
def engine_for() -> Callable[[str, Path], sa.Engine]:
    """``(backend, tmp_path) -> Engine``."""
    return _engine_for
