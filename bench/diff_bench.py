"""``headwater diff`` of two project versions against its baseline, measured in the same run: one
extraction of the project into an in-memory store (what a diff does twice, as ``headwater ingest``
extracts), then the whole diff (both versions extracted, compared, each change's downstream
analysed), as a ratio of that baseline.

    python bench/diff_bench.py [--copies 1,20,80] [--repeat 3]

The project is the three-layer shop of ``tests/diff`` (5 statements in 3 files) repeated under
``COPIES`` pairs of schemas; the new version averages revenue and drops a column in every copy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.diff.conftest import SCHEMA, SHOP

from headwater.catalog import load_schema_file
from headwater.diff.project_graph import ProjectOptions, extract_project
from headwater.diff.run import diff, project_side

MART = "marts/customer_revenue.sql"


def project(copies: int, edited: bool) -> dict[str, str]:
    out = {}
    for k in range(copies):
        for rel, text in SHOP.items():
            if edited and rel == MART:
                text = text.replace("SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")
                text = text.replace("       c.name AS customer_name,\n", "")
            for layer in ("stg.", "mart.", "rpt."):
                text = text.replace(layer, f"{layer[:-1]}{k}.")
            out[f"p{k}/{rel}"] = text
    return out


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", default="1,20,80")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    schema = Path("/tmp/hw-diff-bench-schema.yaml")
    schema.write_text(SCHEMA)
    options = ProjectOptions(dialect="spark", catalog=load_schema_file(schema, dialect="spark"))
    print(f"{'copies':>6} {'statements':>10} {'extract s':>10} {'diff s':>8} {'ratio':>6} {'changes':>8}")
    for copies in (int(c) for c in args.copies.split(",")):
        old, new = project(copies, False), project(copies, True)
        base = best(lambda old=old: extract_project(old, options), args.repeat)
        report = None

        def run(old: dict[str, str] = old, new: dict[str, str] = new) -> None:
            nonlocal report
            report = diff(project_side(old, options, "old"), project_side(new, options, "new"))

        whole = best(run, args.repeat)
        assert report is not None
        print(f"{copies:>6} {5 * copies:>10} {base:>10.3f} {whole:>8.3f} {whole / base:>6.2f} {len(report.columns):>8}")


if __name__ == "__main__":
    main()
