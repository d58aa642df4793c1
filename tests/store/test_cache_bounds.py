"""The writer's caches are bounded (``NODE_CACHE`` nodes, ``OPEN_EDGE_CACHE`` open edges): past a
bound a cache starts over, and what is recorded is exactly what a writer whose caches hold
everything records, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tests.store.store_content import content

from headwater.model import LineageInfo
from headwater.project import ProjectContext
from headwater.store import open_store
from headwater.store import store as store_module


def _events(version: int) -> list[LineageInfo]:
    """One file of 24 INSERTs (each its own job) into 4 tables from 3; ``version`` 2 changes which
    source column half of them read, so their jobs' open edges move."""
    lines = []
    for i in range(24):
        source = "b" if version == 2 and i % 2 else "a"
        lines.append(f"INSERT INTO db.t{i % 4} SELECT {source} + {i} AS x, c AS y FROM db.s{i % 3} WHERE d > {i};")
    context = ProjectContext(dialect="doris")
    return context.extract("load.sql", "\n".join(lines)).events


def _record(url: str, runs: Sequence[list[LineageInfo]]) -> None:
    store = open_store(url)
    for events in runs:
        for k in range(0, len(events), 5):  # batches of 5: the caches overflow between them
            store.record_batch(events[k : k + 5])
    store.close()


def test_bounded_caches_record_what_unbounded_ones_do(
    store_url: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = [_events(1), _events(1), _events(2)]  # a first run, its replay, and an edited re-run
    reference = f"sqlite:///{tmp_path}/reference.db"
    _record(reference, runs)
    starts = []
    real_node_cache = store_module.NodeCache

    def counted() -> object:
        starts.append(1)
        return real_node_cache()

    monkeypatch.setattr(store_module, "NODE_CACHE", 7)
    monkeypatch.setattr(store_module, "OPEN_EDGE_CACHE", 5)
    monkeypatch.setattr(store_module, "NodeCache", counted)
    _record(store_url, runs)
    batches, stores = 3 * 5, 3  # a NodeCache per batch (its staged nodes) and per store opened …
    assert len(starts) > batches + stores + 5  # … and one each time the bounded cache started over
    assert content(store_url) == content(reference)
