"""Level of detail and the map, in a real browser: at every zoom each visible text of the graph is
drawn at 10 CSS px or more on screen, or replaced by a simpler drawing (a card without its own
text, rows as bars, a dot with a tooltip); a view too large to read whole is drawn zoomed out as
the map of its groups, with their counts and the lineage edges between them.

Stores: the warehouse fixture (25 tables around ``rpt.top_customers``) and a generated warehouse of
2,000 tables in 6 layers, one database each (``synthetic.warehouse_events``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest

from tests.explorer.helpers import Server, serve_events, whole_graph_svg
from tests.explorer.synthetic import WAREHOUSE_LAYERS, warehouse_events
from tests.explorer.test_browser import goto, nid, settle, shot
from tests.explorer.test_warehouse_explorer import warehouse_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ZOOMS = (1.2, 1.0, 0.9, 0.8, 0.7, 0.55, 0.4, 0.3, 0.25, 0.15, 0.08)

# Every text of the graph that is painted (not display:none, not empty, not under the map's cover), with
# its font size on screen.
TEXTS = """() => {
    const out = [];
    for (const t of document.querySelectorAll('#graph text')) {
        const s = t.textContent.trim();
        if (!s || !t.getClientRects().length) continue;
        if (document.querySelector('#graph.map-on') && !t.closest('.map')) continue;  // under the map's cover
        const style = getComputedStyle(t);
        if (style.visibility === 'hidden' || style.opacity === '0') continue;
        out.push([s, parseFloat(style.fontSize) * t.getScreenCTM().a, t.getAttribute('class') || '']);
    }
    return out;
}"""
FRAME = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def texts(page: Any) -> list[tuple[str, float, str]]:
    page.evaluate(FRAME)
    return [tuple(t) for t in page.evaluate(TEXTS)]


def smallest(page: Any) -> float:
    sizes = [px for _, px, _ in texts(page)]
    return min(sizes) if sizes else float("inf")


def zoom_to(page: Any, k: float) -> None:
    page.evaluate(
        """(k) => { const g = window.headwater.graph; const { width, height } = g.viewSize();
                    g.zoomBy(k / g.t.k, width / 2, height / 2); }""",
        k,
    )


def clusters(page: Any) -> dict[str, tuple[int, int]]:
    page.evaluate(FRAME)
    return {
        c[0]: (int(c[1]), int(c[2]))
        for c in page.eval_on_selector_all(
            "#graph.map-on .map [data-kind=cluster]",
            "els => els.map(e => [e.dataset.id, e.dataset.tables, e.dataset.jobs])",
        )
    }


@pytest.fixture(scope="module")
def layers_server() -> Iterator[Server]:
    with serve_events(warehouse_events(), "layers") as srv:
        yield srv


def test_every_text_of_the_25_table_view_is_10px_or_more_at_every_zoom(
    page: Any,
    warehouse_server: Server,  # noqa: F811
) -> None:
    root = nid(warehouse_server.store, "rpt.top_customers")
    goto(page, warehouse_server, f"/node/{root}?dir=BOTH&depth=all")
    cards = int(page.eval_on_selector("#graph", "g => g.dataset.nodes"))
    assert cards >= 25
    assert smallest(page) >= 10  # the first view (a fit)
    named = page.eval_on_selector_all(
        "#graph [data-kind=node] text.lodname", "els => els.filter(t => t.getClientRects().length && t.textContent)"
    )
    assert len(named) == cards  # every card still named
    page.click("#zoom-fit")
    assert smallest(page) >= 10
    for k in ZOOMS:
        zoom_to(page, k)
        assert smallest(page) >= 10, (k, min(texts(page), key=lambda t: t[1]))
    # far out: a small view has no map; each card is a dot whose tooltip is its name
    assert page.locator("#graph.map-on").count() == 0
    dots = page.eval_on_selector_all(
        "#graph [data-kind=node]",
        "els => els.map(g => [getComputedStyle(g.querySelector('.dot')).display, g.querySelector('title').textContent])",
    )
    assert dots and all(d == "inline" and title for d, title in dots)
    # expanded: rows are read at 10 px or more, or drawn as bars with no text
    page.click("#expand-all")
    settle(page)
    for k in ZOOMS:
        zoom_to(page, k)
        assert smallest(page) >= 10, (k, min(texts(page), key=lambda t: t[1]))
        rows = page.locator("#graph [data-kind=field] text").first.evaluate("t => getComputedStyle(t).display")
        assert (rows != "none") == (k >= 0.8)


def test_names_are_cut_between_their_parts_never_inside_one(
    page: Any,
    warehouse_server: Server,  # noqa: F811
) -> None:
    root = nid(warehouse_server.store, "rpt.top_customers")
    goto(page, warehouse_server, f"/node/{root}?dir=BOTH&depth=all")
    cut = page.evaluate(
        """async () => {
            const { fit, fitMiddle } = await import('/js/graph.js');
            const w = (s) => { const c = document.createElement('canvas').getContext('2d');
                               c.font = '650 11px system-ui, -apple-system, "Segoe UI", sans-serif';
                               return c.measureText(s).width; };
            return [fit('v_customer_ltv', 11, 650, w('v_customer…') + 1),
                    fit('top_customers', 11, 650, w('top_cus…')),
                    fit('exec_summary', 11, 650, w('ex…')),
                    fitMiddle('02_marts.sql#3', 11, 650, w('02_marts…#3')),
                    fitMiddle('02_marts.sql#3', 11, 650, w('02_ma…ql#3'))];
        }"""
    )
    assert cut == ["v_customer…", "top…", "", "02_marts…#3", "02…sql#3"]
    # every name drawn in the view is whole or cut at a boundary, the full name on hover
    for k in (0.9, 0.5, 0.35):
        zoom_to(page, k)
        page.evaluate(FRAME)
        labels = page.eval_on_selector_all(
            "#graph [data-kind=node]",
            """els => els.map(g => [g.querySelector('title').textContent,
                                    [...g.querySelectorAll('text.name, text.lodname')]
                                        .filter(t => t.getClientRects().length).map(t => t.textContent)])""",
        )
        assert labels
        for title, shown in labels:
            assert shown, title
            for text in shown:
                assert all(bounded(part, title) for part in text.split("…") if part), (k, title, text)


SEPARATORS = "._/#- :"


def bounded(part: str, full: str) -> bool:
    """``part`` occurs in ``full`` between separators (or its ends): a whole run of its parts."""
    at = full.find(part)
    while at >= 0:
        end = at + len(part)
        before = at == 0 or full[at - 1] in SEPARATORS or part[0] in SEPARATORS
        after = end == len(full) or full[end] in SEPARATORS or part[-1] in SEPARATORS
        if before and after:
            return True
        at = full.find(part, at + 1)
    return False


def test_the_2000_table_store_zoomed_out_is_a_map_of_its_6_layers(page: Any, layers_server: Server) -> None:
    store = layers_server.store
    root = nid(store, "exposures.board")
    page.set_viewport_size({"width": 1440, "height": 900})
    try:
        goto(page, layers_server, f"/node/{root}?dir=UPSTREAM&depth=all&limit=10000")
        nodes = int(page.eval_on_selector("#graph", "g => g.dataset.nodes"))
        assert nodes == 2000 + 1080
        # the first view: the root and its neighbours at 30 %, every text legible
        assert page.evaluate("() => window.headwater.graph.t.k") == pytest.approx(0.3)
        assert page.locator("#graph.map-on").count() == 0
        assert smallest(page) >= 10
        # fit: the whole view is its map, by database (the default grouping): 6 layers and their counts
        page.click("#zoom-fit")
        got = clusters(page)
        jobs = {layer: 0 if layer == "raw" else n for layer, n in WAREHOUSE_LAYERS.items()}
        assert got == {layer: (n, jobs[layer]) for layer, n in WAREHOUSE_LAYERS.items()}
        # the counts are the store's: the lineage answer's tables by database
        lineage = store.get_lineage(f"#{root}", "UPSTREAM", 100, limit=10000)
        tables = {n.id: n for n in [lineage.root, *lineage.nodes] if n.type == "DATASET"}
        by_db = Counter(n.name.split(".")[1] for n in tables.values())
        assert {k: v[0] for k, v in got.items()} == dict(by_db)
        # each link bundles the lineage edges from a layer's tables to the jobs of the next
        links = page.eval_on_selector_all(
            "#graph .map [data-kind=cluster-link]",
            "els => els.map(e => [e.dataset.source, e.dataset.target, Number(e.dataset.weight)])",
        )
        order = list(WAREHOUSE_LAYERS)
        assert sorted(links, key=lambda x: order.index(x[0])) == [
            [a, b, WAREHOUSE_LAYERS[a]] for a, b in pairwise(order)
        ]
        # left to right, raw first
        xs = page.eval_on_selector_all(
            "#graph .map [data-kind=cluster]", "els => els.map(e => [e.dataset.id, e.getBoundingClientRect().x])"
        )
        assert [name for name, _ in sorted(xs, key=lambda x: x[1])] == order
        shown = texts(page)
        assert min(px for _, px, _ in shown) >= 10
        assert {"920 tables", "620 jobs", "1 table", "raw", "exposures"} <= {t for t, _, _ in shown}
        assert page.locator("#minimap").is_hidden()
        shot(page, "map-2000")
        # an export of the map's view is its graph, whole, at scale 1: every card, no map, no dots
        svg = whole_graph_svg(page)
        assert svg.count('data-kind="node"') == nodes
        assert 'data-kind="cluster"' not in svg
        assert "map-on" not in svg[: svg.index(">")]  # the root element's classes
        assert ".dot { display: none; }" in svg
        assert page.locator("#graph.map-on").count() == 1  # the page still shows the map
        # every zoom out is the map; legible throughout
        for k in ZOOMS:
            zoom_to(page, k)
            if k < 0.3:
                assert len(clusters(page)) == 6
            assert smallest(page) >= 10, (k, min(texts(page), key=lambda t: t[1]))
        # a click on a cluster opens it: the graph at its cards, 30 % or more
        page.click("#graph .map [data-kind=cluster][data-id='marts']")
        page.evaluate(FRAME)
        assert page.locator("#graph.map-on").count() == 0
        assert page.evaluate("() => window.headwater.graph.t.k") >= 0.3
        marts = {nid(store, f"marts.mar_{k:04d}") for k in range(WAREHOUSE_LAYERS["marts"])}
        drawn = {
            int(x) for x in page.eval_on_selector_all("#graph [data-kind=node]", "els => els.map(e => e.dataset.id)")
        }
        inside = page.evaluate(
            """(ids) => { const g = window.headwater.graph; const { width, height } = g.viewSize();
                          const { x, y, k } = g.t;
                          return ids.filter((id) => { const b = g.positions.get(id);
                              return b.x * k + x >= 0 && (b.x + b.width) * k + x <= width
                                  && b.y * k + y >= 0 && (b.y + b.height) * k + y <= height; }).length; }""",
            sorted(marts),
        )
        assert inside >= 20  # the marts are what the view shows
        assert marts & drawn
        # zooming in over a cluster opens it too
        page.click("#zoom-fit")
        box = page.locator("#graph .map [data-kind=cluster][data-id='reports']").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.wheel(0, -200)
        page.evaluate(FRAME)
        assert page.locator("#graph.map-on").count() == 0
        reports = {nid(store, f"reports.rep_{k:04d}") for k in range(WAREHOUSE_LAYERS["reports"])}
        drawn = {
            int(x) for x in page.eval_on_selector_all("#graph [data-kind=node]", "els => els.map(e => e.dataset.id)")
        }
        assert reports <= drawn
    finally:
        page.set_viewport_size({"width": 1500, "height": 900})


def test_expand_all_on_the_2000_table_store_draws_bars_and_says_so(page: Any, layers_server: Server) -> None:
    store = layers_server.store
    root = nid(store, "exposures.board")
    goto(page, layers_server, f"/node/{root}?dir=UPSTREAM&depth=3")
    page.click("#expand-all")
    settle(page)
    banner = page.locator("#notices .banner").inner_text()
    if page.evaluate("() => window.headwater.graph.t.k") * 12.5 < 10:
        assert "Too large to read its columns" in banner and "bars" in banner
        rows = page.eval_on_selector_all(
            "#graph [data-kind=field] text", "els => els.filter(t => t.getClientRects().length).length"
        )
        assert rows == 0  # bars, not 5 px rows
        page.click("#rows-zoom")
        page.evaluate(FRAME)
    assert smallest(page) >= 10
    assert page.locator("#graph [data-kind=field] text").first.evaluate("t => getComputedStyle(t).display") != "none"
