"""The bulk paths of SQLite recording write the rows the row-by-row path writes.

``write.insert_many`` puts many rows in one ``INSERT … VALUES`` statement, and the memberships of
nodes a batch inserts are written by the database from their node rows (``insert_memberships``);
both must leave the same tables as one ``executemany`` row per row (only edge ids may be in another
order).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest

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
from headwater.store import open_store, write
from headwater.store.facts import Facts, FactsBuilder, NodeSpec
from headwater.store.from_event import event_facts, job_name


def _event(target: TableRef, source: TableRef, columns: int, n: int, at: str, literal: str = "0") -> LineageInfo:
    cols = [ColumnRef(source, f"c{i}") for i in range(columns)]
    direct = tuple(
        DirectLineage(
            f"c{i}",
            f"UPPER({source.name}.c{i})",
            DirectType.TRANSFORMATION,
            Origin.COLUMN,
            (c,),
            (DirectInput(c, ("UPPER",)),),
        )
        for i, c in enumerate(cols)
    )
    dataset = (IndirectLineage(IndirectType.FILTER, f"{source.name}.c0 > {literal}", (cols[0],)),)
    sql = f"INSERT INTO {target.qualified} SELECT … FROM {source.qualified} WHERE c0 > {literal}"
    ctx = QueryContext(SourceCommand.INSERT_INTO, f"q{n}", sql, timestamp=at)
    return LineageInfo(
        make_event_id(f"q{n}", target),
        SourceCommand.INSERT_INTO,
        Target(target, tuple(Field(f"c{i}") for i in range(columns))),
        (source,),
        direct,
        dataset,
        (),
        ctx,
    )


def _workload() -> list[list[LineageInfo]]:
    """Batches: new tables of 150 columns (more rows than one multi-row statement holds), tables
    reading them, a re-run with another literal, a late event and a replay."""
    base = [TableRef("internal", "db", f"t{k}") for k in range(3)]
    src = TableRef("internal", "db", "src")
    first = [_event(t, src, 150, k, f"2024-01-0{k + 1}T00:00:00Z") for k, t in enumerate(base)]
    more = [_event(TableRef("internal", "db", f"u{k}"), base[k], 40, 10 + k, "2024-01-05T00:00:00Z") for k in range(3)]
    rerun = [_event(base[0], src, 150, 20, "2024-01-06T00:00:00Z", literal="7")]
    late = [_event(base[1], src, 149, 21, "2024-01-01T12:00:00Z")]
    return [first, more, rerun, late, first[:1]]


def _tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, without recording times and edge ids."""
    conn = sqlite3.connect(path)
    out = {}
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        keep = [c for c in cols if c != "recorded_us" and not (table == "hw_edges" and c == "id")]
        out[table] = sorted(conn.execute(f"SELECT {', '.join(keep)} FROM {table}").fetchall(), key=repr)
    conn.close()
    return out


def _record(path: Path) -> list[int]:
    store = open_store(f"sqlite:///{path}")
    opened = []
    for batch in _workload():
        if len(batch) == 1:
            opened.append(store.record(batch[0]).edges_opened)
        else:
            opened.append(store.record_batch(batch).edges_opened)
    store.close()
    return opened


def test_bulk_paths_write_the_rows_of_the_row_by_row_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bulk = _record(tmp_path / "bulk.db")
    plain_contains = write._contains

    def no_bulk_contains(*args: Any, **kw: Any) -> Any:
        return plain_contains(*args, **{**kw, "by_database": False})

    monkeypatch.setattr(write, "MULTI_ROWS", 1)
    monkeypatch.setattr(write, "_contains", no_bulk_contains)
    plain = _record(tmp_path / "plain.db")
    assert bulk == plain
    a, b = _tables(tmp_path / "bulk.db"), _tables(tmp_path / "plain.db")
    assert a == b
    fields = sum(1 for r in a["hw_nodes"] if r[1] == "FIELD")
    contains = [r for r in a["hw_edges"] if r[0] == "CONTAINS"]
    assert len(contains) >= fields > 300  # every field's membership, from its parent


def test_edges_opened_counts_the_memberships_the_database_wrote(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    opened = sum(store.record_batch(batch).edges_opened for batch in _workload()[:2])
    store.close()
    conn = sqlite3.connect(tmp_path / "a.db")
    assert opened == conn.execute("SELECT count(*) FROM hw_edges").fetchone()[0]
    conn.close()


@pytest.mark.parametrize("count", [1, 127, 128, 129, 300])
def test_insert_many_keeps_the_rows_in_order(tmp_path: Path, count: int) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    rows = [(f"k{i:04d}", (i * 7919) % 1000) for i in reversed(range(count))]
    with store.engine.begin() as conn:
        write.insert_many(conn, "INSERT INTO hw_meta (key, value) VALUES (?, ?)", rows)
    with store.engine.connect() as conn:
        got = conn.exec_driver_sql("SELECT key, value FROM hw_meta WHERE key LIKE 'k%' ORDER BY rowid").all()
    store.close()
    assert [tuple(r) for r in got] == rows


def test_node_spec_key_follows_replace() -> None:
    spec = NodeSpec("DATASET", "internal.db.t", "t")
    again = dataclasses.replace(spec, name="internal.db.u", properties={"dataset_type": "VIEW"})
    assert spec.key == ("DATASET", "internal.db.t")
    assert again.key == ("DATASET", "internal.db.u")
    b = FactsBuilder(Facts("e", "headwater", "e", 0))
    assert b.field(b.dataset("internal", "db", "t"), "A") == ("FIELD", "internal.db.t.a")


def test_the_job_name_is_the_fallback_name_with_the_fingerprint_made_once() -> None:
    e = _event(TableRef("internal", "db", "t"), TableRef("internal", "db", "s"), 3, 1, "2024-01-01T00:00:00Z")
    facts = event_facts(e)
    target = ("DATASET", "internal.db.t")
    assert facts.job == ("JOB", job_name(e, target))
    empty = dataclasses.replace(e, context=dataclasses.replace(e.context, sql=""))
    assert event_facts(empty).job == ("JOB", job_name(empty, target))
