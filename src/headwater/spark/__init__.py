"""Lineage from query history on Spark, for history that outgrows one machine.

For teams with a Spark pipeline::

    from headwater.spark import extract_events, write_jsonl, write_store

    log = spark.read.json("s3://logs/trino/")                  # or read_log(spark, paths, "csv"), JDBC…
    outcomes = extract_events(
        log,
        "schema.json",                                        # `headwater catalog dump` snapshot, broadcast
        dialect="trino",
        mapping={"sql": "metadata.query", "query_id": "metadata.queryId", "user": "context.user"},
    )
    write_jsonl(outcomes, "s3://lineage/events/")             # or write_parquet(...)
    write_store(outcomes, "postgresql+psycopg://…/lineage")   # batches from the executors

``extract_events`` groups the rows by session, sorts each session by time and extracts it with
``headwater.history.HistoryExtractor`` (the code behind ``headwater ingest-log``), so the events are
the same as on one machine. ``headwater spark-ingest`` runs the same job, in local mode by default.
PySpark is the optional extra ``headwater[spark]``.
"""

from headwater.spark.extract import OUTCOME_COLUMNS, extract_events, load_snapshot, outcome_schema
from headwater.spark.io import INPUT_FORMATS, events_frame, read_log, summarize, write_jsonl, write_parquet, write_store
from headwater.spark.job import SparkJob, run_job
from headwater.spark.session import local_session

__all__ = [
    "INPUT_FORMATS",
    "OUTCOME_COLUMNS",
    "SparkJob",
    "events_frame",
    "extract_events",
    "load_snapshot",
    "local_session",
    "outcome_schema",
    "read_log",
    "run_job",
    "summarize",
    "write_jsonl",
    "write_parquet",
    "write_store",
]
