"""A SQLite store is one file once the command that wrote it ends, and ``db backup`` copies a live store."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests.pg_schema import POSTGRES_URL, fresh_schema_url
from tests.store.store_content import content
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import close_all, open_store

ROOT = Path(__file__).resolve().parents[2]
SQL = """
CREATE TABLE db.s (a INT, b INT);
INSERT INTO db.t SELECT a, b + 1 AS c FROM db.s;
INSERT INTO db.u SELECT a, c FROM db.t;
"""
runner = CliRunner()


def _headwater(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "headwater.cli.main", *args], env=env, capture_output=True, text=True, check=False
    )


def _stats(path: Path) -> dict[str, object]:
    done = _headwater("query", "stats", "--store", str(path), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_a_copy_of_the_file_after_ingest_is_the_whole_store(tmp_path: Path) -> None:
    (tmp_path / "etl.sql").write_text(SQL)
    store = tmp_path / "w.db"
    done = _headwater("ingest", str(tmp_path / "etl.sql"), "--store", str(store))
    assert done.returncode == 0, done.stdout + done.stderr
    wal = tmp_path / "w.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    shutil.copy(store, tmp_path / "copy.db")
    copied = _stats(tmp_path / "copy.db")
    assert copied["events_recorded"] == 2
    assert copied == _stats(store)


def test_a_copy_of_the_file_after_ingest_log_is_the_whole_store(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    rows = [
        {"query_id": "q1", "stmt": "INSERT INTO db.t SELECT a, b FROM db.s", "time": "2024-05-01 10:00:00"},
        {"query_id": "q2", "stmt": "INSERT INTO db.u SELECT a FROM db.t", "time": "2024-05-01 10:00:01"},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = tmp_path / "w.db"
    done = _headwater("ingest-log", str(log), "--store", str(store))
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.copy(store, tmp_path / "copy.db")
    assert not (tmp_path / "copy.db-wal").exists()
    assert _stats(tmp_path / "copy.db")["events_recorded"] == 2


def test_close_all_leaves_one_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    from tests.store.helpers import record_sql

    record_sql(open_store(url), "INSERT INTO db.t SELECT a FROM db.s")
    close_all()
    assert (tmp_path / "lineage.db-wal").stat().st_size == 0 if (tmp_path / "lineage.db-wal").exists() else True
    with sqlite3.connect(tmp_path / "lineage.db") as conn:  # the file alone holds the event
        assert conn.execute("SELECT count(*) FROM hw_events").fetchone() == (1,)


def test_db_backup_of_a_sqlite_store_restores_to_an_identical_store(tmp_path: Path) -> None:
    (tmp_path / "etl.sql").write_text(SQL)
    store = tmp_path / "w.db"
    assert _headwater("ingest", str(tmp_path / "etl.sql"), "--store", str(store)).returncode == 0
    writer = sqlite3.connect(store)  # a live store: another connection holds it, with a WAL
    writer.execute("PRAGMA journal_mode=WAL")
    backup = tmp_path / "backup" / "w.db"
    backup.parent.mkdir()
    done = runner.invoke(app, ["db", "backup", str(backup), "--store", str(store)])
    assert done.exit_code == 0, done.output
    assert "backed up" in done.output
    writer.close()
    assert not Path(f"{backup}-wal").exists()
    with sqlite3.connect(store) as a, sqlite3.connect(backup) as b:
        assert list(a.iterdump()) == list(b.iterdump())
    restored = tmp_path / "restored.db"
    shutil.copy(backup, restored)
    assert content(f"sqlite:///{restored}") == content(f"sqlite:///{store}")
    again = runner.invoke(app, ["db", "backup", str(backup), "--store", str(store)])
    assert again.exit_code == 2
    assert "exists" in again.output


def test_db_backup_of_a_postgresql_store_restores_to_an_identical_store(tmp_path: Path) -> None:
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.fail("the PostgreSQL client tools are installed on the test machines")
    (tmp_path / "etl.sql").write_text(SQL)
    with fresh_schema_url("hw_backup") as url:
        assert _headwater("ingest", str(tmp_path / "etl.sql"), "--store", url).returncode == 0
        dump = tmp_path / "lineage.dump"
        done = _headwater("db", "backup", str(dump), "--store", url)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "pg_dump --format=custom" in done.stdout and "pg_restore" in done.stdout
        database = f"hw_restore_{uuid.uuid4().hex[:8]}"
        admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{database}"'))
        try:
            schema = url.rsplit("%3D", 1)[1]
            target = POSTGRES_URL.rsplit("/", 1)[0] + f"/{database}"
            libpq = target.replace("postgresql+psycopg", "postgresql")
            restore = subprocess.run(
                ["pg_restore", f"--dbname={libpq}", str(dump)], capture_output=True, text=True, check=False
            )
            assert restore.returncode == 0, restore.stderr
            assert content(f"{target}?options=-csearch_path%3D{schema}") == content(url)
        finally:
            close_all()
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE "{database}" WITH (FORCE)'))
            admin.dispose()
