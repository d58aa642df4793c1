"""Schema versions with Alembic (``headwater db upgrade``), configured in code, no ini file.

The version table is ``hw_alembic_version`` so that the store can share a database with other
Alembic-managed applications.

Upgrades are serialised: processes creating a new store at the same time (the first ``ingest`` of
several writers, two ``db upgrade``) take a lock first, so one creates the tables and the others,
once it has committed, find the schema at head and do nothing. On SQLite the lock is the write
transaction itself (``BEGIN IMMEDIATE``, waiting up to the 30 s busy timeout); on PostgreSQL a
transaction-scoped advisory lock (``MIGRATION_LOCK``), released when the upgrade commits.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

VERSION_TABLE = "hw_alembic_version"
_SCRIPTS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x68775F6D6967  # "hw_mig": the PostgreSQL advisory lock key of schema changes


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_SCRIPTS))
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE}).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Bring the schema to ``revision``; returns the revision now current."""
    cfg = _config()
    with engine.execution_options(headwater_write=True).begin() as conn:  # SQLite: BEGIN IMMEDIATE
        _lock(conn)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    return current_revision(engine)


def _lock(conn: Connection) -> None:
    """Wait for any other process changing the schema (PostgreSQL; SQLite's write lock is taken by
    the transaction)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})


def ensure_schema(engine: Engine) -> None:
    """Upgrade to head unless already there (cheap when it is)."""
    if current_revision(engine) != head_revision():
        upgrade(engine)
