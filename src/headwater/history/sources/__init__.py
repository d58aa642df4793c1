"""History sources: the Doris audit table and ``fe.audit.log`` files, JSON lines and CSV logs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, tzinfo

from headwater.history.mapping import FieldMap
from headwater.history.sources.base import ReadProblem, Source
from headwater.history.sources.csvfile import CsvSource
from headwater.history.sources.doris_file import DorisAuditFileSource, parse_audit_line
from headwater.history.sources.doris_table import DEFAULT_TABLE, DorisAuditTableSource
from headwater.history.sources.jsonl import JsonLinesSource

SOURCE_KINDS = ("doris-audit-table", "doris-audit-file", "jsonl", "csv")


def open_source(
    kind: str,
    locations: Sequence[str],
    mapping: FieldMap | None = None,
    tz: tzinfo = UTC,
    table: str | None = None,
    name: str | None = None,
) -> Source:
    """The source of ``kind`` over ``locations`` (file paths; for the table, one SQLAlchemy URL)."""
    if not locations:
        raise ValueError(f"{kind}: give the log's location")
    mapping = dict(mapping or {})
    if kind == "doris-audit-table":
        if len(locations) != 1:
            raise ValueError("doris-audit-table: give one database URL")
        return DorisAuditTableSource(locations[0], table or DEFAULT_TABLE, mapping, tz, name or "")
    if table:
        raise ValueError(f"{kind}: --table applies to doris-audit-table only")
    if kind == "doris-audit-file":
        if mapping:
            raise ValueError("doris-audit-file: the audit line format has fixed names; --map does not apply")
        return DorisAuditFileSource(list(locations), tz, name or "")
    if kind == "jsonl":
        return JsonLinesSource(list(locations), mapping, tz, name or "")
    if kind == "csv":
        return CsvSource(list(locations), mapping, tz, name or "")
    raise ValueError(f"unknown source {kind!r} (one of {', '.join(SOURCE_KINDS)})")


__all__ = [
    "DEFAULT_TABLE",
    "SOURCE_KINDS",
    "CsvSource",
    "DorisAuditFileSource",
    "DorisAuditTableSource",
    "JsonLinesSource",
    "ReadProblem",
    "Source",
    "open_source",
    "parse_audit_line",
]
