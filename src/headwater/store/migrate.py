"""Schema versions with Alembic (``headwater db upgrade``), configured in code, no ini file.

The version table is ``hw_alembic_version`` so that the store can share a database with other
Alembic-managed applications.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

VERSION_TABLE = "hw_alembic_version"
_SCRIPTS = Path(__file__).with_name("migrations")


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
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    return current_revision(engine)


def ensure_schema(engine: Engine) -> None:
    """Upgrade to head unless already there (cheap when it is)."""
    if current_revision(engine) != head_revision():
        upgrade(engine)
