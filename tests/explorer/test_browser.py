"""The explorer in a real browser (Debian's chromium, headless) against a real server.

On the demo (the Doris guide's example): search, open a dataset, expand its columns, click a column
and check the exact highlighted nodes and edges, hover an edge for its statement, run an impact
analysis, go back in time. On the 500-node synthetic warehouse: render, pan and zoom, fan-out,
truncation, highlighting across collapsed cards.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from headwater.store import Direction, LineageStore
from tests.explorer.helpers import ARTIFACTS, Server, free_port

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def nid(store: LineageStore, name: str) -> int:
    return store.resolve(name).id


def goto(page: Any, server: Server, hash_: str) -> None:
    page.goto(f"{server.url}/#{hash_}")
    settle(page)


def settle(page: Any) -> None:
    page.wait_for_function("() => window.headwater !== undefined")
    page.evaluate("() => window.headwater.settled()")


def ids(page: Any, selector: str) -> set[int]:
    return {int(x) for x in page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.id)")}


def view_ids(page: Any, selector: str) -> set[str]:
    return set(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.id)"))


def node_box(page: Any, node_id: int) -> dict[str, float]:
    return page.evaluate(f"() => window.headwater.graph.positions.get({node_id})")


def upstream_edges(store: LineageStore, field: str, indirect: bool = True) -> set[int]:
    """MAPS_TO edges on some path into ``field`` (the store's own traversal, not the explorer's endpoint)."""
    g = store.get_lineage(field, Direction.UPSTREAM, None)
    return {e.id for e in g.edges if e.type == "MAPS_TO" and (indirect or e.dependency == "DIRECT")}


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def click_toggle(page: Any, dataset: int) -> None:
    page.click(f"[data-kind=toggle][data-id='{dataset}']")
    settle(page)


def click_field(page: Any, field: int) -> None:
    page.click(f"[data-kind=field][data-id='{field}']")
    settle(page)


def hover_edge(page: Any, kind: str, edge_id: int | str) -> bool:
    """Move the mouse onto a point of an edge's drawn path where no other edge lies on top of it."""
    point = page.evaluate(
        """([kind, id]) => {
            const g = document.querySelector(`[data-kind=${kind}][data-id='${id}']`);
            const p = g.querySelector('path.hit');
            const m = p.getScreenCTM();
            const len = p.getTotalLength();
            for (let k = 1; k < 40; k++) {
                const t = 0.5 + (k % 2 ? 1 : -1) * Math.floor(k / 2) / 40;
                const at = p.getPointAtLength(len * t);
                const x = at.x * m.a + at.y * m.c + m.e;
                const y = at.x * m.b + at.y * m.d + m.f;
                if (document.elementFromPoint(x, y)?.closest('[data-kind]') === g) return {x, y};
            }
            return null;
        }""",
        [kind, str(edge_id)],
    )
    if point is None:
        return False
    page.mouse.move(point["x"], point["y"])
    return True


# ---------------------------------------------------------------------------- demo data


def test_home_lists_datasets_and_search_is_keyboard_driven(page: Any, demo_server: Server) -> None:
    store = demo_server.store
    goto(page, demo_server, "/")
    # one database, its tables the most connected first (each is read or written by one statement)
    assert page.locator(".db-group h2").all_inner_texts() == ["internal.lineage_demo 3 tables"]
    assert sorted(page.locator("#home-list a").all_inner_texts()) == [
        "DATASET lineage_customer_summary",
        "DATASET lineage_customers",
        "DATASET lineage_orders",
    ]
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "search-input"
    page.keyboard.type("lineage_cust")
    options = page.locator("#search-list [role=option]")
    options.first.wait_for()
    first = [(o.get_attribute("data-type"), o.locator(".hit-name").inner_text()) for o in options.all()[:2]]
    assert first == [("DATASET", "lineage_customers"), ("DATASET", "lineage_customer_summary")]
    assert options.first.locator(".badge").inner_text() == "DATASET"

    page.fill("#search-input", "")
    page.keyboard.type("amou")  # a substring: no name starts with it
    page.wait_for_function(
        "() => document.querySelector('#search-list [role=option] .hit-name')?.textContent === 'lineage_orders.amount'"
    )
    hits = [o.locator(".hit-name").inner_text() for o in options.all()]
    assert hits == ["lineage_orders.amount", "lineage_customer_summary.total_amount"]
    assert {o.get_attribute("data-type") for o in options.all()} == {"FIELD"}
    assert page.locator("#search-list mark").first.inner_text() == "amou"
    page.keyboard.press("ArrowDown")
    assert options.nth(1).get_attribute("aria-selected") == "true"
    page.keyboard.press("Enter")
    settle(page)
    summary = nid(store, "lineage_customer_summary")
    total = nid(store, "lineage_customer_summary.total_amount")
    assert page.evaluate("() => location.hash") == f"#/node/{summary}?exp={summary}&sel={total}"
    assert ids(page, "[data-kind=field].hl-root") == {total}


