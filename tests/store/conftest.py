"""Store fixtures: every store test runs on SQLite and on PostgreSQL (a fresh schema per session).

``guide`` builds the Doris guide's example event by hand; ``chain`` builds small multi-statement
warehouses.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator

import pytest
from sqlalchemy import create_engine, text

from headwater.extract.examples import guide_event
from headwater.model import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
    make_event_id,
)
from headwater.store import LineageStore, open_store
from headwater.store.engine import make_engine
from headwater.store.migrate import upgrade
from headwater.store.schema import metadata

PG_ADMIN = os.environ.get("HEADWATER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
DB = "lineage_demo"


def _t(name: str, db: str = DB) -> TableRef:
    return TableRef("internal", db, name)


def col(table: str, column: str, db: str = DB) -> ColumnRef:
    return ColumnRef(_t(table, db), column)


def guide(query_id: str = "guide-q1", timestamp: str | None = "2024-05-01T10:00:00Z") -> LineageInfo:
    """The guide's example event as headwater extracts it (lineage_orders ⋈ lineage_customers →
    lineage_customer_summary), with a fixed query id and time."""
    return guide_event(query_id, timestamp=timestamp)


def copy_event(
    target: str,
    mapping: dict[str, list[tuple[str, str]]],
    query_id: str | None = None,
    timestamp: str | None = "2024-05-01T10:00:00Z",
    kind: DirectType = DirectType.IDENTITY,
    sql: str | None = None,
    filters: tuple[tuple[str, str], ...] = (),
) -> LineageInfo:
    """``INSERT INTO target SELECT …``: each target column from the listed (table, column) inputs."""
    tgt = _t(target)
    direct = []
    sources: dict[TableRef, None] = {}
    for column, inputs in mapping.items():
        refs = tuple(col(t, c) for t, c in inputs)
        for r in refs:
            sources[r.table] = None
        typ = kind if len(refs) == 1 else DirectType.TRANSFORMATION
        expr = " + ".join(f"{r.table.name}.{r.column}" for r in refs) or "1"
        origin = Origin.COLUMN if refs else Origin.CONSTANT
        direct.append(DirectLineage(column, expr, typ, origin, refs, tuple(DirectInput(r) for r in refs)))
    indirect = []
    for t, c in filters:
        sources[_t(t)] = None
        indirect.append(IndirectLineage(IndirectType.FILTER, f"{t}.{c} > 0", (col(t, c),)))
    sql = sql or f"INSERT INTO {target} SELECT {', '.join(mapping)} FROM {', '.join(s.name for s in sources)}"
    qid = query_id or f"q-{target}-{uuid.uuid5(uuid.NAMESPACE_URL, sql)}"
    return LineageInfo(
        event_id=make_event_id(qid, tgt),
        source_command=SourceCommand.INSERT_INTO,
        target=Target(tgt, tuple(Field(c) for c in mapping)),
        sources=tuple(sources),
        direct=tuple(direct),
        dataset_indirect=tuple(indirect),
        output_indirect=(),
        context=QueryContext(SourceCommand.INSERT_INTO, qid, sql, database=DB, timestamp=timestamp),
    )


def _pg_available() -> bool:
    try:
        eng = create_engine(PG_ADMIN)
        with eng.connect():
            pass
        eng.dispose()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema, dropped at the end of the session."""
    if not _pg_available():
        pytest.skip("PostgreSQL is not reachable")
    schema = f"hw_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in PG_ADMIN else "?"
    yield f"{PG_ADMIN}{sep}options=-csearch_path%3D{schema}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


def _clear(url: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        for table in reversed(metadata.sorted_tables):
            conn.execute(table.delete())
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An empty, migrated store URL on each backend."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'lineage.db'}"
        upgrade(make_engine(url))
    else:
        url = request.getfixturevalue("pg_url")
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        _clear(url)
    yield url


@pytest.fixture
def store(store_url: str) -> Iterator[LineageStore]:
    s = open_store(store_url)
    yield s


def spy_on_reads(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[list[int]]:
    """Wrap the reader ``module.name(conn, ids)`` (``write._load_open``, ``write._latest``) for the test:
    the list it returns receives the ids of each call."""
    seen: list[list[int]] = []
    original = getattr(module, name)

    def spy(conn: object, ids: Iterable[int]) -> object:
        seen.append(list(ids))
        return original(conn, ids)

    monkeypatch.setattr(module, name, spy)
    return seen
