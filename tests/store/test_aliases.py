"""Issue 38 item 2: a dataset's other names (its ``symlinks``) are searchable — the resolver, the explorer's
search — and a Doris event's ``via`` view named by one of them is that dataset (``store/aliases.py``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import select
from tests.store.test_openlineage_symlinks import HDFS, HIVE, PATH, PG, TABLE, spark, trino

from headwater.dispatch.sample import tiny_event
from headwater.model import TableRef
from headwater.model.ol_naming import OpenLineageNaming, Place
from headwater.store import LineageStore, open_store
from headwater.store.errors import NodeNotFound
from headwater.store.schema import aliases, nodes
from headwater.store.search import search_nodes

HIVE_NAME = f"{HIVE}.{TABLE}"  # the Hive name as a node name
HDFS_NAME = f"{HDFS}.{PATH}"


@pytest.fixture(params=["spark first", "trino first"])
def both(request: pytest.FixtureRequest, store: LineageStore) -> tuple[LineageStore, str, str]:
    """The store of the issue's example; the summary's own name and its other name."""
    events = [spark(), trino()] if request.param == "spark first" else [trino(), spark()]
    for e in events:
        store.record_openlineage(e)
    own, other = (HDFS_NAME, HIVE_NAME) if request.param == "spark first" else (HIVE_NAME, HDFS_NAME)
    return store, own, other


def test_origin_goes_through_the_one_node(both: tuple[LineageStore, str, str]) -> None:
    store, own, _ = both
    origin = store.get_field_origin("hive.reports.regions.region")
    assert [o.field.name for o in origin.origins] == [f"{PG}.shop.public.orders.region"]
    with store.engine.connect() as conn:
        assert conn.execute(select(nodes.c.name).where(nodes.c.name.in_([HIVE_NAME, HDFS_NAME]))).scalars().all() == [
            own
        ]


def test_an_alias_resolves_to_the_node(both: tuple[LineageStore, str, str]) -> None:
    store, own, other = both
    for ref in (other, other.upper(), "sales.region_summary" if other == HIVE_NAME else "db/region_summary"):
        node = store.resolve(ref)
        assert (node.type, node.name) == ("DATASET", own), ref
    field = store.resolve(f"{other}.region")  # a column by the dataset's other name
    assert (field.type, field.name) == ("FIELD", f"{own}.region")
    origin = store.get_field_origin(f"{other}.region")
    assert [o.field.name for o in origin.origins] == [f"{PG}.shop.public.orders.region"]
    with pytest.raises(NodeNotFound):
        store.resolve(f"{other}.no_such_column")


def test_search_finds_a_node_by_its_alias_under_its_own_name(both: tuple[LineageStore, str, str]) -> None:
    store, own, other = both
    with store.engine.connect() as conn:
        hits = search_nodes(conn, other)
        assert [(h.node.name, h.match, h.alias) for h in hits.hits] == [(own, "exact", other)]
        word = "metastore" if other == HIVE_NAME else "warehouse"  # in the other name only
        assert [(h.node.name, h.alias) for h in search_nodes(conn, word).hits] == [(own, other)]
        own_hit = search_nodes(conn, own).hits[0]  # its own name matches as well: no alias shown
        assert (own_hit.node.name, own_hit.alias) == (own, None)
        assert search_nodes(conn, other, types=["FIELD"]).hits == []


def test_aliases_are_rows_of_an_indexed_table(both: tuple[LineageStore, str, str]) -> None:
    store, own, other = both
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(aliases.c.name, aliases.c.short, nodes.c.name).join(nodes, nodes.c.id == aliases.c.node_id)
        ).all()
    short = "region_summary" if other == HIVE_NAME else "db/region_summary"
    assert [tuple(r) for r in rows] == [(other, short, own)]
    assert {i.name for i in aliases.indexes} == {"ix_hw_aliases_short", "ix_hw_aliases_node"}


# ---------------------------------------------------------------------------- Doris ``via``

NAMING = OpenLineageNaming({"hive": Place(HIVE)})  # Doris's catalog ``hive`` is that metastore


def doris(query_id: str = "d1") -> Any:
    """A Doris-form event that read through the view ``hive.sales.region_summary`` (base table in
    ``sources``, the view in ``via``)."""
    event = tiny_event(query_id, target="top_regions", source="region_base", db="rpt")
    return replace(event, via=(TableRef("hive", "sales", "region_summary"),))


@pytest.mark.parametrize("order", ["spark first", "doris first"])
def test_a_via_view_named_by_an_alias_is_that_dataset(store_url: str, order: str) -> None:
    store = open_store(store_url, naming=NAMING)
    if order == "spark first":
        store.record_openlineage(spark())
        store.record(doris())
        own = HDFS_NAME
    else:
        store.record(doris())
        store.record_openlineage(spark())
        own = "hive.sales.region_summary"
    with store.engine.connect() as conn:
        datasets = conn.execute(select(nodes.c.name).where(nodes.c.type == "DATASET")).scalars().all()
    assert ("hive.sales.region_summary" in datasets, HDFS_NAME in datasets) == (own != HDFS_NAME, own == HDFS_NAME)
    up = store.get_lineage("internal.rpt.top_regions", "UPSTREAM", None)
    read = sorted(n.name for n in up.nodes if n.type == "DATASET" and n.depth == -1)
    assert read == sorted(["internal.rpt.region_base", own])
    summary = store.resolve("hive.sales.region_summary")
    assert summary.name == own and summary.properties.get("dataset_type") == "VIEW"
    assert store.resolve(HDFS_NAME).name == own
    # the Spark job's inputs are upstream of the view the Doris job read
    upstream = store.get_lineage(own, "UPSTREAM", None)
    assert f"{PG}.shop.public.orders" in {n.name for n in upstream.nodes}


def test_a_via_view_without_alias_is_its_own_node(store_url: str) -> None:
    store = open_store(store_url, naming=NAMING)
    store.record(doris())
    assert store.resolve("hive.sales.region_summary").name == "hive.sales.region_summary"


def test_revision_0007_gives_existing_symlinked_datasets_their_alias_rows(tmp_path: Any) -> None:
    import json

    from headwater.store.engine import make_engine
    from headwater.store.migrate import upgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    assert upgrade(engine, "0006") == "0006"
    props = {"openlineage_aliases": [[HDFS, PATH], [HIVE, TABLE]]}
    with engine.begin() as conn:
        conn.execute(
            nodes.insert().values(
                id=4,
                type="DATASET",
                name=HDFS_NAME,
                short="db/region_summary",
                properties=json.dumps(props),
                created_us=0,
            )
        )
    assert upgrade(engine) == "0007"
    with engine.connect() as conn:
        assert [tuple(r) for r in conn.execute(select(aliases.c.name, aliases.c.short, aliases.c.node_id))] == [
            (HIVE_NAME, "region_summary", 4)
        ]
    engine.dispose()