def test_where_region_group_comes_from_by_clicking(page: Any, demo_server: Server) -> None:
    store = demo_server.store
    orders, customers, summary = (
        nid(store, n) for n in ("lineage_orders", "lineage_customers", "lineage_customer_summary")
    )
    job = next(n.id for n in store.get_lineage(summary, Direction.UPSTREAM, 1).nodes if n.type == "JOB")
    goto(page, demo_server, f"/node/{summary}")
    assert ids(page, "[data-kind=node]") == {orders, customers, summary, job}
    assert page.locator("[data-kind=field]").count() == 0  # datasets start collapsed
    # left to right: sources, the job, the target
    xs = {n: node_box(page, n)["x"] for n in (orders, customers, job, summary)}
    assert xs[orders] == xs[customers] < xs[job] < xs[summary]

    for d in (summary, orders, customers):
        click_toggle(page, d)
    assert page.locator(f"[data-kind=field][data-dataset='{summary}']").count() == 5
    assert page.locator("[data-kind=field]").count() == 11

    region_group = nid(store, "lineage_customer_summary.region_group")
    click_field(page, region_group)
    shot(page, "demo-region-group")
    sources = {
        nid(store, f)
        for f in (
            "lineage_orders.region",
            "lineage_orders.customer_id",
            "lineage_orders.amount",
            "lineage_orders.status",
            "lineage_customers.customer_id",
            "lineage_customers.customer_level",
        )
    }
    assert ids(page, "[data-kind=field].hl-root") == {region_group}
    assert ids(page, "[data-kind=field].hl-up") == sources
    assert ids(page, "[data-kind=field].hl-down") == set()
    expected = upstream_edges(store, "lineage_customer_summary.region_group")
    assert expected
    assert ids(page, "[data-kind=cedge].hl") == expected
    assert ids(page, "[data-kind=cedge].hl-up") == expected
    assert ids(page, "[data-kind=node].hl") == {orders, customers, summary, job}
    flow = store.get_lineage(summary, Direction.UPSTREAM, 1).edges
    assert view_ids(page, "[data-kind=edge].hl") == {f"e{e.id}" for e in flow if e.type in ("READ", "WRITE")}
    origins = page.locator("#origin-list li")
    assert {int(f) for f in origins.evaluate_all("ls => ls.map(l => l.dataset.field)")} == sources

    # DIRECT only: exactly the DIRECT mappings are followed
    page.uncheck("#indirect")
    settle(page)
    direct = upstream_edges(store, "lineage_customer_summary.region_group", indirect=False)
    assert ids(page, "[data-kind=cedge].hl") == direct
    assert page.locator("[data-kind=cedge].indirect").count() == 0
    region_label = nid(store, "lineage_customer_summary.region_label")
    click_field(page, region_label)  # UPPER(o.region)
    assert ids(page, "[data-kind=field].hl-up") == {nid(store, "lineage_orders.region")}
    assert ids(page, "[data-kind=cedge].hl") == upstream_edges(
        store, "lineage_customer_summary.region_label", indirect=False
    )
    region = page.locator("#origin-list li")
    assert region.count() == 1
    assert region.get_attribute("data-field") == str(nid(store, "lineage_orders.region"))
    assert region.locator(".dep").inner_text() == "DIRECT"
    assert region.locator(".ptype").inner_text() == "TRANSFORMATION"

    # … and what lineage_orders.amount feeds
    amount = nid(store, "lineage_orders.amount")
    total = nid(store, "lineage_customer_summary.total_amount")
    click_field(page, amount)
    assert ids(page, "[data-kind=field].hl-root") == {amount}
    assert ids(page, "[data-kind=field].hl-down") == {total}
    down = [e.id for e in store.get_lineage(amount, Direction.DOWNSTREAM, None).edges if e.dependency == "DIRECT"]
    assert ids(page, "[data-kind=cedge].hl-down") == set(down)
    assert page.locator("#impact-list li").all_inner_texts()[0].startswith("lineage_customer_summary.total_amount")
    page.check("#indirect")
    settle(page)
    # with INDIRECT dependencies (HAVING SUM(amount) >= 50 filters every row) it feeds every column
    assert ids(page, "[data-kind=field].hl-down") == {
        nid(store, f"lineage_customer_summary.{c}")
        for c in ("customer_id", "region_label", "total_amount", "customer_seq", "region_group")
    }


