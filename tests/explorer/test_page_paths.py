"""A selected column's paths walked in the page (static/js/paths.js over POST /explorer/column-index)
are the store's paths (/explorer/field-paths), and are drawn before the store answers.

On the example warehouse (examples/warehouse) and the 2,047-table store, whose capped walk
(2,000 columns) checks that the page takes the edges in the store's order.
"""

from __future__ import annotations

from typing import Any

import pytest

from headwater.store import LineageStore
from headwater.store import search as s
from tests.explorer.helpers import Server
from tests.explorer.test_browser import goto, nid, settle, shot
from tests.explorer.test_warehouse_explorer import warehouse_server, wide_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
LEVELS = ("direct", "field", "all")

# Every mark of the highlight: rows, column and dataset edges, cards, "n on path" badges.
MARKS = """() => [...document.querySelectorAll('#graph .hl, #graph .pathbadge')].map(e =>
    e.classList.contains('pathbadge')
        ? `badge:${e.closest('[data-kind]').dataset.id}:${e.textContent}`
        : `${e.dataset.kind}:${e.dataset.id}:${[...e.classList].filter(c => c.startsWith('hl')).sort().join(' ')}`
).sort()"""
# the page's walk of one field at one level, as ids
WALK = """async ([field, level]) => {
    const { walkPaths } = await import('/js/paths.js');
    const P = walkPaths(window.headwater.data.index, field, level);
    const side = (x) => ({nodes: x.nodes.map(n => n.id).sort((a, b) => a - b),
                          edges: x.edges.map(e => e.id).sort((a, b) => a - b), truncated: x.truncated});
    return {complete: P.complete, upstream: side(P.upstream), downstream: side(P.downstream)};
}"""


