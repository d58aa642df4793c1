"""Marquez API fixtures: the tour's warehouse (``examples/``: ``etl.sql`` as Spark with its schema, and
the guide's event) ingested into a store on each backend, and a client of the API over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.service.conftest import api_store, pg_url, store_url  # noqa: F401  (fixtures)
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.service import create_app
from headwater.store import LineageStore, open_store

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def ingest(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``headwater ingest etl.sql events.jsonl --dialect spark --schema schema.yaml`` in ``examples/``."""
    monkeypatch.chdir(EXAMPLES)
    args = ["ingest", "etl.sql", "events.jsonl", "--dialect", "spark", "--schema", "schema.yaml", "--store", url]
    r = CliRunner().invoke(app, args, env={"COLUMNS": "100", "TERM": "dumb"})
    assert r.exit_code == 0, r.output


@pytest.fixture
def warehouse(store_url: str, monkeypatch: pytest.MonkeyPatch) -> LineageStore:  # noqa: F811
    ingest(store_url, monkeypatch)
    return open_store(store_url)


@pytest.fixture
def marquez(warehouse: LineageStore) -> Iterator[TestClient]:
    with TestClient(create_app(warehouse)) as c:
        yield c