def test_edge_hover_shows_expression_job_and_links_to_the_statement(page: Any, demo_server: Server) -> None:
    store = demo_server.store
    summary, orders = nid(store, "lineage_customer_summary"), nid(store, "lineage_orders")
    amount = nid(store, "lineage_orders.amount")
    agg = next(e for e in store.get_lineage(amount, Direction.DOWNSTREAM, 1).edges if e.subtype == "AGGREGATION")
    goto(page, demo_server, f"/node/{summary}?exp={summary},{orders}")
    line = page.locator(f"[data-kind=cedge][data-id='{agg.id}'] path.line")
    assert line.get_attribute("stroke-dasharray") is None  # DIRECT: solid
    indirect = page.locator("[data-kind=cedge].indirect path.line").first
    assert indirect.get_attribute("stroke-dasharray") == "6 4"  # INDIRECT: dashed
    colours = set(
        page.eval_on_selector_all("[data-kind=cedge] path.line", "ps => ps.map(p => p.getAttribute('stroke'))")
    )
    assert len(colours) >= 5  # coloured by subtype

    # edges between the same two columns are drawn (almost) on top of each other: hover any of them
    parallel = {e.id for e in store.get_lineage(amount, Direction.DOWNSTREAM, 1).edges if e.target == agg.target}
    assert len(parallel) == 3
    assert any(hover_edge(page, "cedge", e) for e in sorted(parallel))
    tip = page.locator("#tooltip")
    tip.wait_for(state="visible")
    page.wait_for_function("() => document.querySelector('#tooltip .tt-link') !== null")
    # the hovered edge, and the others drawn between the same two columns (SORT BY and HAVING on amount)
    hovered = int(tip.get_attribute("data-edge"))
    shown = {hovered} | {
        int(x) for x in tip.locator(".tt-parallel li").evaluate_all("ls => ls.map(l => l.dataset.edge)")
    }
    assert shown == parallel
    text = tip.inner_text()
    assert "SUM(lineage_orders.amount)" in text
    assert "AGGREGATION" in text and "DIRECT" in text and "SORT" in text and "FILTER" in text
    assert "lineage_customer_summary#" in tip.locator(".tt-job").inner_text()
    assert "INSERT INTO lineage_customer_summary" in tip.locator(".tt-sql").inner_text()
    shot(page, "demo-edge-tooltip")
    tip.locator(".tt-link").click()
    settle(page)
    dialog = page.locator("#statement")
    dialog.wait_for(state="visible")
    assert page.locator("#statement-title").inner_text() == f"Statement behind edge #{hovered}"
    sql = dialog.locator("pre.sql").inner_text()
    assert "INSERT INTO lineage_customer_summary" in sql and "ORDER BY total_amount DESC" in sql
    context = dialog.locator("dl.context").inner_text()
    assert "lineage_user" in context and "192.0.2.10" in context and "lineage_demo" in context
    assert "stmt=e" in page.evaluate("() => location.hash")
    shot(page, "demo-statement")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !location.hash.includes('stmt=')")
    assert not dialog.is_visible()


