"""Query logs of scheduled re-runs: statements per second with and without the reuse of extracted
statements (``headwater.extract.reuse``), measured in the same run.

    python bench/reuse_bench.py [--rows 10000] [--distinct 1000] [--rounds 3]

The log (``headwater.history.synthetic.generate_rerun_log``) runs ``--distinct`` statements once
each; every other row re-runs one of them with other literals (dates, statuses, numbers): the
defaults make 90 % of rows re-runs. Two figures, each as CPU time of this process, best of
``--rounds`` alternating rounds:

- extraction only: ``HistoryExtractor`` over the log's sessions, one worker, reuse off (the
  previous code path) and on; every outcome is compared, so the figure is for identical events;
- end to end: ``ingest_history`` into a fresh SQLite store, one worker, reuse off and on;
- with ``--store-replay``: the store's own part of the reuse-on run: the batches ``ingest_history``
  handed to ``record_batch``, recorded again into a fresh SQLite store (CPU time per event, best of
  ``--rounds``), the figure that end-to-end rates at a high load cannot show;
- with ``--baseline DIR``: the same two figures with reuse off for the code at ``DIR/src`` (an
  export of an older commit: ``git archive ff30947 src | tar -x -C DIR``), run in a child process in
  each round, and this code's reuse-on figures as multiples of them (the issue asks for a multiple of the
  code of ff30947).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from headwater.catalog import open_catalog
from headwater.history import ExtractSpec, HistoryExtractor, IngestOptions, ingest_history, open_source
from headwater.history.ordering import group_sessions
from headwater.history.record import LogRecord
from headwater.history.synthetic import generate_rerun_log, synthetic_schema, write_jsonl
from headwater.history.window import Window
from headwater.model import event_to_dict
from headwater.store import close_all, open_store


def extract_only(log: Path, schema: Path, reuse_size: int) -> tuple[float, list, float]:
    records = list(open_source("jsonl", [str(log)]).read(Window()))
    sessions = group_sessions(r for r in records if isinstance(r, LogRecord))
    hx = HistoryExtractor(open_catalog(str(schema), None, "doris", "internal"), reuse_size=reuse_size)
    start = time.process_time()
    outcomes = [o for s in sessions for o in hx.session(s.records)]
    seconds = time.process_time() - start
    rate = hx.reuse.hit_rate if hx.reuse else 0.0
    return seconds, [(o.query_id, o.kind, o.detail, [event_to_dict(e) for e in o.events]) for o in outcomes], rate


def end_to_end(log: Path, schema: Path, reuse_size: int, tmp: Path, n: int) -> float:
    store = open_store(f"sqlite:///{tmp / f'reuse-{reuse_size}-{n}.db'}")
    spec = ExtractSpec(schema_file=str(schema), reuse_size=reuse_size)
    start = time.process_time()
    ingest_history(open_source("jsonl", [str(log)]), store, IngestOptions(spec=spec, workers=1))
    seconds = time.process_time() - start
    close_all()
    return seconds


def store_replay(log: Path, schema: Path, tmp: Path, rounds: int) -> tuple[int, float]:
    """Events and the best CPU seconds of recording the reuse-on run's ``record_batch`` calls again."""
    from headwater.store.store import LineageStore

    batches: list[list] = []
    original = LineageStore.record_batch

    def keep(self: LineageStore, events: object) -> object:
        items = list(events)  # type: ignore[call-overload]
        batches.append(items)
        return original(self, items)

    LineageStore.record_batch = keep  # type: ignore[method-assign]
    try:
        end_to_end(log, schema, 10_000, tmp, -1)
    finally:
        LineageStore.record_batch = original  # type: ignore[method-assign]
    best = float("inf")
    for n in range(rounds):
        store = open_store(f"sqlite:///{tmp / f'replay-{n}.db'}")
        start = time.process_time()
        for batch in batches:
            store.record_batch(batch)
        best = min(best, time.process_time() - start)
        store.close()
    return sum(map(len, batches)), best


