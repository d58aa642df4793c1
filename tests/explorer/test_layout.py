"""The explorer's layered layout (static/js/layout.js), run in the browser on small known graphs."""

from __future__ import annotations

import itertools
import random
import tomllib
from pathlib import Path
from typing import Any

from tests.explorer.helpers import Server

ROOT = Path(__file__).resolve().parents[2]

RUN = """async ([nodes, edges, options, groups]) => {
    const { layeredLayout } = await import('/js/layout.js');
    const r = layeredLayout({
        nodes: nodes.map(id => ({ id, width: 100, height: 40, group: (groups || {})[id] ?? null })),
        edges: edges.map(([s, t], k) => ({ id: `e${k}`, source: s, target: t })),
    }, options || {});
    return {
        nodes: Object.fromEntries([...r.nodes].map(([id, b]) => [id, b])),
        edges: Object.fromEntries([...r.edges].map(([id, pts]) => [id, pts])),
        crossings: r.crossings,
        groups: r.groups,
    };
}"""


def layout(
    page: Any, nodes: list[str], edges: list[tuple[str, str]], groups: dict[str, str] | None = None, **options: Any
) -> dict[str, Any]:
    return page.evaluate(RUN, [nodes, [list(e) for e in edges], options, groups])


def test_crossings_are_removed_and_layers_run_left_to_right(page: Any, demo_server: Server) -> None:
    page.goto(f"{demo_server.url}/")
    # inputs listed in the opposite order of their targets: 3 crossings as given, none after reduction
    nodes = ["a1", "a2", "a3", "b3", "b2", "b1"]
    edges = [("a1", "b1"), ("a2", "b2"), ("a3", "b3")]
    assert layout(page, nodes, edges, sweeps=0)["crossings"] == 3
    r = layout(page, nodes, edges)
    assert r["crossings"] == 0
    n = r["nodes"]
    assert {n[a]["layer"] for a in ("a1", "a2", "a3")} == {0} and {n[b]["layer"] for b in ("b1", "b2", "b3")} == {1}
    assert [n[f"a{k}"]["order"] for k in (1, 2, 3)] == [n[f"b{k}"]["order"] for k in (1, 2, 3)]
    assert all(n[f"a{k}"]["x"] < n[f"b{k}"]["x"] for k in (1, 2, 3))


def test_long_edges_get_waypoints_sources_move_right_and_nothing_overlaps(page: Any, demo_server: Server) -> None:
    page.goto(f"{demo_server.url}/")
    nodes = ["a", "b", "c", "d", "side"]
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d"), ("side", "d")]
    r = layout(page, nodes, edges)
    n = r["nodes"]
    assert [n[k]["layer"] for k in "abcd"] == [0, 1, 2, 3]
    assert n["side"]["layer"] == 2  # next to its only target, not in the first layer
    assert len(r["edges"]["e3"]) == 2 + 2 * 2  # a -> d crosses two layers: two waypoints each
    assert all(p["x"] <= q["x"] for p, q in itertools.pairwise(r["edges"]["e3"]))
    by_layer: dict[int, list[dict[str, float]]] = {}
    for box in n.values():
        by_layer.setdefault(box["layer"], []).append(box)
    for boxes in by_layer.values():
        boxes.sort(key=lambda b: b["y"])
        assert all(b1["y"] + b1["height"] <= b2["y"] for b1, b2 in itertools.pairwise(boxes))


def test_cycles_are_laid_out_with_every_edge_routed(page: Any, demo_server: Server) -> None:
    page.goto(f"{demo_server.url}/")
    r = layout(page, ["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "d")])
    assert set(r["nodes"]) == {"a", "b", "c", "d"}
    assert set(r["edges"]) == {"e0", "e1", "e2", "e3"}  # the self-loop is not drawn
    back = r["edges"]["e2"]  # c -> a runs right to left
    assert back[0]["x"] > back[-1]["x"]


def test_crossing_reduction_on_a_random_dag(page: Any, demo_server: Server) -> None:
    page.goto(f"{demo_server.url}/")
    rnd = random.Random(6)
    nodes = [f"n{k}" for k in range(120)]
    edges = sorted({(f"n{a}", f"n{b}") for a in range(110) for b in rnd.sample(range(a + 1, min(120, a + 15)), 2)})
    before = layout(page, nodes, edges, sweeps=0)["crossings"]
    after = layout(page, nodes, edges)["crossings"]
    assert after < before / 2, (before, after)


def test_groups_stay_together_in_each_layer_in_boxes_that_do_not_overlap(page: Any, demo_server: Server) -> None:
    page.goto(f"{demo_server.url}/")
    # two databases whose tables alternate in the input order, each layer feeding the next crosswise
    nodes = [f"{db}{k}_{layer}" for layer in range(3) for k in range(3) for db in "xy"]
    edges = [(f"x{k}_{L}", f"y{k}_{L + 1}") for L in range(2) for k in range(3)]
    edges += [(f"y{k}_{L}", f"x{k}_{L + 1}") for L in range(2) for k in range(3)]
    groups = {n: f"db_{n[0]}" for n in nodes}
    r = layout(page, nodes, edges, groups)
    n = r["nodes"]
    for layer in range(3):
        order = [groups[k] for k in sorted((k for k in n if n[k]["layer"] == layer), key=lambda k: n[k]["order"])]
        assert order in (["db_x"] * 3 + ["db_y"] * 3, ["db_y"] * 3 + ["db_x"] * 3), order  # contiguous
    assert sorted(g["group"] for g in r["groups"]) == ["db_x"] * 3 + ["db_y"] * 3  # one box per layer and group
    for g in r["groups"]:
        members = [b for k, b in n.items() if groups[k] == g["group"] and g["x"] <= b["x"] < g["x"] + g["width"]]
        assert len(members) == 3
        assert all(g["y"] < b["y"] and b["y"] + b["height"] < g["y"] + g["height"] for b in members)
    for a, b in itertools.combinations(r["groups"], 2):
        apart = a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
        assert apart or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]


def test_static_files_are_package_data() -> None:
    """Every file of the explorer is matched by [tool.setuptools.package-data] (so wheels ship it)."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["headwater"]
    package = ROOT / "src" / "headwater"
    shipped = {p for pattern in patterns for p in package.glob(pattern)}
    files = {p for p in (package / "service" / "static").rglob("*") if p.is_file()}
    assert files and files <= shipped, sorted(str(f.relative_to(package)) for f in files - shipped)
