"""The explorer in headless Chromium on a 2,047-table store: first draw and interaction times.

    python bench/explorer_bench.py [--rounds 3]

The store (``tests/explorer/synthetic.wide_events``): a binary tree of 2,047 tables of 25 columns,
1,023 jobs, 89,001 column edges upstream of its root. Measured in the page (``performance.now()``),
best of ``--rounds``, with the 500-node layered store of the browser tests as the baseline measured
in the same run:

- first draw: layout and SVG of the whole upstream graph (the page's own ``data-draw-ms``);
- select a column: the root's column clicked until its paths are highlighted (store round trips
  included);
- pan frame: one frame of panning, averaged over 60;
- zoom to fit.

Needs Debian's chromium (``/usr/bin/chromium``) and the ``playwright`` package; loopback only.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.explorer.helpers import CHROMIUM, CHROMIUM_ARGS, Server  # noqa: E402
from tests.explorer.synthetic import synthetic_events, wide_events  # noqa: E402

from headwater.store import open_store  # noqa: E402

PAN = """async () => {
    const g = window.headwater.graph;
    const t0 = performance.now();
    for (let i = 0; i < 60; i++) { g.t.x += 4; g._apply(); await new Promise(r => requestAnimationFrame(r)); }
    return (performance.now() - t0) / 60;
}"""
CLICK = """async (field) => {
    const t0 = performance.now();
    const row = document.querySelector(`[data-kind=field][data-id='${field}']`);
    row.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    await window.headwater.settled();
    await new Promise(r => requestAnimationFrame(r));
    return performance.now() - t0;
}"""
FIT = """async () => {
    const t0 = performance.now();
    document.getElementById('zoom-fit').click();
    await new Promise(r => requestAnimationFrame(r));
    await new Promise(r => requestAnimationFrame(r));
    return performance.now() - t0;
}"""


def measure(page, server: Server, root: int, field: int, rounds: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(rounds):
        page.goto(f"{server.url}/#/node/{root}?dir=UPSTREAM&depth=all&limit=10000&exp={root}")
        page.wait_for_function("() => window.headwater !== undefined")
        page.evaluate("() => window.headwater.settled()")
        figures = {
            "nodes": float(page.get_attribute("#graph", "data-nodes")),
            "first draw, ms": float(page.get_attribute("#graph", "data-draw-ms")),
            "select a column, ms": page.evaluate(CLICK, field),
            "pan frame, ms": page.evaluate(PAN),
            "zoom to fit, ms": page.evaluate(FIT),
        }
        for k, v in figures.items():
            best[k] = min(best.get(k, v), v)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    results = {}
    with tempfile.TemporaryDirectory(prefix="hw-explorer-bench-") as tmp:
        stores = {
            "500-node layered (baseline)": (synthetic_events(), "l9_t00", "l9_t00.b"),
            "2,047-table tree": (wide_events(), "w10_0000", "w10_0000.c01"),
        }
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 900})
            for label, (events, root, field) in stores.items():
                store = open_store(f"sqlite:///{tmp}/{len(results)}.db")
                store.record_batch(events)
                with Server(store) as server:
                    results[label] = measure(page, server, store.resolve(root).id, store.resolve(field).id, args.rounds)
                store.close()
            browser.close()
    base = results["500-node layered (baseline)"]
    print(f"{'':24}" + "".join(f"{label:>30}" for label in results) + f"{'ratio':>8}")
    for key in base:
        row = "".join(f"{r[key]:>30,.1f}" for r in results.values())
        big = results["2,047-table tree"][key]
        print(f"{key:24}{row}{big / base[key] if base[key] else 0:>7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
