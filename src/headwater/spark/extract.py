"""Extraction of a query-log DataFrame on Spark executors.

The rows are turned into ``LogRecord``s with the same column mapping as ``ingest-log``, grouped by
session (``groupByKey``), sorted by time within each session, and extracted by
``headwater.history.HistoryExtractor`` with the catalog snapshot broadcast to every executor: the
same code as the single-machine path, so the same events.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from headwater.history.extract import HistoryExtractor
from headwater.history.mapping import FieldMap, record_from_row
from headwater.history.record import LogRecord, zone
from headwater.history.window import Window
from headwater.model import event_to_json

OUTCOME_COLUMNS = (
    "query_id",
    "session",
    "kind",
    "detail",
    "event_ids",
    "events",
    "first_us",
    "first_seq",
    "size",
    "position",
)
"""What each statement gave; the last four place it as ``ingest-log`` records it: its session's first
statement (time in µs since the epoch and read position: sessions run in that order), the session's
statements, and the outcome's position in the session (``headwater.history.ordering``)."""
UNREADABLE = "unreadable"

_extractors: dict[str, HistoryExtractor] = {}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def outcome_schema() -> Any:
    """``query_id, session, kind, detail`` (strings), ``event_ids, events`` (arrays of strings), ``first_us,
    first_seq, size, position`` (integers)."""
    from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

    text = StringType()
    return StructType(
        [StructField(c, text) for c in OUTCOME_COLUMNS[:4]]
        + [StructField(c, ArrayType(text)) for c in OUTCOME_COLUMNS[4:6]]
        + [StructField(c, LongType()) for c in OUTCOME_COLUMNS[6:]]
    )


def load_snapshot(snapshot: dict[str, Any] | str | Path | None) -> dict[str, Any] | None:
    """A schema document from a ``headwater catalog dump`` file (JSON or YAML), or as given."""
    if snapshot is None or isinstance(snapshot, dict):
        return snapshot
    path = Path(snapshot)
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)


def _extractor(params: dict[str, Any]) -> HistoryExtractor:
    """One extractor per executor process and job (the snapshot is parsed once)."""
    hx = _extractors.get(params["key"])
    if hx is None:
        import logging

        from headwater.catalog import schema_from_data

        logging.getLogger("sqlglot").setLevel(logging.ERROR)
        doc = params["snapshot"]
        catalog = None
        if doc is not None:
            catalog = schema_from_data(doc, params["dialect"], params["default_catalog"], "catalog snapshot")
        hx = HistoryExtractor(catalog, params["dialect"], params["statements"], params["default_catalog"])
        _extractors[params["key"]] = hx
    return hx


def _records(rows: Iterable[tuple[Any, int]], params: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(session, LogRecord) for each readable row in the window; ("", problem row) for others."""
    tz = zone(params["timezone"])
    window = Window(params["since"], params["until"])
    for row, seq in rows:
        data = row.asDict(recursive=True) if hasattr(row, "asDict") else dict(row)
        try:
            record = record_from_row(data, params["mapping"], seq, tz)
        except ValueError as exc:
            where = data.get("query_id") or f"row {seq + 1}"
            yield "", (str(where), "", UNREADABLE, str(exc), [], [], None, None, 0, 0)
            continue
        if window.admits(record):
            yield record.session, record


def _extract(groups: Iterable[tuple[str, Iterable[LogRecord]]], params: dict[str, Any]) -> Iterator[tuple]:
    hx = _extractor(params)
    for _session, records in groups:
        ordered = sorted(records, key=LogRecord.sort_key)
        first_time, first_seq = ordered[0].sort_key()
        first_us = (first_time - _EPOCH) // timedelta(microseconds=1)
        for position, o in enumerate(hx.session(ordered)):
            yield (
                o.query_id,
                o.session,
                o.kind,
                o.detail,
                [e.event_id for e in o.events],
                [event_to_json(e) for e in o.events],
                first_us,
                first_seq,
                len(ordered),
                position,
            )


def extract_events(
    df: Any,
    catalog_snapshot: dict[str, Any] | str | Path | None = None,
    *,
    dialect: str = "doris",
    statements: str = "doris",
    mapping: FieldMap | None = None,
    timezone: str = "UTC",
    default_catalog: str = "internal",
    since: datetime | None = None,
    until: datetime | None = None,
    num_partitions: int | None = None,
) -> Any:
    """The outcome of every statement of a query-log DataFrame, as a DataFrame (``outcome_schema``).

    ``kind`` is ``event`` (``events`` holds the events as JSON, ``event_ids`` their ids), ``skipped``
    (``detail``: the guide's rule), ``failed`` (``detail``: why it did not parse or bind),
    ``not-succeeded`` (the database reported a failure) or ``unreadable`` (the row has no SQL or a bad
    time). ``catalog_snapshot`` is a ``headwater catalog dump`` document (or its file), broadcast to
    the executors; ``mapping`` and ``timezone`` are those of ``ingest-log --map/--timezone``.
    """
    from headwater.catalog import schema_from_data

    spark = df.sparkSession
    doc = load_snapshot(catalog_snapshot)
    if doc is not None:
        schema_from_data(doc, dialect, default_catalog, str(catalog_snapshot))  # fail on the driver, not later
    zone(timezone)
    params = {
        "key": uuid.uuid4().hex,
        "snapshot": doc,
        "dialect": dialect,
        "statements": statements,
        "mapping": dict(mapping or {}),
        "timezone": timezone,
        "default_catalog": default_catalog,
        "since": since,
        "until": until,
    }
    shared = spark.sparkContext.broadcast(params)
    parsed = df.rdd.zipWithIndex().mapPartitions(lambda rows: _records(rows, shared.value))
    problems = parsed.filter(lambda kv: kv[0] == "").map(lambda kv: kv[1])
    records = parsed.filter(lambda kv: kv[0] != "")
    partitions = num_partitions or spark.sparkContext.defaultParallelism
    outcomes = records.groupByKey(partitions).mapPartitions(lambda groups: _extract(groups, shared.value))
    return spark.createDataFrame(outcomes.union(problems), outcome_schema())
