"""The store as a catalog (``StoreCatalog``) and views as VIEW datasets, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses

from headwater.catalog import ColumnSchema
from headwater.extract import ExtractOptions, Extractor, extract_script
from headwater.model import TableRef
from headwater.model.job import JOB_PROPERTY as JOB
from headwater.store import LineageStore
from headwater.store.catalog import StoreCatalog


def _t(db: str, name: str) -> TableRef:
    return TableRef("internal", db, name)


def test_columns_in_order_with_types_from_the_newest_writer(store: LineageStore) -> None:
    ddl = "CREATE TABLE m.f (b INT, a STRING);\n"
    first = extract_script(ddl + "INSERT INTO m.f SELECT x, y FROM s.raw", dialect="spark")
    store.record_batch(first.events)
    cat = StoreCatalog(store)
    assert cat.table(_t("m", "f")).columns == (ColumnSchema("b", "INT"), ColumnSchema("a", "STRING"))
    assert cat.table(_t("s", "raw")) is None  # read only: its columns are not all known
    assert cat.table(_t("m", "nope")) is None and _t("m", "f") not in cat  # a table, not a recorded view
    later = extract_script("CREATE TABLE m.f AS SELECT 1 AS only_one FROM s.raw", dialect="spark")
    store.record_batch(later.events)
    assert cat.table(_t("m", "f")).column_names == ("b", "a")  # cached until refresh
    cat.refresh()
    assert cat.table(_t("m", "f")).column_names == ("only_one",)


def test_a_recorded_view_is_a_view_node_and_a_catalog_view(store: LineageStore) -> None:
    ex = Extractor(options=ExtractOptions(dialect="spark", view_nodes=True))
    result = ex.run("CREATE VIEW m.v AS SELECT id, amount * 2 AS doubled FROM s.orders")
    store.record_batch(result.events)
    assert store.resolve("m.v").properties["dataset_type"] == "VIEW"
    cat = StoreCatalog(store, "spark")
    v = cat.table(_t("m", "v"))
    assert v.column_names == ("id", "doubled") and v.view_sql.startswith("CREATE VIEW m.v AS")
    assert _t("m", "v") in cat
    # a later statement, extracted with the store as catalog, reads the view's columns
    reader = Extractor(cat, ExtractOptions(dialect="spark", view_nodes=True))
    reader.external_views = cat
    event = reader.run("CREATE TABLE r.t AS SELECT doubled FROM m.v").events[0]
    assert [str(c) for d in event.direct for c in (i.column for i in d.inputs)] == ["internal.m.v.doubled"]
    store.record_batch([event])
    origin = store.get_field_origin("r.t.doubled").origins
    assert [o.field.name for o in origin] == ["internal.s.orders.amount"]


def test_a_doris_event_read_through_a_view_reads_the_view_too(store: LineageStore) -> None:
    """The Doris form (base tables, ``via``): the view becomes a VIEW dataset read by the job."""
    ex = Extractor(options=ExtractOptions(dialect="spark"))
    ex.run("CREATE VIEW m.v AS SELECT id, amount * 2 AS doubled FROM s.orders")
    event = ex.run("CREATE TABLE r.t AS SELECT doubled FROM m.v").events[0]
    assert event.via == (_t("m", "v"),) and event.sources == (_t("s", "orders"),)
    store.record_batch([event])
    assert store.resolve("m.v").properties["dataset_type"] == "VIEW"
    up = store.get_upstream("r.t", max_depth=1, node_types=["DATASET"])
    assert sorted(n.name for n in up.nodes) == ["internal.m.v", "internal.r.t", "internal.s.orders"]
    assert [o.field.name for o in store.get_field_origin("r.t.doubled").origins] == ["internal.s.orders.amount"]


def test_a_table_written_by_a_star_over_unknown_columns_stays_open(store: LineageStore) -> None:
    # issue 34 (6): its listed columns are certain, a name it might have binds to it (no unknown_column)
    store.record_batch(
        extract_script("CREATE TABLE d.accounts AS SELECT *, 1 AS flag FROM src.h", dialect="bigquery").events
    )
    cat = StoreCatalog(store, "bigquery")
    assert cat.table(_t("d", "accounts")).open
    e = (
        Extractor(cat, ExtractOptions(dialect="bigquery"))
        .run("INSERT INTO d.out SELECT a.account_name, flag FROM d.accounts AS a")
        .events[0]
    )
    assert [[c.column for c in d.sources] for d in e.direct] == [["account_name"], ["flag"]]
    assert "unknown_column" not in [d.code for d in e.diagnostics]


def test_a_refresh_forgets_only_what_the_recorded_items_touch(store: LineageStore) -> None:
    """``refresh(touched)`` after a file: the answers of tables its items wrote or defined, and of jobs
    they recorded again, are asked again; the others stay (asked once for the whole project)."""
    from headwater.cli.ingest_cmd import EVENT, Item, _touches

    def run(sql: str, job: str) -> list:
        events = extract_script(sql, dialect="spark").events
        return [
            dataclasses.replace(
                e,
                context=dataclasses.replace(
                    e.context, external_catalog_properties={**e.context.external_catalog_properties, JOB: job}
                ),
            )
            for e in events
        ]

    def touched(events: list) -> set:
        return {k for e in events for k in _touches(Item("f.sql:1", EVENT, e))}

    store.record_batch(run("CREATE TABLE m.a AS SELECT x FROM s.raw", "a.sql#1"))
    cat = StoreCatalog(store)
    asked: list[str] = []
    lookup = cat._lookup
    cat._lookup = lambda ref: (asked.append(ref.name), lookup(ref))[1]  # type: ignore[method-assign]
    assert cat.table(_t("m", "a")).column_names == ("x",) and cat.table(_t("m", "b")) is None
    b = run("CREATE TABLE m.b AS SELECT y FROM s.raw", "b.sql#1")
    store.record_batch(b)
    cat.refresh(touched(b))
    assert cat.table(_t("m", "b")).column_names == ("y",)  # written: asked again
    assert cat.table(_t("m", "a")).column_names == ("x",)  # untouched: not asked again
    assert asked == ["a", "b", "b"]
    moved = run("CREATE TABLE m.c AS SELECT x FROM s.raw", "a.sql#1")  # a.sql#1 now writes m.c, not m.a
    store.record_batch(moved)
    cat.refresh(touched(moved))
    assert cat.table(_t("m", "a")) is None  # its job was recorded again: asked again, no writer left
    assert asked[-1] == "a"
    cat.refresh()  # everything
    cat.table(_t("m", "b"))
    assert asked[-1] == "b"
