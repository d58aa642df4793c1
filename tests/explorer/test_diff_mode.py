"""The explorer's diff mode in headless Chromium: the shop ingested, then its branch (customer_name
dropped, revenue an average); with "diff from" set between the two, the edges that changed are
coloured and the removed ones drawn. The screenshot is kept (``test-artifacts/explorer/``, and
``docs/img/explorer-diff.png`` is one of them). It runs in the explorer tests' one browser (one
Playwright at a time in a process)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.store import LineageStore, open_store
from tests.cli.conftest import invoke
from tests.diff.conftest import SHOP, P, edited, write_project
from tests.explorer.helpers import Server
from tests.explorer.test_browser import goto, settle, shot

MART = "marts/customer_revenue.sql"
BRANCH = edited(
    edited(SHOP, MART, "       c.name AS customer_name,\n", ""),
    MART,
    "SUM(o.amount) AS revenue",
    "AVG(o.amount) AS revenue",
)


@pytest.fixture(scope="module")
def shop_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, LineageStore, float]]:
    tmp = tmp_path_factory.mktemp("diff-explorer")
    url = f"sqlite:///{tmp / 'shop.db'}"
    schema = tmp / "schema.yaml"
    from tests.diff.conftest import SCHEMA

    schema.write_text(SCHEMA)
    root = write_project(tmp / "shop", SHOP)
    args = ("--store", url, "--dialect", "spark", "--schema", str(schema))
    assert invoke("ingest", str(root), *args).exit_code == 0
    between = math.floor(time.time()) + 1.0  # a whole second (the input's step) after the first ingest
    time.sleep(max(0.0, between - time.time()) + 0.2)
    write_project(root, BRANCH)
    assert invoke("ingest", str(root), *args).exit_code == 0
    store = open_store(url)
    with Server(store) as srv:
        yield srv, store, between
    store.close()


def test_diff_mode_colours_the_changed_edges(page: Any, shop_server: tuple[Server, LineageStore, float]) -> None:
    srv, store, between = shop_server
    ids = {
        n: store.resolve(P + n).id
        for n in ("stg.orders", "stg.customers", "mart.customer_revenue", "rpt.top_customers", "rpt.region_summary")
    }
    exp = ",".join(str(i) for i in ids.values())
    goto(page, srv, f"/node/{ids['mart.customer_revenue']}?dir=BOTH&depth=all&exp={exp}")
    page.evaluate(
        """(t) => { const d = new Date(t * 1000);
                    const local = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
                    const input = document.getElementById("diff-from");
                    input.value = local; input.dispatchEvent(new Event("change")); }""",
        between,
    )
    page.wait_for_function("() => window.headwater.diff.settled() !== null")
    page.evaluate("() => window.headwater.diff.settled()")
    page.locator("#diff-legend").wait_for()
    settle(page)
    legend = page.inner_text("#diff-legend")
    assert "BREAKING" in legend and "1 changed" in legend
    targets = page.evaluate(
        """() => [...document.querySelectorAll('.cedge.diff-changed')]
                  .map(g => window.headwater.data.fieldEdges.get(Number(g.dataset.id)))
                  .map(e => [e.source, e.target])"""
    )
    amount, revenue = store.resolve(P + "stg.orders.amount").id, store.resolve(P + "mart.customer_revenue.revenue").id
    assert targets == [[amount, revenue]]
    removed = page.eval_on_selector_all(
        "[data-kind=diff-removed]", "els => els.map(g => [Number(g.dataset.source), Number(g.dataset.target)])"
    )
    name = store.resolve(P + "stg.customers.name").id
    dropped = store.resolve(P + "mart.customer_revenue.customer_name").id
    assert [name, dropped] in removed
    # the view of docs/img/explorer-diff.png: direct edges only, the mart and its neighbours
    goto(page, srv, f"/node/{ids['mart.customer_revenue']}?dir=BOTH&depth=all&exp={exp}&ind=0")
    page.evaluate("() => window.headwater.diff.settled()")
    settle(page)
    assert page.locator(".cedge.diff-changed").count() == 1
    direct_removed = page.eval_on_selector_all(
        "[data-kind=diff-removed]", "els => els.map(g => [Number(g.dataset.source), Number(g.dataset.target)])"
    )
    assert direct_removed == [[name, dropped]]
    page.evaluate("() => window.headwater.graph.zoomBy(1.2)")
    page.wait_for_timeout(100)
    shot(page, "explorer-diff")
    page.fill("#diff-from", "")
    page.dispatch_event("#diff-from", "change")
    page.evaluate("() => window.headwater.diff.settled()")
    settle(page)
    assert page.locator("#diff-legend").count() == 0
    assert page.locator(".cedge.diff-changed").count() == 0


def test_the_screenshot_is_in_the_docs() -> None:
    assert (Path(__file__).parents[2] / "docs" / "img" / "explorer-diff.png").is_file()
