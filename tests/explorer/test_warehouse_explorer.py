"""The explorer at warehouse scale, in a real browser: the three-file TPC-DS example warehouse
(examples/warehouse, ingested as one project) and a generated store of 2,047 tables.

Legible at fit (every card's label drawn at 9 px or more), one column's story (off-path edges
hidden, path only), column order, job names, the home page, exports, and the large store.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from headwater.store import LineageStore, open_store
from tests.explorer.helpers import Server, serve_events, whole_graph_svg
from tests.explorer.synthetic import WIDE_COLUMNS, wide_events
from tests.explorer.test_browser import goto, ids, nid, settle, shot

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
WAREHOUSE = Path(__file__).resolve().parents[2] / "examples" / "warehouse"


@pytest.fixture(scope="module")
def warehouse_server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="hw-explorer-wh-") as tmp:
        url = f"sqlite:///{tmp}/wh.db"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "headwater.cli.main",
                "ingest",
                str(WAREHOUSE),
                "--dialect",
                "spark",
                "--schema",
                str(WAREHOUSE / "raw_schema.json"),
                "--store",
                url,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        store = open_store(url)
        with Server(store) as srv:
            yield srv
        store.close()


@pytest.fixture(scope="module")
def wide_server() -> Iterator[Server]:
    with serve_events(wide_events(), "wide") as srv:
        yield srv


def label_sizes(page: Any) -> list[tuple[str, float]]:
    """Every drawn card's visible name label and its rendered font size in screen pixels."""
    return page.evaluate(
        """() => {
            const k = window.headwater.graph.t.k;
            const out = [];
            for (const g of document.querySelectorAll('#graph [data-kind=node]')) {
                const label = [...g.querySelectorAll(':scope > text.name, :scope > text.lodname')]
                    .find((t) => getComputedStyle(t).display !== 'none');
                const px = label ? parseFloat(getComputedStyle(label).fontSize) * k : 0;
                out.push([label ? label.textContent : '', px]);
            }
            return out;
        }"""
    )


def in_view(page: Any) -> set[int]:
    """The cards (datasets and jobs) whose box meets the canvas at the current pan and zoom."""
    return set(
        page.evaluate(
            """() => {
                const g = window.headwater.graph;
                const { width, height } = g.viewSize();
                const { x, y, k } = g.t;
                return window.headwater.ui.scene.nodes
                    .filter((it) => it.kind === 'node')
                    .filter(({ box: b }) => (b.x + b.width) * k + x >= 0 && b.x * k + x <= width
                        && (b.y + b.height) * k + y >= 0 && b.y * k + y <= height)
                    .map((it) => it.id);
            }"""
        )
    )


def visible(page: Any, selector: str) -> set[int]:
    return {
        int(x)
        for x in page.eval_on_selector_all(
            selector, "els => els.filter(e => getComputedStyle(e).display !== 'none').map(e => e.dataset.id)"
        )
    }


def test_every_card_is_legible_at_the_first_view_and_at_fit(page: Any, warehouse_server: Server) -> None:
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    first = label_sizes(page)
    # the whole 21-table upstream graph is on the first view, every card named at 9 px or more
    assert len(first) == int(page.eval_on_selector("#graph", "g => g.dataset.nodes"))
    assert len(first) >= 30
    assert all(text and px >= 9 for text, px in first), first
    box = page.evaluate("() => document.getElementById('graph').getBoundingClientRect().toJSON()")
    inside = page.evaluate(
        """(box) => [...document.querySelectorAll('#graph [data-kind=node]')].every((g) => {
            const r = g.getBoundingClientRect();
            return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
        })""",
        box,
    )
    assert inside
    details = page.locator("#tab-details").inner_text()  # the root's panel: its facts, no internal pointer
    assert "upstream" in details and "ddl_event" not in details and "ddl:" not in details
    assert store.resolve(f"#{root}").properties.get("ddl_event")  # the store does keep it
    shot(page, "warehouse-fit")
    page.click("#zoom-fit")
    assert all(px >= 9 for _, px in label_sizes(page))
    for _ in range(6):  # zoomed far out: every card a dot with its name as tooltip, never a blank box
        page.click("#zoom-out")
    page.wait_for_timeout(100)
    assert page.evaluate("() => window.headwater.graph.t.k") < 0.3
    dots = page.eval_on_selector_all(
        "#graph [data-kind=node]",
        "els => els.map(g => [getComputedStyle(g.querySelector('.dot')).display, g.querySelector('title').textContent])",
    )
    assert dots and all(d == "inline" and title for d, title in dots)
    assert page.locator("#legend details").get_attribute("open") is None  # a corner control, closed