def baseline(src: Path, log: Path, schema: Path, tmp: Path, n: int, store: bool) -> tuple[float, float]:
    """Reuse-off CPU seconds (extraction, end to end) of the code at ``src``, in a child process."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    args = [sys.executable, __file__, "--child", str(log), str(schema), str(tmp), str(n), "1" if store else "0"]
    out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout
    seconds = json.loads(out.strip().splitlines()[-1])
    return seconds[0], seconds[1]


def child(argv: list[str]) -> int:
    """``--child LOG SCHEMA TMP N STORE``: print ``[extraction, end to end]`` reuse-off seconds as JSON."""
    log, schema, tmp, n, store = Path(argv[0]), Path(argv[1]), Path(argv[2]), int(argv[3]), argv[4] == "1"
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    off, _, _ = extract_only(log, schema, 0)
    e2e = end_to_end(log, schema, 0, tmp, 1000 + n) if store else float("inf")
    print(json.dumps([off, e2e if e2e != float("inf") else None]))
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return child(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--distinct", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-store", action="store_true", help="extraction only")
    ap.add_argument("--store-replay", action="store_true", help="also the store's own part of the reuse-on run")
    ap.add_argument("--baseline", type=Path, help="a directory whose src/ is the code to compare reuse off with")
    args = ap.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="hw-reuse-bench-") as d:
        tmp = Path(d)
        schema = tmp / "schema.json"
        schema.write_text(json.dumps(synthetic_schema()))
        log = tmp / "log.jsonl"
        write_jsonl(generate_rerun_log(args.rows, distinct=args.distinct), log)
        best = {"off": float("inf"), "on": float("inf")}
        e2e = {"off": float("inf"), "on": float("inf")}
        rate = 0.0
        base = {"off": float("inf"), "e2e": float("inf")}
        for n in range(args.rounds):
            if args.baseline is not None:
                b_off, b_e2e = baseline(args.baseline / "src", log, schema, tmp, n, not args.no_store)
                base["off"] = min(base["off"], b_off)
                base["e2e"] = min(base["e2e"], b_e2e if b_e2e is not None else float("inf"))
            off, a, _ = extract_only(log, schema, 0)
            on, b, rate = extract_only(log, schema, 10_000)
            if a != b:
                print("reuse changed an outcome: the figures are void", file=sys.stderr)
                return 1
            best["off"], best["on"] = min(best["off"], off), min(best["on"], on)
            if not args.no_store:
                e2e["off"] = min(e2e["off"], end_to_end(log, schema, 0, tmp, n))
                e2e["on"] = min(e2e["on"], end_to_end(log, schema, 10_000, tmp, n))
        replay = store_replay(log, schema, tmp, args.rounds) if args.store_replay else None
    rows = args.rows
    share = 1 - args.distinct / rows
    print(f"{rows} rows, {args.distinct} distinct statements, {share:.0%} re-runs; reuse hit rate {rate:.1%}")
    print(f"{'':28}{'reuse off':>12}{'reuse on':>12}{'ratio':>8}")
    print(
        f"{'extraction, statements/s':28}{rows / best['off']:>12,.0f}{rows / best['on']:>12,.0f}"
        f"{best['off'] / best['on']:>7.1f}x"
    )
    if not args.no_store:
        print(
            f"{'into SQLite, statements/s':28}{rows / e2e['off']:>12,.0f}{rows / e2e['on']:>12,.0f}"
            f"{e2e['off'] / e2e['on']:>7.1f}x"
        )
    if args.baseline is not None:
        print(f"against reuse off at {args.baseline} (child process, same rounds):")
        print(
            f"{'extraction, statements/s':28}{rows / base['off']:>12,.0f}{rows / best['on']:>12,.0f}"
            f"{base['off'] / best['on']:>7.1f}x"
        )
        if not args.no_store:
            print(
                f"{'into SQLite, statements/s':28}{rows / base['e2e']:>12,.0f}{rows / e2e['on']:>12,.0f}"
                f"{base['e2e'] / e2e['on']:>7.1f}x"
            )
    if replay is not None:
        events, seconds = replay
        print(
            f"the store alone, reuse-on batches: {events:,} events, {1e6 * seconds / events:,.0f} us CPU "
            f"per event ({events / seconds:,.0f} events/s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
