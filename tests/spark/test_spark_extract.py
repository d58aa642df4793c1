"""headwater.spark in local mode gives the same events as the single-machine path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa

from headwater.spark import events_frame, extract_events, read_log, summarize, write_jsonl, write_parquet, write_store
from headwater.store import open_store


def _parts(directory: Path) -> list[str]:
    return sorted(line for part in directory.glob("part-*") for line in part.read_text(encoding="utf-8").splitlines())


def test_jsonl_same_events_as_single_machine(generated, jsonl_outcomes) -> None:
    events = sorted(r["event"] for r in events_frame(jsonl_outcomes).collect())
    assert len(events) == len(generated.events) > 900
    assert events == generated.events
    assert Counter(r["kind"] for r in jsonl_outcomes.select("kind").collect()) == generated.kinds


@pytest.mark.parametrize("fmt,name", [("csv", "log.csv"), ("doris-audit-file", "fe.audit.log")])
def test_other_inputs_same_events(spark, generated, fmt: str, name: str) -> None:
    df = read_log(spark, [str(generated.dir / name)], fmt)
    outcomes = extract_events(df, str(generated.schema), num_partitions=3)
    assert sorted(r["event"] for r in events_frame(outcomes).collect()) == generated.events
    assert Counter(r["kind"] for r in outcomes.select("kind").collect()) == generated.kinds


def test_summary_and_writers(spark, generated, jsonl_outcomes, tmp_path: Path) -> None:
    summary = summarize(jsonl_outcomes)
    assert summary["events"] == len(generated.events)
    assert summary["kinds"] == dict(generated.kinds)
    assert sum(summary["rules"].values()) == generated.kinds["skipped"]
    assert len(summary["problems"]) == 20 and all(p[1].startswith("cannot parse") for p in summary["problems"])

    write_jsonl(jsonl_outcomes, str(tmp_path / "jsonl"))
    assert _parts(tmp_path / "jsonl") == generated.events

    write_parquet(jsonl_outcomes, str(tmp_path / "parquet"))
    back = spark.read.parquet(str(tmp_path / "parquet"))
    assert back.columns == ["event_id", "query_id", "session", "event"]
    assert sorted(r["event"] for r in back.collect()) == generated.events


def test_write_store_postgresql_in_batches(generated, jsonl_outcomes, pg_url: str) -> None:
    assert write_store(jsonl_outcomes, pg_url, batch=100) == (len(generated.events), 0)
    assert write_store(jsonl_outcomes, pg_url, batch=100) == (0, len(generated.events))
    with open_store(pg_url).engine.connect() as conn:
        stored = sorted(r[0] for r in conn.execute(sa.text("SELECT event_id FROM hw_events")))
    assert stored == sorted(json.loads(e)["event_id"] for e in generated.events)


def test_spark_ingest_command(generated, tmp_path: Path) -> None:
    """``headwater spark-ingest`` in its own process (it starts and stops its own local Spark)."""
    out = tmp_path / "events"
    cmd = [
        sys.executable,
        "-m",
        "headwater.cli.main",
        "spark-ingest",
        str(generated.dir / "fe.audit.log"),
        "--format",
        "doris-audit-file",
        "--schema",
        str(generated.schema),
        "--output",
        str(out),
        "--master",
        "local[2]",
        "--since",
        "2024-05-01 08:00:00",
        "--until",
        "2024-05-01 14:00:00",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "120"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"events written to {out} (jsonl)" in done.stdout
    window = [
        e for e in generated.events if "2024-05-01T08:00" <= json.loads(e)["context"]["timestamp"] < "2024-05-01T14:00"
    ]
    assert 0 < len(window) < len(generated.events)
    assert _parts(out) == window
