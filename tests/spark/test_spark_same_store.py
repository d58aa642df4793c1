"""``spark-ingest --store`` and ``ingest-log`` of the same log make the same store: the same event owns
the same edges, so every query and ``db delete`` answers alike."""

from __future__ import annotations

import json
from pathlib import Path

from tests.store.store_content import content

from headwater.history import ExtractSpec, IngestOptions, ingest_history, open_source
from headwater.spark import extract_events, read_log, write_store
from headwater.store import close_all, open_store

DAY0, DAY1 = "2024-05-01", "2024-05-02"


def _rerun_log(path: Path) -> Path:
    """Jobs run on day 0 and again, changed, on day 1, their runs spread over sessions whose first
    statements interleave: an order by arrival records some day-1 runs before day-0 ones."""
    rows = []
    for s in range(12):
        session = f"s{s}"
        day = DAY0 if s % 2 == 0 else DAY1
        for k in range(4):
            target = f"db.t{(s + k) % 5}"
            extra = ", b" if day == DAY1 else ""
            rows.append(
                {
                    "query_id": f"{session}-{k}",
                    "session": session,
                    "time": f"{day} {10 + k:02d}:{s:02d}:00",
                    "stmt": f"INSERT INTO {target} SELECT a{extra} FROM db.src{k % 3}",
                }
            )
    rows.reverse()  # the log's own order is not its time order
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _answers(url: str, event_ids: list[str]) -> list[object]:
    """What ``db delete --event`` closes for each event, on a copy's worth of state each time."""
    store = open_store(url)
    out = []
    for event_id in event_ids:
        r = store.delete_lineage(event_id=event_id)
        out.append((event_id, r.edges_closed))
    return out


def test_spark_and_ingest_log_give_the_same_store(spark, generated, tmp_path: Path) -> None:
    schema = json.loads(generated.schema.read_text())
    schema.update({f"db.t{k}": {"a": "int", "b": "int"} for k in range(5)})
    schema.update({f"db.src{k}": {"a": "int", "b": "int"} for k in range(3)})
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema))
    logs = [generated.dir / "log.jsonl", _rerun_log(tmp_path / "reruns.jsonl")]
    for n, log in enumerate(logs):
        one = f"sqlite:///{tmp_path / f'one-{n}.db'}"
        on_spark = f"sqlite:///{tmp_path / f'spark-{n}.db'}"
        options = IngestOptions(spec=ExtractSpec(schema_file=str(schema_file)), task_size=100, batch=50)
        ingest_history(open_source("jsonl", [str(log)]), open_store(one), options)
        outcomes = extract_events(read_log(spark, [str(log)], "jsonl"), str(schema_file), num_partitions=4)
        recorded, duplicates = write_store(outcomes, on_spark, batch=50, task_size=100)
        assert recorded > 0 and duplicates == 0
        close_all()
        expected = content(one)
        assert content(on_spark) == expected
        owners = sorted({key[5] for key in expected["edges"] if key[5] is not None})
        assert _answers(one, owners[:40]) == _answers(on_spark, owners[:40])
        close_all()
