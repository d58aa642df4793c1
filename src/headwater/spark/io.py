"""Reading query logs into Spark and writing the events out (JSON lines, Parquet, the store)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from headwater.history.mapping import FIELDS
from headwater.history.sources.doris_file import parse_audit_line

INPUT_FORMATS = ("jsonl", "csv", "parquet", "doris-audit-file", "jdbc")


def read_log(spark: Any, paths: Sequence[str], fmt: str, options: dict[str, str] | None = None) -> Any:
    """A DataFrame of a query log: JSON lines, CSV with a header, Parquet, ``fe.audit.log`` files
    (one statement per line; ``LogRecord`` column names), or a JDBC table (``options``: ``url``,
    ``dbtable``, ``user``, ``password``, ``driver``; the driver's jar must be on Spark's class path)."""
    options = dict(options or {})
    if fmt == "jsonl":
        return spark.read.options(**options).json(list(paths))
    if fmt == "csv":
        return spark.read.options(header="true", multiLine="true", escape='"', **options).csv(list(paths))
    if fmt == "parquet":
        return spark.read.options(**options).parquet(*paths)
    if fmt == "jdbc":
        return spark.read.format("jdbc").options(**options).load()
    if fmt == "doris-audit-file":
        from pyspark.sql.types import StringType, StructField, StructType

        lines = spark.read.text(list(paths)).rdd.map(lambda r: r[0])
        rows = lines.map(parse_audit_line).filter(lambda f: f is not None)
        schema = StructType([StructField(name, StringType()) for name in FIELDS])
        return spark.createDataFrame(rows.map(lambda f: tuple(f.get(n) for n in FIELDS)), schema)
    raise ValueError(f"unknown input format {fmt!r} (one of {', '.join(INPUT_FORMATS)})")


def events_frame(outcomes: Any) -> Any:
    """One row per event: ``event_id``, ``query_id``, ``session``, ``event`` (the event's JSON)."""
    from pyspark.sql import functions as F

    pairs = F.explode(F.arrays_zip(F.col("event_ids").alias("event_id"), F.col("events").alias("event")))
    return (
        outcomes.where(F.col("kind") == "event")
        .select("query_id", "session", pairs.alias("p"))
        .select(F.col("p.event_id").alias("event_id"), "query_id", "session", F.col("p.event").alias("event"))
    )


def write_jsonl(outcomes: Any, path: str, mode: str = "overwrite") -> None:
    """The events as JSON lines (Spark writes a directory of ``part-*`` text files)."""
    events_frame(outcomes).select("event").write.mode(mode).text(path)


def write_parquet(outcomes: Any, path: str, mode: str = "overwrite") -> None:
    """The events as Parquet: ``event_id``, ``query_id``, ``session``, ``event`` (JSON text)."""
    events_frame(outcomes).write.mode(mode).parquet(path)


def write_store(outcomes: Any, url: str, batch: int = 500, task_size: int = 500) -> tuple[int, int]:
    """Record the events into the store at ``url`` (SQLite or PostgreSQL) from the driver, in the order
    and batches ``ingest-log`` records them: sessions by their first statement, packed into tasks of
    ``task_size`` statements (``plan_tasks``), each task's events ``batch`` per transaction in statement
    order. So the store is the one ``ingest-log`` makes of the same log: the same event owns the same
    edges whatever order the executors finished in. Returns (recorded, duplicates)."""
    from pyspark.sql import functions as F

    from headwater.model import event_from_json
    from headwater.store import open_store

    store = open_store(url)
    sessions = outcomes.where(F.col("size") > 0).select("session", "first_us", "first_seq", "size").distinct().collect()
    sessions.sort(key=lambda r: (r["first_us"], r["first_seq"], r["session"]))
    task_of: dict[str, int] = {}
    task = count = 0
    for r in sessions:  # ``plan_tasks``: whole sessions, a task closed once it holds ``task_size`` statements
        task_of[r["session"]] = task
        count += r["size"]
        if count >= task_size:
            task, count = task + 1, 0
    events = (
        outcomes.where((F.col("kind") == "event") & (F.col("size") > 0))
        .select("session", "first_us", "first_seq", "position", "events")
        .orderBy("first_us", "first_seq", "session", "position")
    )
    recorded = duplicates = 0
    pending: list[Any] = []
    current = -1

    def flush() -> None:
        nonlocal recorded, duplicates
        if pending:
            res = store.record_batch(pending)
            recorded, duplicates = recorded + res.recorded, duplicates + res.duplicates
            pending.clear()

    for row in events.toLocalIterator():
        t = task_of[row["session"]]
        if t != current:
            flush()  # a batch never spans two tasks
            current = t
        pending.extend(event_from_json(e) for e in row["events"])
        if len(pending) >= batch:
            flush()
    flush()
    return recorded, duplicates


def summarize(outcomes: Any, problems: int = 20) -> dict[str, Any]:
    """Counts by outcome kind, skip rule and events, and the first ``problems`` failed statements."""
    from pyspark.sql import functions as F

    rows = outcomes.groupBy("kind", "detail").agg(F.count("*").alias("n"), F.sum(F.size("events")).alias("e"))
    kinds: dict[str, int] = {}
    rules: dict[str, int] = {}
    events = 0
    for r in rows.collect():
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + r["n"]
        if r["kind"] == "skipped":
            rules[r["detail"] or "no-event"] = r["n"]
        events += int(r["e"] or 0)
    failed = outcomes.where(F.col("kind").isin("failed", "unreadable")).select("query_id", "detail")
    sample = [(r["query_id"], r["detail"]) for r in failed.orderBy("query_id").limit(problems).collect()]
    return {"kinds": kinds, "rules": rules, "events": events, "problems": sample}