def test_impact_panel_shows_groups_severities_samples_and_jumps(page: Any, demo_server: Server) -> None:
    store = demo_server.store
    summary = nid(store, "lineage_customer_summary")
    goto(page, demo_server, f"/node/{summary}")
    page.click("[role=tab][data-tab=impact]")
    page.fill("#impact-target", "lineage_orders.customer_id")
    page.select_option("#impact-change", "SCHEMA_CHANGE")
    page.select_option("#impact-op", "DROP_COLUMN")
    page.click("#impact-run")
    page.locator("#impact-result .group").first.wait_for()
    expected = store.analyze_impact(
        "lineage_orders.customer_id", "SCHEMA_CHANGE", {"operation": "DROP_COLUMN"}, None, 10
    )
    assert page.locator("#impact-total").inner_text() == str(expected.total_affected_count)
    assert page.locator("#impact-risk").inner_text() == expected.risk_level
    overall = page.locator(".impact-head .sev").get_attribute("data-severity")
    assert overall == expected.overall_severity == "CRITICAL"  # customer_id is copied (IDENTITY)
    groups = page.locator("#impact-result .group")
    seen = [
        (
            g.get_attribute("data-type"),
            int(g.locator(".group-head b").inner_text()),
            g.locator(".sev").get_attribute("data-severity"),
        )
        for g in groups.all()
    ]
    assert seen == [(g.type, g.count, g.severity) for g in expected.groups]
    samples = page.locator("#impact-result .group[data-type=FIELD] a.jump")
    assert samples.all_inner_texts() == next(g.sample_node_ids for g in expected.groups if g.type == "FIELD")
    shot(page, "demo-impact")

    target = samples.first.inner_text()
    samples.first.click()
    settle(page)
    field = nid(store, f"FIELD:{target}")
    assert page.evaluate("() => window.headwater.route.sel") == field
    assert ids(page, "[data-kind=field].hl-root") == {field}

    # a dataset and another change type
    page.fill("#impact-target", "lineage_orders")
    page.select_option("#impact-change", "DATA_UPDATE")
    page.click("#impact-run")
    page.wait_for_function(
        "() => document.querySelector('#impact-result .muted')?.textContent.startsWith('DATA_UPDATE')"
    )
    expected = store.analyze_impact("lineage_orders", "DATA_UPDATE", {}, None, 10)
    assert page.locator(".impact-head .sev").get_attribute("data-severity") == expected.overall_severity
    assert page.locator("#impact-total").inner_text() == str(expected.total_affected_count)


def test_as_of_redraws_the_graph_as_it_was(page: Any, demo_server: Server) -> None:
    store = demo_server.store
    summary = nid(store, "lineage_customer_summary")
    goto(page, demo_server, f"/node/{summary}")
    assert page.locator("[data-kind=node]").count() == 4
    page.fill("#asof", "2001-01-01T00:00:00")
    page.dispatch_event("#asof", "change")
    settle(page)
    assert "asof=2001-01-01T" in page.evaluate("() => decodeURIComponent(location.hash)")
    assert page.locator("[data-kind=node]").count() == 1  # nothing was recorded yet
    assert page.locator("[data-kind=edge]").count() == 0
    assert "as it was at" in page.locator("#notices").inner_text()
    page.click("#asof-now")
    settle(page)
    assert page.locator("[data-kind=node]").count() == 4
    assert page.input_value("#asof") == ""


def test_direction_depth_and_node_type_filter(page: Any, big_server: Server) -> None:
    store = big_server.store
    root = nid(store, "l9_t00")
    goto(page, big_server, f"/node/{root}?dir=UPSTREAM&depth=1")
    assert page.locator("[data-kind=node]").count() == 5  # root, its job, 3 inputs
    page.select_option("#depth", "2")
    settle(page)
    assert page.locator("[data-kind=node]").count() == 17  # + 3 jobs + 9 tables
    page.click("#direction button[data-dir=DOWNSTREAM]")
    settle(page)
    assert page.locator("[data-kind=node]").count() == 1  # nothing below the last layer
    goto(page, big_server, f"/node/{nid(store, 'l0_t00')}?dir=DOWNSTREAM&depth=1")
    nodes = page.locator("[data-kind=node]")
    jobs = page.locator("[data-kind=node][data-type=JOB]").count()
    assert jobs >= 1 and nodes.count() == 1 + 2 * jobs
    page.click("#types summary")
    page.uncheck("#type-filter input[value=JOB]")
    settle(page)
    assert page.locator("[data-kind=node][data-type=JOB]").count() == 0
    assert page.locator("[data-kind=node]").count() == 1 + jobs
    # edges are bridged through the hidden jobs
    assert page.locator("[data-kind=edge].via").count() == jobs
    assert "hide=JOB" in page.evaluate("() => location.hash")


def test_a_depth_cut_says_how_many_nodes_it_left_out_and_opens_them(page: Any, big_server: Server) -> None:
    store = big_server.store
    root = nid(store, "l9_t00")
    answer = httpx.get(
        f"{big_server.url}/api/v1/lineage",
        params={"node": f"#{root}", "direction": "UPSTREAM", "max_depth": 1},
    ).json()
    assert answer["more_at_depth"] > 0 and "depth" in answer["cut_by"]
    goto(page, big_server, f"/node/{root}?dir=UPSTREAM&depth=1")
    notice = page.locator("#notices").inner_text()
    more = answer["more_at_depth"]
    assert f"{'1,000+' if more >= 1000 else more} more nodes beyond depth 1" in notice
    assert "node cap" not in notice  # the depth cut it, not the store's node cap
    page.click("#notices button.deeper")
    settle(page)
    need = answer["depth_needed"]
    depth = str(need) if need is not None and need <= 5 else "all"
    assert f"depth={depth}" in page.evaluate("() => location.hash")
    assert "beyond depth" not in page.locator("#notices").inner_text()


