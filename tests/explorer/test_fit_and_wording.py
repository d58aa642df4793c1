"""Fit that fits and the side panel's wording, in a real browser, on the example warehouse.

After "fit" every card lies in the free canvas: the canvas less the zoom controls, the legend and
the minimap (and so never under the side panel), the graph centred in it at the largest zoom that
fits. Impact reads "feeds", origin "comes from"; long names are cut at a dot, whole on hover.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.explorer.helpers import Server
from tests.explorer.test_browser import goto, nid, settle
from tests.explorer.test_warehouse_explorer import warehouse_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# The free canvas (the canvas less its overlays) and every drawn card's box, in screen pixels.
GEOMETRY = """() => {
    const rect = (id) => document.getElementById(id).getBoundingClientRect();
    const c = rect('canvas');
    const zoom = document.querySelector('.zoom').getBoundingClientRect();
    const legend = rect('legend');
    const mm = document.getElementById('minimap');
    const free = { left: Math.max(c.left, zoom.right), top: c.top, right: c.right,
                   bottom: Math.min(c.bottom, legend.height ? legend.top : c.bottom) };
    if (!mm.hidden) free.bottom = Math.min(free.bottom, mm.getBoundingClientRect().top);
    const cards = [...document.querySelectorAll('#graph [data-kind=node]')].map((g) => {
        const r = g.getBoundingClientRect();
        return { id: g.dataset.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    });
    return { free, cards, side: rect('side').left, k: window.headwater.graph.t.k };
}"""


def check_fit(page: Any) -> dict[str, Any]:
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")  # drawn
    geo = page.evaluate(GEOMETRY)
    free = geo["free"]
    cards = geo["cards"]
    assert cards
    outside = [
        c
        for c in cards
        if c["left"] < free["left"] - 1
        or c["right"] > free["right"] + 1
        or c["top"] < free["top"] - 1
        or c["bottom"] > free["bottom"] + 1
    ]
    assert outside == [], (free, outside)
    assert all(c["right"] <= geo["side"] + 1 for c in cards)  # never under the side panel
    # centred in the free canvas, and as large as fits: one side of the graph meets the free canvas's margin
    left = min(c["left"] for c in cards)
    right = max(c["right"] for c in cards)
    top = min(c["top"] for c in cards)
    bottom = max(c["bottom"] for c in cards)
    # (across, within the room kept for zoomed-out names that run past the last cards' edge)
    assert abs((left - free["left"]) - (free["right"] - right)) <= 32
    assert abs((top - free["top"]) - (free["bottom"] - bottom)) <= 8
    slack = min(left - free["left"], top - free["top"])
    assert slack <= 40 or geo["k"] >= 1.2, (slack, geo["k"])
    return geo


@pytest.mark.parametrize(
    ("name", "route"),
    [
        ("rpt.top_customers", "?dir=BOTH&depth=all"),
        ("rpt.exec_summary", "?dir=UPSTREAM&depth=all"),
        ("mart.fct_sales", "?dir=BOTH&depth=all"),
    ],
)
def test_fit_puts_every_card_inside_the_free_canvas(
    page: Any,
    warehouse_server: Server,  # noqa: F811
    name: str,
    route: str,
) -> None:
    root = nid(warehouse_server.store, name)
    goto(page, warehouse_server, f"/node/{root}{route}")
    check_fit(page)  # the first view
    page.evaluate("() => window.headwater.graph.zoomBy(2.5)")
    page.click("#zoom-fit")
    check_fit(page)


def test_impact_feeds_origin_comes_from_and_names_are_cut_at_dots(
    page: Any,
    warehouse_server: Server,  # noqa: F811
) -> None:
    store = warehouse_server.store
    ds = nid(store, "mart.dim_customer")
    field = nid(store, "mart.dim_customer.customer_sk")
    goto(page, warehouse_server, f"/node/{ds}?depth=all&exp={ds}&sel={field}")
    page.locator("#impact-list .dep-head").first.wait_for()
    page.locator("#origin-list .dep-head").first.wait_for()
    impact = page.locator("#impact-list .dep-head").all_inner_texts()
    origin = page.locator("#origin-list .dep-head").all_inner_texts()
    assert impact and all("feeds" in t or "decides which of their rows" in t for t in impact), impact
    assert not any("comes from" in t for t in impact)
    assert origin and all("comes from" in t or "they decide which rows" in t for t in origin), origin
    assert not any("feeds" in t for t in origin)
    assert page.locator("#tab-details h3.down").inner_text().startswith("Feeds")
    assert page.locator("#tab-details h3.up").inner_text().startswith("Comes from")
    # every listed name is whole (table.column), the full name on hover
    links = page.eval_on_selector_all(
        "#tab-details a.jump .dotted", "els => els.map((e) => [e.textContent, e.getAttribute('title')])"
    )
    assert links
    for text, title in links:
        assert "…" not in text and title.endswith("." + text) and title.count(".") > text.count("."), (text, title)
    cut = page.evaluate(
        """async () => {
            const { dotted } = await import('/js/dom.js');
            const s = dotted('internal.mart.customer_ltv.lifetime_revenue', 34);
            return [s.textContent, s.title, dotted('a_very_long_single_column_name_indeed', 10).textContent];
        }"""
    )
    assert cut == [
        "…customer_ltv.lifetime_revenue",
        "internal.mart.customer_ltv.lifetime_revenue",
        "a_very_long_single_column_name_indeed",  # one part: never cut inside it
    ]
    # a narrow panel wraps the full name at its dots only: each part stays on one line
    page.evaluate("() => { document.getElementById('side').style.width = '110px'; }")
    split = page.evaluate(
        """() => [...document.querySelectorAll('#tab-details .fullname .dotted')].flatMap((d) =>
            [...d.childNodes].filter((n) => n.nodeType === 3 && n.nodeValue.length > 1).map((n) => {
                const r = document.createRange();
                r.selectNodeContents(n);
                return [n.nodeValue, new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size];
            }))"""
    )
    assert split and all(lines == 1 for _, lines in split), split
    assert len({p for p, _ in split}) >= 3  # db, schema, table, column parts


def test_expand_all_on_a_view_too_large_says_so_and_offers_a_zoom(
    page: Any,
    warehouse_server: Server,  # noqa: F811
) -> None:
    store = warehouse_server.store
    top = nid(store, "rpt.top_customers")
    goto(page, warehouse_server, f"/node/{top}?dir=DOWNSTREAM&depth=1")
    page.click("#expand-all")
    settle(page)
    assert page.locator("#rows-zoom").count() == 0  # two cards: their rows are legible at fit
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    page.click("#expand-all")
    settle(page)
    banner = page.locator("#notices .banner").inner_text()
    assert "Too large to read its columns" in banner and "px" in banner
    k = page.evaluate("() => window.headwater.graph.t.k")
    assert 12.5 * k < 10
    page.click("#rows-zoom")
    assert 12.5 * page.evaluate("() => window.headwater.graph.t.k") >= 10
    field = nid(store, "rpt.exec_summary.store_channel_revenue")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all&sel={field}")
    page.click("#expand-all")
    settle(page)
    page.click("#rows-path-only")
    settle(page)
    assert page.is_checked("#path-only")
