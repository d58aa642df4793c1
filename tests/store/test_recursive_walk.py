"""A walk that fetches its edges in one recursive statement (``traverse.reach_edges``) gives the
answers the level-by-level walk gave, on both backends: every read over a warehouse with a cycle,
paths of different lengths, jobs (zero-cost hops), dataset-level mappings, a closed edge (``as_of``),
hidden jobs (``seen_since``) and truncation (``max_nodes``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy import event
from tests.store.conftest import copy_event, guide

from headwater.store import LineageStore, traverse
from headwater.store.fields import MAPS_TO
from headwater.store.lineage import get_lineage
from headwater.store.types import FLOW_EDGE_TYPES

OLD, NEW = "2024-05-01T10:00:00Z", "2024-07-01T10:00:00Z"


def _warehouse(store: LineageStore) -> None:
    store.record(guide())
    events = [
        copy_event("b", {"x": [("a", "x")], "y": [("a", "y")]}, timestamp=OLD, filters=(("a", "flag"),)),
        copy_event("c", {"x": [("b", "x"), ("e", "x")]}, timestamp=NEW),
        copy_event("d", {"x": [("c", "x")], "y": [("b", "y")]}, timestamp=OLD),
        copy_event("b", {"z": [("d", "x")]}, query_id="cycle", timestamp=NEW),  # b → c → d → b
        copy_event("f", {"x": [("d", "x"), ("a", "x")]}, timestamp=NEW, filters=(("e", "flag"),)),
        copy_event("g", {"x": [("f", "x")], "y": [("lineage_customer_summary", "total_amount")]}, timestamp=OLD),
    ]
    store.record_batch(events)
    store.record(copy_event("c", {"x": [("a", "x")]}, query_id="later", timestamp="2024-08-01T10:00:00Z"))


def _plain(answer: Any) -> Any:
    """An answer without its random id (``analysis_id``)."""
    if dataclasses.is_dataclass(answer) and hasattr(answer, "analysis_id"):
        return dataclasses.replace(answer, analysis_id="")
    return answer


def _queries(store: LineageStore) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    nodes = ["a", "b", "c", "d", "f", "g", "lineage_orders", "lineage_customer_summary"]
    fields = ["a.x", "b.x", "b.z", "c.x", "d.x", "f.x", "g.y", "lineage_orders.amount"]
    for n in nodes:
        for depth in (0, 1, 3, None):
            for direction in ("UPSTREAM", "DOWNSTREAM", "BOTH"):
                out.append(
                    (f"lineage {n} {direction} {depth}", lambda n=n, d=depth, r=direction: store.get_lineage(n, r, d))
                )
        out.append((f"lineage {n} seen", lambda n=n: store.get_lineage(n, max_depth=None, seen_since=NEW)))
        out.append((f"lineage {n} as_of", lambda n=n: store.get_lineage(n, max_depth=None, as_of=OLD)))
        out.append((f"summary {n}", lambda n=n: store.get_lineage_summary(n)))
        out.append((f"trace {n}", lambda n=n: store.trace_origin(n)))
        out.append((f"trace {n} 1", lambda n=n: store.trace_origin(n, max_depth=1)))
        out.append((f"impact {n}", lambda n=n: store.analyze_impact(n)))
    for f in fields:
        for level in ("direct", "field", "all"):
            for depth in (None, 1, 2):
                out.append(
                    (
                        f"origin {f} {level} {depth}",
                        lambda f=f, lv=level, d=depth: store.get_field_origin(f, level=lv, max_depth=d),
                    )
                )
                out.append(
                    (
                        f"impact {f} {level} {depth}",
                        lambda f=f, lv=level, d=depth: store.get_field_impact(f, level=lv, max_depth=d),
                    )
                )
            out.append(
                (f"origin {f} {level} seen", lambda f=f, lv=level: store.get_field_origin(f, level=lv, seen_since=NEW))
            )
        out.append((f"summary {f}", lambda f=f: store.get_lineage_summary(f)))
        out.append((f"trace {f}", lambda f=f: store.trace_origin(f)))
        out.append((f"analyze {f}", lambda f=f: store.analyze_impact(f, "DATA_UPDATE")))
    return out


def test_every_answer_is_the_level_walks(store: LineageStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _warehouse(store)
    queries = _queries(store)
    now = {label: _plain(q()) for label, q in queries}
    monkeypatch.setattr(traverse, "RECURSIVE_ROOTS", 0)  # every walk level by level, as before
    for label, q in queries:
        assert _plain(q()) == now[label], label


def _walks(store: LineageStore) -> list[traverse.Walk]:
    out = []
    with store.engine.connect() as conn:
        ids = [store.resolve(n).id for n in ("a", "b", "c", "d", "f", "g", "lineage_orders")]
        fids = [store.resolve(n).id for n in ("a.x", "b.x", "c.x", "d.x", "lineage_orders.amount")]
        for up in (True, False):
            for cap in (1, 2, 3, 5, 8, 10_000):
                for depth in (None, 0, 1, 2, 4):
                    for root in ids:
                        out.append(traverse.walk(conn, [root], up, FLOW_EDGE_TYPES, None, depth, cap))
                    out.append(traverse.walk(conn, ids[:3], up, FLOW_EDGE_TYPES, None, depth, cap))
                    for root in fids:
                        out.append(traverse.walk(conn, [root], up, MAPS_TO, None, depth, cap, dataset_level=False))
    return out


def test_walks_are_the_same_node_by_node_when_truncated(store: LineageStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _warehouse(store)
    now = _walks(store)
    assert any(w.truncated for w in now) and any(not w.truncated and len(w.depth) > 5 for w in now)
    monkeypatch.setattr(traverse, "RECURSIVE_ROOTS", 0)
    for a, b in zip(_walks(store), now, strict=True):
        assert (a.depth, a.parent, list(a.edges), a.expanded, a.truncated) == (
            b.depth,
            b.parent,
            list(b.edges),
            b.expanded,
            b.truncated,
        )


def test_a_walk_is_one_statement(store: LineageStore) -> None:
    """However many levels: the dataset graph from ``g`` goes up five levels through jobs."""
    _warehouse(store)
    root = store.resolve("g").id
    seen: list[str] = []
    with store.engine.connect() as conn:
        event.listen(conn, "before_cursor_execute", lambda *a: seen.append(a[2]))
        g = get_lineage(conn, root, "UPSTREAM", None)
    assert len([s for s in seen if "hw_edges" in s]) == 1, seen  # then the nodes it reached, in hw_nodes
    assert {n.name.rsplit(".", 1)[-1] for n in g.nodes} >= {"a", "b", "c", "d", "e", "f", "g"}


def test_a_walk_past_the_row_cap_goes_level_by_level_with_the_same_answer(
    store: LineageStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store where everything reachable is far more than ``max_nodes`` will keep: the recursive
    statement stops at its row cap and the walk goes level by level (the same answer)."""
    _warehouse(store)
    now = _walks(store)
    monkeypatch.setattr(traverse, "RECURSIVE_MIN_ROWS", 1)
    monkeypatch.setattr(traverse, "RECURSIVE_ROWS_PER_NODE", 1)
    root = store.resolve("g").id
    seen: list[str] = []
    with store.engine.connect() as conn:
        event.listen(conn, "before_cursor_execute", lambda *a: seen.append(a[2]))
        traverse.walk(conn, [root], True, FLOW_EDGE_TYPES, None, None, 3)
    assert len([s for s in seen if "hw_edges" in s]) > 1, seen  # the capped statement, then the levels
    for a, b in zip(_walks(store), now, strict=True):
        assert (a.depth, a.parent, list(a.edges), a.truncated) == (b.depth, b.parent, list(b.edges), b.truncated)
