"""The read path's hot statements on PostgreSQL run on the psycopg cursor (``store.direct``): every
read answers as through SQLAlchemy's execution, on both backends, and on PostgreSQL the walks,
lookups and counts of a read send no statement through SQLAlchemy."""

from __future__ import annotations

import pytest
from sqlalchemy import event, select
from tests.store.test_recursive_walk import _plain, _queries, _warehouse

from headwater.store import LineageStore, direct
from headwater.store.engine import READ
from headwater.store.resolve import _BY_IDS, _BY_NAME_PG
from headwater.store.schema import nodes


def test_every_answer_is_the_same_through_sqlalchemy(store: LineageStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _warehouse(store)
    queries = _queries(store)
    now = {label: _plain(q()) for label, q in queries}
    monkeypatch.setattr(direct, "ENABLED", False)
    for label, q in queries:
        assert _plain(q()) == now[label], label


def test_a_postgresql_read_sends_its_statements_on_the_cursor(store: LineageStore) -> None:
    _warehouse(store)
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    impact = store.get_field_impact("a.x")
    summary = store.get_lineage_summary("b")
    graph = store.get_lineage("g", "UPSTREAM", None)
    assert impact.total and summary.upstream_count and graph.nodes
    if store.dialect == "postgresql":
        assert seen == []  # resolve, the walks, the nodes, the counts: none through SQLAlchemy
    else:
        assert seen  # SQLite: SQLAlchemy's execution, as before


def test_rows_are_sqlalchemys_rows(store: LineageStore) -> None:
    """The same values under the same names, the expanded IN lists of edge types included."""
    _warehouse(store)
    ids = [store.resolve(n).id for n in ("a", "b", "a.x")]
    with store.engine.connect().execution_options(**READ) as conn:
        stmt = _BY_NAME_PG if store.dialect == "postgresql" else None
        cases = [(select(nodes.c.id, nodes.c.name).where(nodes.c.type.in_(("DATASET", "FIELD"))), {})]
        if stmt is not None:
            cases.append((stmt, {"shorts": ["a", "a.x"], "norm": "a"}))
        else:
            cases.append((_BY_IDS, {"ids": ids}))
        for stmt, params in cases:
            got = direct.rows(conn, stmt, params)
            want = conn.execute(stmt, params).all()
            assert [tuple(r) for r in got] == [tuple(r) for r in want]
            assert [dict(r._asdict()) for r in got] == [dict(r._mapping) for r in want]


def test_a_statement_of_a_write_connection_goes_through_sqlalchemy(store: LineageStore) -> None:
    """Inside a write transaction the statement is SQLAlchemy's (its transaction, its events)."""
    _warehouse(store)
    seen: list[str] = []
    q = select(nodes.c.id).where(nodes.c.name == "x")
    with store.engine.connect().execution_options(headwater_write=True) as conn, conn.begin():
        event.listen(conn, "before_cursor_execute", lambda *a: seen.append(a[2]))
        assert direct.rows(conn, q) == []
    assert len(seen) == 1


def test_a_summary_asks_its_counts_in_one_statement(store: LineageStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The field count and the last update: one round trip (the heaviest read of the load)."""
    _warehouse(store)
    monkeypatch.setattr(direct, "ENABLED", False)  # every statement through SQLAlchemy, to be seen
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(a[2].lower()))
    s = store.get_lineage_summary("b")
    assert s.field_count and s.last_updated is not None
    last = [q for q in seen if "max(hw_edges.valid_from)" in q]
    assert len(last) == 1 and "count(*)" in last[0], seen