def test_job_cards_and_the_job_panel_name_the_job(page: Any, warehouse_server: Server) -> None:
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=1")
    job = store.resolve("JOB:job:exec_summary")
    pill = page.locator(f"[data-kind=node][data-id='{job.id}'] text.name")
    assert pill.text_content() == "exec_summary"
    page.click(f"[data-kind=node][data-id='{job.id}']")
    settle(page)
    page.locator("#tab-details dt", has_text="columns written").wait_for()
    facts = dict(
        zip(
            page.locator("#tab-details dl.facts").first.locator("dt").all_inner_texts(),
            page.locator("#tab-details dl.facts").first.locator("dd").all_inner_texts(),
            strict=True,
        )
    )
    assert page.locator("#tab-details h2").inner_text() == "exec_summary"
    assert facts["source"].startswith("03_reports.sql:")
    assert facts["statements"] == "1"
    # exec_summary's four columns, from columns of channel_summary and top_customers
    assert facts["columns written"] == "4"
    # top_customers.sold_year, .yearly_revenue; channel_summary.net_revenue, .sold_year (the ON) and
    # .channel (the WHERE); COUNT(*) reads none
    assert facts["columns read"] == "5"
    ordinal = store.resolve("JOB:job:03_reports.sql#1")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=3")
    assert page.locator(f"[data-kind=node][data-id='{ordinal.id}'] text.name").text_content() == "03_reports.sql#1"


def test_columns_are_in_the_table_order(page: Any, warehouse_server: Server) -> None:
    store = warehouse_server.store
    top = nid(store, "rpt.top_customers")
    goto(page, warehouse_server, f"/node/{top}?depth=1&exp={top}")
    rows = page.locator(f"[data-kind=node][data-id='{top}'] [data-kind=field] text").all_text_contents()
    # 03_reports.sql: SELECT customer_id, full_name, segment, sold_year, yearly_revenue
    assert rows == ["customer_id", "full_name", "segment", "sold_year", "yearly_revenue"]


def test_a_column_shows_only_its_own_paths(page: Any, warehouse_server: Server) -> None:
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    page.click("#expand-all")
    settle(page)
    before = visible(page, "[data-kind=cedge]")
    field = nid(store, "rpt.exec_summary.store_channel_revenue")
    page.click(f"[data-kind=field][data-id='{field}']")
    settle(page)
    on_path = ids(page, "[data-kind=cedge].hl")
    assert on_path
    assert visible(page, "[data-kind=cedge]") == on_path < before  # everything else hidden, not faded
    # the side panel: DIRECT origins first
    deps = page.locator("#origin-list li .dep").all_inner_texts()
    assert deps and deps == sorted(deps)  # DIRECT < INDIRECT
    assert page.locator("#origin-list .dep-head").first.inner_text().startswith("DIRECT")
    cards = int(page.eval_on_selector("#graph", "g => g.dataset.nodes"))
    page.uncheck("#indirect")  # the value's path: channel_summary ← fct_sales ← stg_sales ← the three sales
    settle(page)
    page.check("#path-only")
    settle(page)
    kept = int(page.eval_on_selector("#graph", "g => g.dataset.nodes"))
    assert kept < cards
    drawn = ids(page, "[data-kind=node]")
    assert drawn - ids(page, "[data-kind=node].hl") <= {root}
    names = {n.short for n in (store.resolve(f"#{i}") for i in drawn) if n.type == "DATASET"}
    assert names == {
        "exec_summary",
        "channel_summary",
        "fct_sales",
        "stg_sales",
        "store_sales",
        "web_sales",
        "catalog_sales",
    }
    shot(page, "warehouse-path-only")


def test_home_groups_databases_most_connected_first(page: Any, warehouse_server: Server) -> None:
    goto(page, warehouse_server, "/")
    groups = page.locator(".db-group h2").all_inner_texts()
    # link counts: mart 13, stg 11, tpcds 8, rpt 4
    assert [g.split(" ")[0] for g in groups] == ["internal.mart", "internal.stg", "internal.tpcds", "internal.rpt"]
    assert groups[2].endswith("8 tables")
    mart = page.locator(".db-group[data-db='internal.mart'] li a").all_inner_texts()
    assert mart[0] == "DATASET fct_sales"
    assert page.locator("#home-recent li a").first.inner_text() == "exec_summary"
    shot(page, "home")


