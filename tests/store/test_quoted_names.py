"""Issue 37 item 6: tables whose identifiers hold a dot or a quote are nodes of their own, shown
quoted (``internal.d."a.b"``) and found again by the name as shown; plain names are unchanged.

Each pair is extracted from SQL, recorded and queried by name, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from headwater.extract import extract_script
from headwater.store import LineageStore
from headwater.store.schema import nodes

# (the quoted table's SQL, its node, the plain table's SQL, its node): each pair merged into one node before
PAIRS = [
    ("`[/x]`", 'internal.d."[/x]"', "`/x`", "internal.d./x"),
    ("`a.b`", 'internal.d."a.b"', "a.b", "internal.a.b"),
    ('`"q"`', 'internal.d."""q"""', "q", "internal.d.q"),
]


def _record(store: LineageStore, sql: str) -> None:
    for event in extract_script(sql, dialect="doris", database="d", statements="all").events:
        store.record(event)


def _datasets(store: LineageStore) -> set[str]:
    with store.engine.connect() as conn:
        return set(conn.scalars(select(nodes.c.name).where(nodes.c.type == "DATASET")))


@pytest.mark.parametrize(("quoted", "quoted_node", "plain", "plain_node"), PAIRS)
def test_two_tables_are_two_nodes(
    store: LineageStore, quoted: str, quoted_node: str, plain: str, plain_node: str
) -> None:
    _record(store, f"INSERT INTO from_quoted SELECT c FROM {quoted}")
    _record(store, f"INSERT INTO from_plain SELECT c FROM {plain}")
    assert {quoted_node, plain_node} <= _datasets(store)
    one = store.get_field_origin("from_quoted.c")
    other = store.get_field_origin("from_plain.c")
    assert [o.field.name for o in one.origins] == [f"{quoted_node}.c"]
    assert [o.field.name for o in other.origins] == [f"{plain_node}.c"]


@pytest.mark.parametrize(("quoted", "quoted_node", "plain", "plain_node"), PAIRS)
def test_the_shown_name_finds_its_node(
    store: LineageStore, quoted: str, quoted_node: str, plain: str, plain_node: str
) -> None:
    _record(store, f"INSERT INTO from_quoted SELECT c FROM {quoted}")
    _record(store, f"INSERT INTO from_plain SELECT c FROM {plain}")
    for node, target in ((quoted_node, "internal.d.from_quoted"), (plain_node, "internal.d.from_plain")):
        shown = node.removeprefix("internal.")  # as a user copies it, without the default catalog
        assert store.resolve(f"{shown}.c").name == f"{node}.c"
        assert store.resolve(shown).name == node
        impact = store.get_field_impact(f"{shown}.c")
        assert impact.field.name == f"{node}.c" and [f.field.name for f in impact.impacted] == [f"{target}.c"]


def test_a_dotted_table_is_typed_in_any_quotes(store: LineageStore) -> None:
    _record(store, "INSERT INTO t SELECT c FROM `a.b`")
    for typed in ('d."a.b".c', "d.`a.b`.c", "d.[a.b].c", '"A.B".c', 'INTERNAL.D."a.b".C'):
        assert store.resolve(typed).name == 'internal.d."a.b".c', typed


def test_plain_names_are_unchanged(store: LineageStore) -> None:
    _record(store, "INSERT INTO sales.daily SELECT o.amount FROM sales.orders o")
    assert {"internal.sales.daily", "internal.sales.orders"} <= _datasets(store)
    assert store.resolve("sales.`Orders`.amount").name == "internal.sales.orders.amount"