def store_paths(store: LineageStore, field: int, level: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        p = s.field_paths(conn, field, True, None, None, 2000, level)
    side = lambda x: {  # noqa: E731
        "nodes": sorted(n.id for n in x.nodes),
        "edges": sorted(e.id for e in x.edges),
        "truncated": x.truncated,
    }
    return {"upstream": side(p.upstream), "downstream": side(p.downstream)}


def page_paths(page: Any, field: int, level: str) -> dict[str, Any]:
    return page.evaluate(WALK, [field, level])


def select_holding_the_store(page: Any, field: int) -> tuple[list[str], Any]:
    """Click a column with the store's field-paths answer held back: the marks drawn before it
    comes, and a function that lets it through (and waits for the page)."""
    held: list[Any] = []
    page.route("**/api/v1/explorer/field-paths*", lambda route: held.append(route))
    page.click(f"[data-kind=field][data-id='{field}']")
    page.wait_for_function("() => document.getElementById('graph').dataset.pathFrom === 'page'")
    marks = page.evaluate(MARKS)
    assert page.get_attribute("#graph", "data-selected") == str(field)
    assert page.evaluate("() => window.headwater.data.paths") is None  # the store has not answered

    def release() -> None:
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(50)
        for r in held:
            r.continue_()
        page.unroute("**/api/v1/explorer/field-paths*")
        settle(page)

    return marks, release


def test_the_page_walk_is_the_store_walk_for_every_column(page: Any, warehouse_server: Server) -> None:  # noqa: F811
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    assert page.evaluate("() => window.headwater.data.index !== null")
    fields = page.evaluate(
        "() => [...window.headwater.data.index.parent].filter(([, d]) => d !== null).map(([f]) => f)"
    )
    view = set(page.evaluate("() => [...window.headwater.data.index.datasets]"))
    on_view = [f for f in fields if store.resolve(f"#{f}").parent_id in view]
    assert len(on_view) > 50
    checked = 0
    for f in on_view:
        for level in LEVELS:
            local = page_paths(page, f, level)
            if not local.pop("complete"):  # its downstream leaves this upstream view
                continue
            assert local == store_paths(store, f, level), (f, level)
            checked += 1
    assert checked > 2 * len(on_view)  # most of them stay inside the view
    assert any(
        page_paths(page, f, "all")["upstream"]["edges"] != page_paths(page, f, "direct")["upstream"]["edges"]
        for f in on_view
    )


def test_a_column_path_is_drawn_before_the_store_answers(page: Any, warehouse_server: Server) -> None:  # noqa: F811
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all")
    page.click("#expand-all")
    settle(page)
    field = nid(store, "rpt.exec_summary.store_channel_revenue")
    marks, release = select_holding_the_store(page, field)
    assert f"field:{field}:hl hl-root" in marks
    assert any(m.startswith("cedge:") and "hl-up" in m for m in marks)
    assert any(m.startswith("node:") for m in marks) and any(m.startswith("edge:") for m in marks)
    shot(page, "page-path-before-answer")
    release()
    # the store's answer agreed: the same marks, the page's walk kept
    assert page.get_attribute("#graph", "data-path-agrees") == "true"
    assert page.get_attribute("#graph", "data-path-from") == "page"
    assert page.evaluate(MARKS) == marks
    # and they are the marks the store's answer draws by itself (no index: the page waits for it)
    page.evaluate("() => { window.headwater.data.index = null; }")
    page.click(f"[data-kind=field][data-id='{field}']")  # unselected
    settle(page)
    assert page.get_attribute("#graph", "data-selected") == ""
    page.click(f"[data-kind=field][data-id='{field}']")
    settle(page)
    assert page.get_attribute("#graph", "data-path-from") == "store"
    assert page.evaluate(MARKS) == marks
    # the side panel still lists DIRECT origins first
    deps = page.locator("#origin-list li .dep").all_inner_texts()
    assert deps and deps == sorted(deps)


def test_a_walk_that_leaves_the_view_waits_for_the_store(page: Any, warehouse_server: Server) -> None:  # noqa: F811
    store = warehouse_server.store
    mid = nid(store, "mart.fct_sales")
    # one level upstream: the column's origins go on beyond the view's datasets
    goto(page, warehouse_server, f"/node/{mid}?dir=UPSTREAM&depth=1&exp={mid}")
    field = next(
        f
        for f in page.evaluate(f"() => window.headwater.data.columns.get({mid}).fields.map(f => f.id)")
        if not page_paths(page, f, "all")["complete"]
    )
    held: list[Any] = []
    page.route("**/api/v1/explorer/field-paths*", lambda route: held.append(route))
    page.click(f"[data-kind=field][data-id='{field}']")
    page.wait_for_function("() => document.getElementById('graph').classList.contains('has-hl')")
    assert page.get_attribute("#graph", "data-selected") in ("", None)  # the row only, no path yet
    for r in held:
        r.continue_()
    page.unroute("**/api/v1/explorer/field-paths*")
    settle(page)
    assert page.get_attribute("#graph", "data-path-from") == "store"
    assert page.get_attribute("#graph", "data-selected") == str(field)


def test_the_store_answer_replaces_a_walk_that_differs(page: Any, warehouse_server: Server) -> None:  # noqa: F811
    store = warehouse_server.store
    root = nid(store, "rpt.exec_summary")
    goto(page, warehouse_server, f"/node/{root}?dir=UPSTREAM&depth=all&exp={root}")
    page.evaluate("() => window.headwater.data.index.into.start.fill(0)")  # stale: no upstream edges
    field = nid(store, "rpt.exec_summary.store_channel_revenue")
    page.click(f"[data-kind=field][data-id='{field}']")
    settle(page)
    assert page.get_attribute("#graph", "data-path-agrees") == "false"
    assert page.get_attribute("#graph", "data-path-from") == "store"
    up = page.evaluate("() => window.headwater.data.drawnPath.upstream.nodes.length")
    assert up == len(store_paths(store, field, "all")["upstream"]["nodes"]) > 0
    assert page.locator("#graph .pathbadge").count() > 0


def test_the_capped_path_of_the_2000_table_store(page: Any, wide_server: Server) -> None:  # noqa: F811
    store: LineageStore = wide_server.store
    root = nid(store, "synth.w10_0000")
    col = nid(store, "synth.w10_0000.c01")
    goto(page, wide_server, f"/node/{root}?dir=UPSTREAM&depth=all&limit=10000&exp={root}")
    for level in LEVELS:
        local = page_paths(page, col, level)
        assert local.pop("complete")
        want = store_paths(store, col, level)
        assert want["upstream"]["truncated"] and len(want["upstream"]["nodes"]) == 1999
        assert local == want, level
    marks, release = select_holding_the_store(page, col)
    assert sum(1 for m in marks if m.startswith("badge:")) > 100
    release()
    assert page.get_attribute("#graph", "data-path-agrees") == "true"
    assert page.evaluate(MARKS) == marks
    page.evaluate("id => window.headwater.graph.centerOn(id)", root)
    shot(page, "wide-path")