# ---------------------------------------------------------------------------- the 500-node warehouse


def test_500_nodes_render_collapsed_left_to_right_and_pan(page: Any, big_server: Server) -> None:
    store = big_server.store
    root = nid(store, "l9_t00")
    goto(page, big_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    assert page.locator("[data-kind=node]").count() == 498
    assert page.locator("[data-kind=field]").count() == 0  # collapsed to their cards
    backwards = page.evaluate(
        """() => window.headwater.ui.scene.edges.filter(e => {
              const p = e.points; return !p || p[0].x >= p[p.length - 1].x; }).length"""
    )
    assert backwards == 0  # every edge runs left to right
    layers = page.evaluate("() => new Set([...window.headwater.graph.positions.values()].map(b => b.x)).size")
    assert layers >= 19  # 10 table layers and 9 job layers

    before = page.evaluate("() => ({...window.headwater.graph.t})")
    box = page.locator("#graph").bounding_box()
    x, y = box["x"] + box["width"] - 30, box["y"] + 30
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(30):
        page.mouse.move(x - 10 * k, y + 5 * k)
    page.mouse.up()
    page.wait_for_timeout(50)
    after = page.evaluate("() => ({...window.headwater.graph.t})")
    assert after["x"] < before["x"] - 200 and after["y"] > before["y"] + 100
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 400)
    page.wait_for_timeout(50)
    assert page.evaluate("() => window.headwater.graph.t.k") < after["k"]
    page.click("#zoom-fit")
    shot(page, "big-500-nodes")


def test_fan_out_over_50_shows_50_then_more(page: Any, big_server: Server) -> None:
    store = big_server.store
    hub = nid(store, "hub")
    goto(page, big_server, f"/node/{hub}?depth=1")
    jobs_down = lambda: page.locator("[data-kind=node][data-type=JOB]").count() - 1  # noqa: E731 (one job writes hub)
    assert jobs_down() == 50
    stub = page.locator("[data-kind=stub]")
    assert stub.count() == 1 and stub.text_content().startswith("+70 more")
    assert "70 neighbours are folded" in page.locator("#notices").inner_text()
    assert page.locator("[data-kind=node]").count() == 1 + 1 + 10 + 50 + 50
    # the "more" node sits below the first 50: pan to it, as a user would, and click it; behind
    # more than 50 it opens the list of them, which can draw the next 50
    page.evaluate("id => window.headwater.graph.centerOn(id)", stub.get_attribute("data-id"))
    stub.click()
    assert page.locator("#more-list").is_visible()
    page.click("#more-next")
    settle(page)
    assert jobs_down() == 100 and stub.locator("text.sname").text_content() == "+20 more — show"
    # or use the banner's button
    page.click("#notices button.more")
    settle(page)
    assert jobs_down() == 120 and stub.count() == 0
    assert page.locator("[data-kind=node]").count() == 1 + 1 + 10 + 120 + 120


def test_truncated_answers_say_so(page: Any, big_server: Server) -> None:
    store = big_server.store
    goto(page, big_server, f"/node/{nid(store, 'l9_t00')}?dir=UPSTREAM&depth=all&limit=100")
    notice = page.locator("#notices [data-notice=warn]")
    assert "Truncated answer: showing the first 100 of 498 nodes" in notice.inner_text()
    page.click("#search-input")
    page.keyboard.type("l5_")
    page.locator("#search-list .more").wait_for()
    assert page.locator("#search-list [role=option]").count() == 20
    assert page.locator("#search-list .more").inner_text() == "more matches than shown — keep typing"


