"""Statement reuse in executed instructions per log row (valgrind's callgrind).

    python bench/reuse_instructions.py [--rows 2000] [--distinct 200] [--firsts 500] [--only on,off,...]

CPU time on a shared machine moves with its load; instruction counts do not. Each workload runs in
its own process under ``valgrind --tool=callgrind``: the log is generated
(``headwater.history.synthetic.generate_rerun_log``), written as JSON lines, read and grouped into
sessions, and a warm-up log of other statements is extracted with reuse on and off (imports, lazy
caches); then ``HistoryExtractor`` (one worker) extracts the log. The same process without the
extraction is subtracted, and the rest divided by the rows:

- ``on``: the re-run log (``--rows`` rows running ``--distinct`` statements), reuse on;
- ``off``: the same log, reuse off (``reuse_size=0``: every statement extracted as it is);
- ``first``: a log of first sights only (``--firsts`` rows, as many distinct statements), reuse on;
- ``first-off``: that log, reuse off (a plain extraction of the same statements).

From ``on`` and ``first`` it also prints what a re-run costs: (on * rows - first * distinct) /
(rows - distinct). Run it with ``PYTHONPATH`` at another tree's ``src`` to measure that tree (an
export of ff30947, say: ``git archive ff30947 src | tar -x -C /tmp/cli-ff``; its ``reuse_size=0`` is
the same plain extraction). ``--keep DIR`` keeps each process's ``callgrind.out`` for
``callgrind_annotate``. About a minute per process with reuse on, several with it off.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

from callgrind import count_instructions

MODES = ("on", "off", "first", "first-off")


def _log(tmp: Path, rows: int, distinct: int, seed: int) -> tuple[list[Any], Any]:
    """The sessions of a generated re-run log and its catalog."""
    from headwater.catalog import open_catalog
    from headwater.history import open_source
    from headwater.history.ordering import group_sessions
    from headwater.history.record import LogRecord
    from headwater.history.synthetic import generate_rerun_log, synthetic_schema, write_jsonl
    from headwater.history.window import Window

    schema = tmp / "schema.json"
    schema.write_text(json.dumps(synthetic_schema()))
    log = tmp / f"log-{rows}-{distinct}-{seed}.jsonl"
    write_jsonl(generate_rerun_log(rows, distinct=distinct, seed=seed), log)
    records = list(open_source("jsonl", [str(log)]).read(Window()))
    sessions = group_sessions(r for r in records if isinstance(r, LogRecord))
    return sessions, open_catalog(str(schema), None, "doris", "internal")


def workload(mode: str, extract: bool, rows: int, distinct: int) -> None:
    """One process's work: the log and a warm-up, then (``extract``) the log extracted."""
    from headwater.history import HistoryExtractor

    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="hw-reuse-instr-") as d:
        sessions, catalog = _log(Path(d), rows, distinct, seed=0)
        warm, _ = _log(Path(d), 60, 30, seed=1)
        for size in (10_000, 0):  # warm-up: imports, lazy caches, both paths
            hx = HistoryExtractor(catalog, reuse_size=size)
            for s in warm:
                list(hx.session(s.records))
        hx = HistoryExtractor(catalog, reuse_size=0 if mode.endswith("off") else 10_000)
        if extract:
            for s in sessions:
                for _ in hx.session(s.records):
                    pass


def instructions(mode: str, extract: bool, rows: int, distinct: int, keep: Path | None) -> int:
    out_file = keep / f"callgrind.{mode}{'' if extract else '-base'}.out" if keep else None
    cmd = [sys.executable, __file__, "--run", mode, "--rows", str(rows), "--distinct", str(distinct)]
    if extract:
        cmd.append("--extract")
    return count_instructions(cmd, out_file)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--distinct", type=int, default=200)
    ap.add_argument("--firsts", type=int, default=500, help="rows (and distinct statements) of the first-sight log")
    ap.add_argument("--only", default=",".join(MODES), help=f"modes to run, comma-separated ({', '.join(MODES)})")
    ap.add_argument("--keep", type=Path, help="keep the callgrind output files in this directory")
    ap.add_argument("--run", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--extract", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        workload(args.run, args.extract, args.rows, args.distinct)
        return
    modes = [m for m in args.only.split(",") if m]
    if unknown := set(modes) - set(MODES):
        raise SystemExit(f"unknown modes: {', '.join(sorted(unknown))}")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    per_row: dict[str, float] = {}
    bases: dict[tuple[int, int], int] = {}
    for mode in modes:
        rows, distinct = (args.firsts, args.firsts) if mode.startswith("first") else (args.rows, args.distinct)
        if (rows, distinct) not in bases:
            bases[rows, distinct] = instructions(mode, False, rows, distinct, args.keep)
        added = instructions(mode, True, rows, distinct, args.keep) - bases[rows, distinct]
        per_row[mode] = added / rows
        print(f"{mode:10} {rows:6} rows, {distinct:5} distinct   {per_row[mode] / 1e6:7.3f} M instructions per row")
    if "on" in per_row and "first" in per_row and args.rows > args.distinct:
        rerun = (per_row["on"] * args.rows - per_row["first"] * args.distinct) / (args.rows - args.distinct)
        print(f"a re-run (from on and first)              {rerun / 1e6:7.3f} M instructions")
    if "on" in per_row and "off" in per_row:
        print(f"off / on                                  {per_row['off'] / per_row['on']:7.2f}x")


if __name__ == "__main__":
    main()
