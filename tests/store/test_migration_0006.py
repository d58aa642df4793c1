"""Revision 0006: a dataset whose name part holds a dot or a quote is written quoted. A store written
before (plain names: ``internal.d.a.b`` for the table ``a.b`` of ``d``) is re-keyed from its stored
headwater events where one table alone had the old name; a name two tables shared stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, text
from tests.pg_schema import fresh_schema_url

from headwater.extract import extract_script
from headwater.store import LineageStore, open_store
from headwater.store.engine import make_engine
from headwater.store.migrate import current_revision, head_revision, upgrade
from headwater.store.schema import nodes

SQL = ["INSERT INTO d.t_dotted SELECT c FROM d.`a.b`", 'INSERT INTO d.t_quoted SELECT c FROM d.`"q"`']
# what revisions up to 0005 wrote, and what is written now
OLD_NEW = {"internal.d.a.b": 'internal.d."a.b"', "internal.d.q": 'internal.d."""q"""'}


def _events() -> list:
    return [e for sql in SQL for e in extract_script(sql, dialect="doris", statements="all").events]


def _names(store: LineageStore) -> list[tuple[str, str, str]]:
    with store.engine.connect() as conn:
        return sorted(conn.execute(select(nodes.c.type, nodes.c.name, nodes.c.short)).all())


def _as_written_before(store: LineageStore) -> None:
    """The nodes renamed as revision 0005's writer named them (``internal.d."a.b"`` → ``internal.d.a.b``)."""
    with store.engine.begin() as conn:
        for old, new in OLD_NEW.items():
            short = old.rsplit(".", 1)[-1]
            for nid, name in conn.execute(
                text("SELECT id, name FROM hw_nodes WHERE name LIKE '%' || :n || '%'"), {"n": new}
            ):
                renamed = name.replace(new, old)
                if name.startswith("sql:"):
                    digest = name[4:].partition(":")[0]
                    kept = f"{short}#{digest[:8]}"
                else:
                    kept = ".".join(renamed.rsplit(".", 2)[-2:]) if renamed != old else short
                conn.execute(
                    text("UPDATE hw_nodes SET name = :n, short = :s WHERE id = :i"), {"n": renamed, "s": kept, "i": nid}
                )


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
    else:
        with fresh_schema_url("hw_6") as pg:
            yield pg


def test_a_store_written_at_0005_is_rekeyed_from_its_events(url: str) -> None:
    engine = make_engine(url)
    store: LineageStore | None = None
    try:
        assert upgrade(engine, "0005") == "0005"
        old = LineageStore(engine)
        for event in _events():
            old.record(event)
        fresh = _names(old)
        _as_written_before(old)
        written = _names(old)
        assert ("DATASET", "internal.d.a.b", "b") in written and fresh != written

        assert upgrade(engine) == head_revision() == "0007"
        store = open_store(url)
        assert current_revision(store.engine) == "0007"
        assert _names(store) == fresh  # datasets, fields and the statements' jobs
        origin = store.get_field_origin("d.t_dotted.c")
        assert [o.field.name for o in origin.origins] == ['internal.d."a.b".c']
        for event in _events():  # recording again lands on the same nodes
            store.record(event)
        assert _names(store) == fresh
    finally:
        if store is not None:
            store.close()
        engine.dispose()


def test_a_name_two_tables_shared_is_not_rekeyed() -> None:
    from importlib import import_module

    renames = import_module("headwater.store.migrations.versions.0006_quoted_names").renames
    doc = '{{"target": {{"table": {{"catalog": "internal", "database": "d", "name": "t"}}}}, "sources": [{}]}}'
    shared = [
        doc.format('{"catalog": "internal", "database": "d", "name": "[/x]"}'),
        doc.format('{"catalog": "internal", "database": "d", "name": "/x"}'),
    ]
    assert renames(iter(shared)) == {}
    alone = [doc.format('{"catalog": "internal", "database": "d", "name": "[/x]"}')]
    assert renames(iter(alone)) == {"internal.d./x": 'internal.d."[/x]"'}
    dotted = [
        doc.format('{"catalog": "internal", "database": "d", "name": "a.b"}'),
        doc.format('{"catalog": "internal", "database": "d.a", "name": "b"}'),
    ]
    assert renames(iter(dotted)) == {}
