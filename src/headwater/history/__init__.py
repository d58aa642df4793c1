"""Lineage from query history: audit logs and query logs replayed session by session.

Public surface::

    open_source(kind, locations, mapping=None, tz=UTC, table=None, name=None) -> Source
    ingest_history(source, store, IngestOptions(...), watermarks=None, progress=None) -> IngestSummary
    HistoryExtractor(catalog, dialect).session(records) -> Iterator[Outcome]   # also used by Spark
    TableWatermarks(engine) / FileWatermarks(path)

See ``docs/history.md``.
"""

from headwater.history.extract import EVENT, FAILED, NOT_SUCCEEDED, SKIPPED, HistoryExtractor, Outcome
from headwater.history.ingest import Counters, IngestOptions, IngestSummary, Problem, ingest_history
from headwater.history.mapping import FIELDS, MappingError, parse_mapping, record_from_row
from headwater.history.ordering import Session, group_sessions, plan_tasks
from headwater.history.parallel import ExtractSpec
from headwater.history.record import LogRecord, format_time, parse_time, zone
from headwater.history.sources import SOURCE_KINDS, ReadProblem, Source, open_source
from headwater.history.watermark import FileWatermarks, TableWatermarks, WatermarkStore
from headwater.history.window import Watermark, Window

__all__ = [
    "EVENT",
    "FAILED",
    "FIELDS",
    "NOT_SUCCEEDED",
    "SKIPPED",
    "SOURCE_KINDS",
    "Counters",
    "ExtractSpec",
    "FileWatermarks",
    "HistoryExtractor",
    "IngestOptions",
    "IngestSummary",
    "LogRecord",
    "MappingError",
    "Outcome",
    "Problem",
    "ReadProblem",
    "Session",
    "Source",
    "TableWatermarks",
    "Watermark",
    "WatermarkStore",
    "Window",
    "format_time",
    "group_sessions",
    "ingest_history",
    "open_source",
    "parse_mapping",
    "parse_time",
    "plan_tasks",
    "record_from_row",
    "zone",
]
