"""Marquez's list of received OpenLineage events (``GET /api/v1/events/lineage``).

An event recorded from OpenLineage is returned as its producer sent it. An event headwater extracted
(a headwater event: ``ingest``, ``POST /api/v1/events``, the dispatcher's plugins) is returned as the
COMPLETE RunEvent ``extract --format openlineage`` makes of it, its datasets named in their catalog's
namespace as this API names them (its job as that command names jobs). Catalog definitions (DDL) and
``record_lineage`` calls are no events of a run and are left out; so are deleted events."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, func, select

from headwater.model import event_from_dict
from headwater.model.ol_naming import OpenLineageNaming, Place
from headwater.model.openlineage import run_event_json
from headwater.store import LineageStore
from headwater.store.engine import READ
from headwater.store.names import to_us
from headwater.store.schema import event_document, events

KINDS = ("openlineage", "headwater")
_EV = events.c


def _derived(doc: dict[str, Any]) -> dict[str, Any] | None:
    try:
        event = event_from_dict(doc)
    except Exception:
        return None
    tables = [event.target.table, *event.sources, *event.via]
    naming = OpenLineageNaming({t.catalog: Place(t.catalog) for t in tables if t.catalog})
    return json.loads(run_event_json(event, naming=naming))  # type: ignore[no-any-return]


def _document(kind: str, text: str | None) -> dict[str, Any] | None:
    try:
        doc = json.loads(text or "null")
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    return doc if kind == "openlineage" else _derived(doc)


def lineage_events(
    store: LineageStore, before: datetime | None, after: datetime | None, ascending: bool, limit: int, offset: int
) -> dict[str, Any]:
    where = and_(_EV.kind.in_(KINDS), _EV.deleted_us.is_(None))
    if before is not None:
        where = and_(where, _EV.event_us < to_us(before))
    if after is not None:
        where = and_(where, _EV.event_us > to_us(after))
    order = (_EV.event_us.asc(), _EV.id.asc()) if ascending else (_EV.event_us.desc(), _EV.id.desc())
    q = select(_EV.kind, _EV.payload, _EV.payload_zlib).where(where).order_by(*order).limit(limit).offset(offset)
    with store.engine.connect().execution_options(**READ) as conn:
        total = _count(conn, where)
        rows = conn.execute(q).all()
    docs = [_document(r.kind, event_document(r.payload, r.payload_zlib)) for r in rows]
    return {"events": [d for d in docs if d is not None], "totalCount": total}


def _count(conn: Connection, where: Any) -> int:
    return int(conn.execute(select(func.count()).select_from(events).where(where)).scalar() or 0)