def test_exports_hold_the_view_and_the_lists(page: Any, warehouse_server: Server, tmp_path: Path) -> None:
    store = warehouse_server.store
    ds = nid(store, "mart.dim_customer")
    field = nid(store, "mart.dim_customer.customer_sk")
    goto(page, warehouse_server, f"/node/{ds}?depth=all&exp={ds}&sel={field}")
    page.click("#export-menu summary")
    with page.expect_download() as svg:
        page.click("#export-svg")
    text = Path(svg.value.path()).read_text()
    assert text.startswith("<svg") and "dim_customer" in text and "stg_customer" in text and "<style>" in text
    assert svg.value.suggested_filename == "dim_customer.customer_sk.svg"
    page.click("#export-menu summary")
    with page.expect_download() as png:
        page.click("#export-png")
    assert Path(png.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with page.expect_download() as impact_csv:
        page.click("#impact-csv")
    rows = list(csv.DictReader(io.StringIO(Path(impact_csv.value.path()).read_text())))
    impact = store.get_field_impact(field, limit=200, level="all")  # the view's level: indirect is on
    assert {r["column"] for r in rows} == {p.field.name for p in impact.impacted}
    assert len(rows) == len(impact.impacted)
    with page.expect_download() as origin_json:
        page.click("#origin-json")
    origins = json.loads(Path(origin_json.value.path()).read_text())
    api = httpx.get(
        f"{warehouse_server.url}/api/v1/field-origin",
        params={"field": f"#{field}", "level": "all", "limit": 200},
    ).json()
    expected = [o for o in api["origins"] if o["depth"] > 0]
    assert [o["column"] for o in origins] == [o["field"]["name"] for o in expected]
    assert "internal.tpcds.customer.c_customer_sk" in {o["column"] for o in origins}
    assert [o["dependency"] for o in origins] == [o["dependency"] for o in expected]


def test_the_2000_table_store_fits_legibly_and_folds_its_fan_in(page: Any, wide_server: Server) -> None:
    store: LineageStore = wide_server.store
    root = nid(store, "synth.w10_0000")
    goto(page, wide_server, f"/node/{root}?dir=UPSTREAM&depth=all&limit=10000")
    nodes = int(page.eval_on_selector("#graph", "g => g.dataset.nodes"))
    assert nodes == 2047 + 1023
    # only the cards near the view are drawn (culling), every one in view is, and each is legible
    drawn = ids(page, "#graph [data-kind=node]")
    assert root in drawn and len(drawn) < nodes / 3
    assert in_view(page) <= drawn
    sizes = label_sizes(page)
    assert len(sizes) == len(drawn)
    assert all(text and px >= 9 for text, px in sizes)
    # the view moved to the far end of the tree: what comes into view is drawn, the root is not
    page.evaluate(
        "() => { const g = window.headwater.graph; g.t.x = 40; g.t.y = 300 - g.bounds.height * g.t.k; g._apply(); }"
    )
    far = in_view(page)
    drawn = ids(page, "#graph [data-kind=node]")
    assert far and far <= drawn and root not in drawn
    assert all(text and px >= 9 for text, px in label_sizes(page))
    # an export holds every card, drawn or not
    svg = whole_graph_svg(page)
    assert svg.count('data-kind="node"') == nodes
    assert ids(page, "#graph [data-kind=node]") == drawn  # and the view is culled again
    assert page.locator("#minimap").is_visible()  # the graph is larger than the view
    assert page.locator("#notices .banner").count() <= 1
    shot(page, "wide-fit")
    # one column of the root: its whole upstream is hidden behind collapsed cards ("n on path")
    col = nid(store, "synth.w10_0000.c01")
    goto(page, wide_server, f"/node/{root}?dir=UPSTREAM&depth=all&limit=10000&exp={root}&sel={col}")
    page.evaluate("id => window.headwater.graph.centerOn(id)", root)  # back from the far end
    badges = page.locator(".pathbadge").all_text_contents()
    assert sum(1 for b in badges if b.endswith("on path")) > 100
    assert WIDE_COLUMNS == 25
