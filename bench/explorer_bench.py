"""The explorer in headless Chromium on a 2,047-table store: first draw and interaction times.

    python bench/explorer_bench.py [--rounds 3]

    python bench/explorer_bench.py --before /tmp/hw-main   # also the same store with another checkout

The store (``tests/explorer/synthetic.wide_events``): a binary tree of 2,047 tables of 25 columns,
1,023 jobs, 89,001 column edges upstream of its root; and (``synthetic.warehouse_events``) 2,000
tables in 6 layers, one database each, upstream of ``exposures.board`` (3,080 cards: "zoom to fit"
there draws the view's map of its 6 groups). Measured in the page (``performance.now()``),
best of ``--rounds``, with the 500-node layered store of the browser tests as the baseline measured
in the same run:

- first draw: layout and SVG of the whole upstream graph (the page's own ``data-draw-ms``);
- open to drawn: from the navigation to the graph painted (the lineage answer included);
- open to index in: from the navigation to the view's column index taken in (asked for after the
  first draw; the page walks a selected column's paths over it);
- select a column, the root's ``c01`` clicked until: its row is marked; its paths are drawn (the
  page's own walk over the index, or the field-paths answer when the walk cannot be made there);
  the side panel's origin and impact lists are in, and a frame painted; "page walk = store path"
  is 1 when the path drawn was the page's walk and the store's answer agreed with it;
- pan frame: one frame of panning, averaged over 60;
- zoom to fit.

Needs Debian's chromium (``/usr/bin/chromium``) and the ``playwright`` package; loopback only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if os.environ.get("HEADWATER_BENCH_SRC"):  # --before: the other checkout's headwater (server and page)
    sys.path.insert(0, os.environ["HEADWATER_BENCH_SRC"])

from tests.explorer.helpers import CHROMIUM, CHROMIUM_ARGS, Server  # noqa: E402
from tests.explorer.synthetic import synthetic_events, warehouse_events, wide_events  # noqa: E402

from headwater.store import open_store  # noqa: E402

# a frame painted: the layout and paint of what the page changed are in the time
PAINTED = "const painted = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));"
PAN = """async () => {
    const g = window.headwater.graph;
    const t0 = performance.now();
    for (let i = 0; i < 60; i++) { g.t.x += 4; g._apply(); await new Promise(r => requestAnimationFrame(r)); }
    return (performance.now() - t0) / 60;
}"""
# Times seen by a MutationObserver installed before the page runs, so that the same figures can be
# read from any version of the page: the graph drawn (its data-draw-ms set), a column's row marked
# (the graph's has-hl class), its paths drawn (data-selected set to the column). The cards' first
# paint is read in the frame after they were drawn.
WATCH = """
window.__hw = {};
new MutationObserver((list) => {
    const now = performance.now();
    const hw = window.__hw;
    for (const m of list) {
        const g = m.target;
        if (g.id !== 'graph') continue;
        if (m.attributeName === 'data-draw-ms' && !hw.drawn) {
            hw.drawn = now;  // and the frame that paints it:
            requestAnimationFrame(() => setTimeout(() => (hw.painted = performance.now()), 0));
        }
        if (m.attributeName === 'class' && g.classList.contains('has-hl') && !hw.marked) hw.marked = now;
        if (m.attributeName === 'data-selected' && g.dataset.selected && !hw.path) hw.path = now;
        if (m.attributeName === 'data-index' && g.dataset.index && !hw.index) hw.index = now;
    }
}).observe(document, {subtree: true, attributes: true,
              attributeFilter: ['data-draw-ms', 'class', 'data-selected', 'data-index']});
