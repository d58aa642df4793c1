"""Small warehouses written as SQL, extracted and recorded as ``headwater ingest`` would."""

from __future__ import annotations

import dataclasses

from headwater.extract import extract_script
from headwater.model import LineageInfo
from headwater.model.job import JOB_FILE_PROPERTY, JOB_LINE_PROPERTY, JOB_PROPERTY, file_job_name
from headwater.store import LineageStore


def events_of(sql: str, dialect: str = "spark") -> list[LineageInfo]:
    """The events of a script; every statement must extract."""
    result = extract_script(sql, dialect=dialect)
    failed = [s for s in result.statements if s.failed]
    assert not failed, [s.error for s in failed]
    return [e for s in result.statements for e in s.events]


def record_sql(store: LineageStore, sql: str, dialect: str = "spark") -> list[LineageInfo]:
    events = events_of(sql, dialect)
    store.record_batch(events)
    return events


def file_events(path: str, sql: str, timestamp: str, dialect: str = "spark") -> list[LineageInfo]:
    """The events of a project file's statements, named ``path#ordinal`` (``model.job``), at ``timestamp``."""
    result = extract_script(sql, dialect=dialect)
    out = []
    ordinal = 0
    for s in result.statements:
        assert not s.failed, s.error
        if not s.events:
            continue
        ordinal += 1
        for e in s.events:
            props = {
                **e.context.external_catalog_properties,
                JOB_PROPERTY: file_job_name(path, ordinal),
                JOB_FILE_PROPERTY: path,
                JOB_LINE_PROPERTY: str(s.line),
            }
            ctx = dataclasses.replace(
                e.context,
                timestamp=timestamp,
                external_catalog_properties=props,
                query_id=f"{path}#{ordinal}@{timestamp}",
            )
            out.append(dataclasses.replace(e, context=ctx, event_id=f"{path}#{ordinal}@{timestamp}:{e.target.table}"))
    return out
