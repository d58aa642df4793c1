"""``ALTER TABLE a RENAME TO b`` in the store: a's lineage continues as b's (store.rename)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.extract import extract_script
from headwater.store import LineageStore, NodeNotFound, open_store

LOAD = "INSERT INTO a SELECT s.x AS x, s.y AS y FROM s;\n"
RENAME = "ALTER TABLE a RENAME TO b;\n"
USE = "INSERT INTO c SELECT b.x AS x FROM b;\n"


def record(store: LineageStore, sql: str, dialect: str = "postgres") -> None:
    for e in extract_script(sql, dialect=dialect, database="db", statements="all").events:
        store.record(e)


def origins(store: LineageStore, field: str) -> list[str]:
    return sorted(o.field.name for o in store.get_field_origin(field).origins)


def test_a_renamed_table_keeps_its_lineage_under_its_new_name(store: LineageStore) -> None:
    record(store, LOAD + RENAME + USE)
    assert origins(store, "db.c.x") == ["internal.db.s.x"]  # through b, which is a renamed
    assert origins(store, "db.b.y") == ["internal.db.s.y"]
    with pytest.raises(NodeNotFound):
        store.resolve("db.a")
    upstream = {n.name for n in store.get_upstream("db.c").nodes if n.type == "DATASET"}
    assert upstream == {"internal.db.c", "internal.db.b", "internal.db.s"}


def test_a_rename_replayed_changes_nothing(store: LineageStore) -> None:
    events = extract_script(LOAD + RENAME, dialect="postgres", database="db", statements="all").events
    for e in events:
        store.record(e)
    assert store.record(events[1]).duplicates == 1
    assert origins(store, "db.b.x") == ["internal.db.s.x"]


def test_renamed_onto_a_known_table_the_lineage_moves_over(store: LineageStore) -> None:
    """b was known before (read by a statement): a's lineage joins b's nodes, and b's readers see it."""
    record(store, "INSERT INTO d SELECT b.x AS x FROM b;\n" + LOAD + RENAME)
    assert origins(store, "db.d.x") == ["internal.db.s.x"]
    assert origins(store, "db.b.y") == ["internal.db.s.y"]  # a field b lacked moved over whole
    with pytest.raises(NodeNotFound):
        store.resolve("db.a")


def test_a_rename_in_a_batch_applies_in_order(store: LineageStore) -> None:
    events = extract_script(LOAD + RENAME + USE, dialect="postgres", database="db", statements="all").events
    result = store.record_batch(events)
    assert result.recorded == 3
    assert origins(store, "db.c.x") == ["internal.db.s.x"]


def test_a_project_ingested_file_by_file_carries_the_rename(tmp_path: Path, store_url: str) -> None:
    project = tmp_path / "etl"
    project.mkdir()
    (project / "01_load.sql").write_text(LOAD)
    (project / "02_rename.sql").write_text("ALTER TABLE a RENAME TO b;\n")
    (project / "03_marts.sql").write_text(USE)
    args = ["ingest", str(project), "--dialect", "postgres", "--default-db", "db", "--statements", "all"]
    for _ in range(2):  # a re-ingest of the same project changes nothing
        result = CliRunner().invoke(app, [*args, "--store", store_url])
        assert result.exit_code == 0, result.output
        store = open_store(store_url)
        assert origins(store, "db.c.x") == ["internal.db.s.x"]
        with pytest.raises(NodeNotFound):
            store.resolve("db.a")
