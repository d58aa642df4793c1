"""Project ingestion end to end: the example warehouse (``examples/warehouse``) through
``headwater ingest`` into a store on SQLite and on PostgreSQL, answered as a reader of the SQL would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_schema import fresh_schema_url

WAREHOUSE = Path(__file__).resolve().parents[2] / "examples" / "warehouse"
FILES = ("01_staging.sql", "02_marts.sql", "03_reports.sql")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store on each backend (``ingest`` creates its schema)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lineage.db'}"
        from headwater.store import close_all

        close_all()
        return
    with fresh_schema_url("hw_project") as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'lineage.db'}"
    from headwater.store import close_all

    close_all()