"""
CLICK = """async (field) => {
    window.__hw.marked = window.__hw.path = null;
    const t0 = performance.now();
    const row = document.querySelector(`[data-kind=field][data-id='${field}']`);
    row.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    await window.headwater.settled();
    await painted();
    return [window.__hw.marked - t0, window.__hw.path - t0, performance.now() - t0];
}"""
FIT = """async () => {
    const t0 = performance.now();
    document.getElementById('zoom-fit').click();
    await new Promise(r => requestAnimationFrame(r));
    await painted();
    return performance.now() - t0;
}"""


CLICK = CLICK.replace("=> {", "=> {" + PAINTED, 1)
FIT = FIT.replace("=> {", "=> {" + PAINTED, 1)
PAINTED_AWAIT = f"async () => {{ {PAINTED} await painted(); }}"
# from the navigation to the graph painted: the lineage answer, the layout, the cards, a frame
OPENED = "() => window.__hw.painted"
INDEXED = "() => window.__hw.index ?? null"


def measure(page, server: Server, root: int, field: int, rounds: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(rounds):
        page.goto(f"{server.url}/#/node/{root}?dir=UPSTREAM&depth=all&limit=10000&exp={root}")
        page.wait_for_function("() => window.headwater !== undefined")
        page.evaluate("() => window.headwater.settled()")
        page.evaluate(PAINTED_AWAIT)
        opened = page.evaluate(OPENED)
        indexed = page.evaluate(INDEXED)
        feedback, path, panel = page.evaluate(CLICK, field)
        agrees = page.get_attribute("#graph", "data-path-agrees")
        walked = page.get_attribute("#graph", "data-path-from") == "page" and agrees == "true"
        figures = {
            "nodes": float(page.get_attribute("#graph", "data-nodes")),
            "first draw, ms": float(page.get_attribute("#graph", "data-draw-ms")),
            "open to drawn, ms": opened,
            # the page's column index of the view in (asked for after the first draw; nan: none)
            "open to index in, ms": indexed if indexed is not None else float("nan"),
            "select: row marked, ms": feedback,
            "select: path drawn, ms": path,
            "select: panel full, ms": panel,
            "pan frame, ms": page.evaluate(PAN),
            "zoom to fit, ms": page.evaluate(FIT),
            # 1: the path drawn was the page's own walk and the store's answer agreed with it
            "page walk = store path": float(walked),
        }
        for k, v in figures.items():
            best[k] = min(best.get(k, v), v)
    return best


STORES = {
    "500-node layered (baseline)": (synthetic_events, "l9_t00", "l9_t00.b"),
    "2,047-table tree": (wide_events, "w10_0000", "w10_0000.c01"),
    "2,000 tables, 6 layers": (warehouse_events, "exposures.board", "exposures.board.b"),
}
WIDE = "2,047-table tree"
LAYERS = "2,000 tables, 6 layers"
COMPARED = [WIDE, LAYERS]  # measured with the other checkout too (--before)


def run(labels: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """Each store recorded in SQLite, served on loopback and measured in one headless Chromium."""
    from playwright.sync_api import sync_playwright

    results = {}
    with tempfile.TemporaryDirectory(prefix="hw-explorer-bench-") as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 900})
        page.add_init_script(WATCH)
        for label in labels:
            events, root, field = STORES[label]
            store = open_store(f"sqlite:///{tmp}/{len(results)}.db")
            store.record_batch(events())
            with Server(store) as server:
                results[label] = measure(page, server, store.resolve(root).id, store.resolve(field).id, rounds)
            store.close()
        browser.close()
    return results


def before(checkout: Path, rounds: int) -> dict[str, dict[str, float]]:
    """The 2,047- and 2,000-table stores measured with another checkout's server and page (its
    ``src``), in a child process of this run."""
    env = {**os.environ, "HEADWATER_BENCH_SRC": str(checkout / "src")}
    out = subprocess.run(
        [sys.executable, __file__, "--rounds", str(rounds), "--json"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", type=Path, help="a checkout of the version to compare with (e.g. a worktree of main)")
    ap.add_argument("--json", action="store_true", help="print the large stores' figures as JSON (used by --before)")
    args = ap.parse_args()
    if args.json:
        print(json.dumps(run(COMPARED, args.rounds)))
        return 0
    if not args.before:
        results = run(list(STORES), args.rounds)
    else:  # rounds alternate between the two versions, so that both see the same load
        results = {}
        for _ in range(args.rounds):
            old = [(f"{label}, before", figures) for label, figures in before(args.before, 1).items()]
            for label, figures in [*run(list(STORES), 1).items(), *old]:
                best = results.setdefault(label, figures)
                for k, v in figures.items():
                    best[k] = min(best[k], v)
    base = results["500-node layered (baseline)"]
    big = results[WIDE]
    head = f"{'':24}" + "".join(f"{label:>30}" for label in results) + f"{'vs base':>9}"
    print(head + ("".join(f"{'after/before':>14}" for _ in COMPARED) if args.before else ""))
    for key in base:
        row = "".join(f"{r.get(key, float('nan')):>30,.1f}" for r in results.values())
        line = f"{key:24}{row}{big[key] / base[key] if base[key] else 0:>8.1f}x"
        if args.before:
            for label in COMPARED:
                old = results[f"{label}, before"].get(key)
                line += f"{results[label][key] / old:>13.2f}x" if old else f"{'':>14}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
