"""The ``headwater spark-ingest`` job: read a log, extract on the executors, write the events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from headwater.history.mapping import FieldMap
from headwater.spark.extract import extract_events
from headwater.spark.io import read_log, summarize, write_jsonl, write_parquet, write_store


@dataclass
class SparkJob:
    """What to read, how to extract, where to write (``output`` and/or ``store``)."""

    inputs: Sequence[str]
    input_format: str = "jsonl"
    read_options: dict[str, str] = field(default_factory=dict)
    mapping: FieldMap = field(default_factory=dict)
    snapshot: dict[str, Any] | str | None = None
    dialect: str = "doris"
    statements: str = "doris"
    timezone: str = "UTC"
    default_catalog: str = "internal"
    since: datetime | None = None
    until: datetime | None = None
    partitions: int | None = None
    output: str | None = None
    output_format: str = "jsonl"
    store: str | None = None
    batch: int = 500
    task_size: int = 500


def run_job(spark: Any, job: SparkJob) -> dict[str, Any]:
    """Run ``job`` on ``spark``; the summary of ``headwater.spark.summarize`` plus what was written."""
    df = read_log(spark, job.inputs, job.input_format, job.read_options)
    outcomes = extract_events(
        df,
        job.snapshot,
        dialect=job.dialect,
        statements=job.statements,
        mapping=job.mapping,
        timezone=job.timezone,
        default_catalog=job.default_catalog,
        since=job.since,
        until=job.until,
        num_partitions=job.partitions,
    ).cache()
    try:
        summary = summarize(outcomes)
        if job.output:
            (write_parquet if job.output_format == "parquet" else write_jsonl)(outcomes, job.output)
            summary["output"] = job.output
        if job.store:
            summary["recorded"], summary["duplicates"] = write_store(outcomes, job.store, job.batch, job.task_size)
    finally:
        outcomes.unpersist()
    return summary
