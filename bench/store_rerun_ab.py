"""The store's re-run paths switched off and on in one process, on the same batches.

Collects the batches ``ingest_history`` hands to ``record_batch`` in a reuse-on run of
``reuse_bench``'s log (1,000 statements, 90 % re-runs: 8,001 events in 17 batches), then records
them into fresh SQLite stores, alternating (``--rounds`` times) three modes:

- ``neither``: every event redacted by the store again, no cache of jobs' open edges;
- ``marks only``: the events extraction redacted are not redacted again (``secrets.is_redacted``);
- ``both``: that, and the writer's cache of jobs' open edges (``write.OpenEdges``).

CPU time per event, the median of the rounds. The same code and the same load for the three modes
(what ``reuse_bench.py --store-replay`` run against another checkout cannot give at a varying load).

    .venv/bin/python bench/store_rerun_ab.py --rounds 4
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import reuse_bench
from headwater.history.synthetic import generate_rerun_log, synthetic_schema, write_jsonl
from headwater.model import LineageInfo
from headwater.store import from_event, open_store, write
from headwater.store.store import LineageStore


def batches(tmp: Path, rows: int = 10_000, distinct: int = 1000) -> list[list[LineageInfo]]:
    """The ``record_batch`` calls of a reuse-on ``ingest_history`` run of the re-run log (``rows``
    rows of ``distinct`` statements), its files written in ``tmp``."""
    schema = tmp / "schema.json"
    schema.write_text(json.dumps(synthetic_schema()))
    log = tmp / "log.jsonl"
    write_jsonl(generate_rerun_log(rows, distinct=distinct), log)
    kept: list[list[LineageInfo]] = []
    original = LineageStore.record_batch

    def keep(self: LineageStore, events: Any) -> Any:
        items = list(events)
        kept.append(items)
        return original(self, items)

    LineageStore.record_batch = keep  # type: ignore[method-assign]
    try:
        reuse_bench.end_to_end(log, schema, 10_000, tmp, -1)
    finally:
        LineageStore.record_batch = original  # type: ignore[method-assign]
    return kept


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    keep_open, is_redacted = write._keep_open, from_event.is_redacted
    modes = {"neither": (False, False), "marks only": (True, False), "both": (True, True)}
    per_event: dict[str, list[float]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="hw-rerun-ab-") as d:
        tmp = Path(d)
        todo = batches(tmp)
        n = sum(map(len, todo))
        try:
            for r in range(args.rounds):
                for mode, (marks, cache) in modes.items():
                    write._keep_open = keep_open if cache else (lambda *a: None)  # type: ignore[assignment]
                    from_event.is_redacted = is_redacted if marks else (lambda e: False)  # type: ignore[assignment]
                    store = open_store(f"sqlite:///{tmp / f'{r}-{mode}.db'}")
                    start = time.process_time()
                    for batch in todo:
                        store.record_batch(batch)
                    per_event[mode].append(1e6 * (time.process_time() - start) / n)
                    store.close()
        finally:
            write._keep_open, from_event.is_redacted = keep_open, is_redacted  # type: ignore[assignment]
    print(f"{n:,} events in {len(todo)} batches, CPU us per event (median of {args.rounds} rounds):")
    for mode, values in per_event.items():
        print(f"  {mode:12} {statistics.median(values):6.1f}   ({', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
