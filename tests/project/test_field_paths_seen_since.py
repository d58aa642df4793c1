"""The explorer's field paths hide the jobs not seen since a time, as origin, impact and the graph
queries do (``seen_since``; issue 11, deliverable 5)."""

from __future__ import annotations

import dataclasses

from fastapi.testclient import TestClient

from headwater.extract import extract_script
from headwater.service import create_app
from headwater.store import open_store

OLD, NEW = "2026-11-01T10:00:00Z", "2026-11-20T10:00:00Z"
API = "/api/v1/explorer/field-paths"


def _log_event(sql: str, query_id: str, timestamp: str) -> object:
    """An event as a query log gives it: no project file, so its job ages."""
    (statement,) = extract_script(sql, dialect="spark").statements
    (event,) = statement.events
    ctx = dataclasses.replace(event.context, query_id=query_id, timestamp=timestamp)
    return dataclasses.replace(event, context=ctx, event_id=query_id)


def _shorts(side: dict) -> list[str]:
    return sorted(n["short"] for n in side["nodes"])


def test_field_paths_leave_out_jobs_not_seen_since(store_url: str) -> None:
    store = open_store(store_url)
    store.record(_log_event("INSERT INTO rpt.daily SELECT s.x AS x FROM raw.s s", "q1", OLD))  # type: ignore[arg-type]
    store.record(_log_event("INSERT INTO rpt.weekly SELECT s.x AS x FROM raw.s s", "q2", NEW))  # type: ignore[arg-type]
    with TestClient(create_app(store)) as client:
        every = client.get(API, params={"field": "raw.s.x"}).json()
        assert _shorts(every["downstream"]) == ["daily.x", "weekly.x"]
        recent = client.get(API, params={"field": "raw.s.x", "seen_since": "2026-11-15T00:00:00Z"}).json()
        assert _shorts(recent["downstream"]) == ["weekly.x"]
        up = client.get(API, params={"field": "rpt.daily.x", "seen_since": "2026-11-15T00:00:00Z"}).json()
        assert up["upstream"]["nodes"] == []
        bad = client.get(API, params={"field": "raw.s.x", "seen_since": "soon"})
        assert bad.status_code == 400 and bad.json()["error"]["field"] == "query.seen_since"