def test_column_path_across_collapsed_cards(page: Any, big_server: Server) -> None:
    store = big_server.store
    root = nid(store, "l9_t00")
    goto(page, big_server, f"/node/{root}?dir=UPSTREAM&depth=1")
    click_toggle(page, root)
    b = nid(store, "l9_t00.b")
    click_field(page, b)
    into_b = {e.id for e in store.get_lineage(b, Direction.UPSTREAM, 1).edges if e.type == "MAPS_TO"}
    assert len(into_b) == 4  # b of the three inputs (TRANSFORMATION) and l8_t00.id (FILTER)
    assert ids(page, "[data-kind=cedge].hl") == into_b
    inputs = [nid(store, f"l8_t0{k}") for k in range(3)]
    assert ids(page, "[data-kind=node].hl") >= {root, *inputs}
    badges = {i: page.locator(f"[data-kind=node][data-id='{i}'] .pathbadge").text_content() for i in inputs}
    assert badges == {inputs[0]: "2 on path", inputs[1]: "1 on path", inputs[2]: "1 on path"}
    # the side panel counts the whole upstream, far beyond the drawn graph
    paths = httpx.get(f"{big_server.url}/api/v1/explorer/field-paths", params={"field": f"#{b}"}).json()
    n_up = len(paths["upstream"]["nodes"])
    assert n_up > 100
    assert page.locator("#tab-details").inner_text().count(f"{n_up} upstream") == 1


def test_a_selected_column_is_marked_before_the_store_answers_and_nothing_is_redrawn(
    page: Any, big_server: Server
) -> None:
    store = big_server.store
    root = nid(store, "l9_t00")
    first = nid(store, "l8_t00")
    goto(page, big_server, f"/node/{root}?dir=UPSTREAM&depth=2&exp={root},{first}")
    # every card and column edge drawn gets a mark only this page's JavaScript knows
    drawn = page.evaluate(
        "() => { const els = document.querySelectorAll('#graph [data-kind]'); els.forEach(e => (e.__kept = 1)); "
        "return els.length; }"
    )
    held: list[Any] = []
    page.route("**/api/v1/explorer/field-paths*", lambda route: held.append(route))
    b = nid(store, "l9_t00.b")
    page.click(f"[data-kind=field][data-id='{b}']")
    page.wait_for_function("() => document.querySelector('#graph').classList.contains('has-hl')")
    while not held:  # the paths are asked for, and not answered yet
        page.wait_for_timeout(20)
    assert page.evaluate("() => window.headwater.data.paths") is None
    assert page.get_attribute(f"[data-kind=field][data-id='{b}']", "class") == "field hl hl-root"
    # the column edges into b that are drawn (from l8_t00, expanded) are marked at once, no other
    g = store.get_lineage(b, Direction.UPSTREAM, 1)
    parent = {n.id: n.parent_id for n in g.nodes}
    from_first = {e.id for e in g.edges if e.type == "MAPS_TO" and parent.get(e.source) == first}
    assert (
        len(from_first) == 2
    )  # l8_t00.b (TRANSFORMATION) and l8_t00.id (FILTER) and ids(page, "[data-kind=cedge].hl") == from_first
    held[0].continue_()
    settle(page)
    assert ids(page, "[data-kind=cedge].hl") >= from_first
    assert page.locator("#origin-list").count() == 1  # the side panel's lists came after
    kept = page.evaluate("() => [...document.querySelectorAll('#graph [data-kind]')].filter(e => e.__kept).length")
    assert kept == drawn  # the same elements: highlighted in place, not drawn again


def test_a_server_with_tokens_asks_for_one(page: Any, demo_server: Server) -> None:
    with Server(demo_server.store, {"reader": frozenset({"read"})}) as srv:
        page.goto(f"{srv.url}/#/")
        page.locator("#auth").wait_for(state="visible")  # the API said 401
        page.fill("#auth-token", "reader")
        page.press("#auth-token", "Enter")
        settle(page)
        assert page.locator("#auth").is_hidden()
        assert page.locator("#home-list a").count() == 3
        assert page.evaluate("() => sessionStorage.getItem('headwater.token')") == "reader"
        page.evaluate("() => sessionStorage.clear()")


# ---------------------------------------------------------------------------- headwater demo --serve


def test_serve_demo_records_the_demo_and_serves_the_explorer(page: Any) -> None:
    port = free_port()
    code = f"from headwater.service.demo import serve_demo; serve_demo('127.0.0.1', {port}, 'warning')"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy()
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("headwater demo: explorer at http://127.0.0.1:")
        url = line.split(" at ", 1)[1].split()[0]
        for _ in range(200):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        page.goto(url)
        settle(page)
        assert page.locator("#root-name").inner_text() == "internal.lineage_demo.lineage_customer_summary"
        assert page.locator("[data-kind=node]").count() == 4
    finally:
        proc.terminate()
        proc.wait(10)
