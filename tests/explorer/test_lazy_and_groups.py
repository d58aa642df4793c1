"""Lazy expansion and grouping in a real browser: a node with hundreds of neighbours opens a
searchable list, a table with 52 writers shows them as one group node until clicked, and cards are
grouped by database or by a node property (a dbt folder, a layer)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import update

from headwater.store import Direction, open_store
from headwater.store.schema import nodes
from tests.explorer.helpers import Server
from tests.explorer.synthetic import FAN_IN, MARTS, fan_in_events
from tests.explorer.test_browser import goto, ids, nid, settle, shot
from tests.explorer.test_warehouse_explorer import warehouse_server  # noqa: F401  (a fixture)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
LAYERS = {"feed": "raw", "fan_in": "core", "fan_in_report": "report"}


@pytest.fixture(scope="module")
def fan_server() -> Iterator[Server]:
    """``fan_in`` written by 52 jobs; datasets carry a ``layer`` property (raw, core, report)."""
    with tempfile.TemporaryDirectory(prefix="hw-explorer-fan-") as tmp:
        store = open_store(f"sqlite:///{tmp}/fan.db")
        store.record_batch(fan_in_events())
        with store.engine.begin() as conn:
            for prefix, layer in LAYERS.items():
                conn.execute(
                    update(nodes)
                    .where(nodes.c.type == "DATASET", nodes.c.short.like(f"{prefix}%"))
                    .values(properties=json.dumps({"layer": layer}))
                )
        with Server(store) as srv:
            yield srv
        store.close()


def texts(page: Any, selector: str) -> list[str]:
    return page.locator(selector).all_text_contents()


def test_hundreds_of_outputs_open_a_searchable_list(page: Any, big_server: Server) -> None:
    store = big_server.store
    hub = nid(store, "synth.hub")
    readers = {n.id: n.name for n in store.get_lineage("synth.hub", Direction.DOWNSTREAM, 1).nodes if n.type == "JOB"}
    assert len(readers) == MARTS
    goto(page, big_server, f"/node/{hub}?dir=DOWNSTREAM&depth=1")
    drawn = ids(page, "[data-kind=node][data-type=JOB]")
    assert len(drawn) == 50 and drawn <= set(readers)
    assert texts(page, "[data-kind=stub] text.sname") == [f"+{MARTS - 50} more — search…"]
    page.dispatch_event("[data-kind=stub]", "click")
    assert page.locator("#more-list").is_visible()
    assert page.text_content("#more-count") == f"{MARTS - 50} of {MARTS - 50}"
    assert ids(page, "#more-items .more-item") == set(readers) - drawn
    page.fill("#more-filter", "mart_11")
    hits = ids(page, "#more-items .more-item")
    assert hits == {i for i in set(readers) - drawn if "mart_11" in readers[i]}
    assert len(hits) == 10  # mart_110 … mart_119; mart_011 is among the 50 drawn
    shot(page, "more-list")
    pick = min(hits)
    page.click(f"#more-items .more-item[data-id='{pick}']")
    settle(page)
    assert not page.locator("#more-list").is_visible()
    assert ids(page, "[data-kind=node][data-type=JOB]") == drawn | {pick}
    assert texts(page, "[data-kind=stub] text.sname") == [f"+{MARTS - 51} more — search…"]


def test_a_table_with_52_writers_folds_them_into_one_node(page: Any, fan_server: Server) -> None:
    store = fan_server.store
    fan_in = nid(store, "synth.fan_in")
    writers = {
        e.source
        for e in store.get_lineage("synth.fan_in", Direction.UPSTREAM, 1).edges
        if e.target == fan_in and e.type == "WRITE"
    }
    assert len(writers) == FAN_IN
    goto(page, fan_server, f"/node/{fan_in}?dir=BOTH&depth=2")
    group = page.locator("[data-kind=group]")
    assert group.count() == 1
    assert group.get_attribute("data-count") == str(FAN_IN)
    assert group.locator("text.name").text_content() == f"{FAN_IN} jobs"
    assert not ids(page, "[data-kind=node][data-type=JOB]") & writers  # folded: none drawn
    # the group reads what its jobs read: every feed is drawn, on the group's left
    feeds = {nid(store, f"synth.feed_{k:02d}") for k in range(FAN_IN)}
    assert len(ids(page, "[data-kind=node][data-type=DATASET]") & feeds) == 50
    shot(page, "writers-folded")
    page.dispatch_event("[data-kind=group]", "click")
    settle(page)
    assert page.locator("[data-kind=group]").count() == 0
    shown = ids(page, "[data-kind=node][data-type=JOB]") & writers
    assert len(shown) == 50
    assert texts(page, "[data-kind=stub] text.sname") == [f"+{FAN_IN - 50} more — show"]


def boxes(page: Any) -> dict[str, list[dict[str, float]]]:
    return page.evaluate(
        """() => {
            const out = {};
            for (const g of window.headwater.ui.scene.groups) (out[g.group] ||= []).push(g);
            return out;
        }"""
    )


def inside(box: dict[str, float], group: dict[str, float]) -> bool:
    return (
        group["x"] <= box["x"]
        and box["x"] + box["width"] <= group["x"] + group["width"]
        and group["y"] <= box["y"]
        and box["y"] + box["height"] <= group["y"] + group["height"]
    )


def test_cards_are_grouped_by_database(page: Any, warehouse_server: Server) -> None:  # noqa: F811
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    assert page.input_value("#group-by") == "db"
    datasets = [n for n in store.get_lineage("rpt.exec_summary", Direction.UPSTREAM, None).nodes if n.type == "DATASET"]
    datasets.append(store.resolve("rpt.exec_summary"))
    by_db = {n.id: n.name.split(".")[1] for n in datasets}  # internal.<db>.<table>: the catalog is shared
    groups = boxes(page)
    assert set(groups) == set(by_db.values())
    assert set(texts(page, ".groupbox .gname")) == set(by_db.values())
    positions = page.evaluate("() => Object.fromEntries(window.headwater.graph.positions)")
    for node_id, db in by_db.items():  # every card inside a box of its database
        assert any(inside(positions[str(node_id)], g) for g in groups[db]), (node_id, db)
    shot(page, "grouped-by-database")
    page.select_option("#group-by", "none")
    settle(page)
    assert "group=none" in page.url
    assert page.locator(".groupbox").count() == 0


def test_cards_are_grouped_by_a_property_named_in_the_ui(page: Any, fan_server: Server) -> None:
    store = fan_server.store
    report = nid(store, "synth.fan_in_report")
    goto(page, fan_server, f"/node/{report}?dir=UPSTREAM&depth=1")
    # one database: no boxes by database; the datasets' property is offered
    assert page.locator(".groupbox").count() == 0
    assert "layer" in texts(page, "#group-by option")
    page.select_option("#group-by", "p:layer")
    settle(page)
    assert "group=p:layer" in page.url
    assert set(boxes(page)) == {"core", "report"}
    goto(page, fan_server, f"/node/{report}?dir=UPSTREAM&depth=3&group=p:layer")  # the feeds too
    assert set(boxes(page)) == {"raw", "core", "report"}
    assert page.input_value("#group-by") == "p:layer"
