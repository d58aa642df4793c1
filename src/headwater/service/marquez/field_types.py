"""Column types of a dataset, from the newest stored event whose job writes it: the store keeps no
types on its field nodes, the events that recorded them do (a headwater event's target columns, an
OpenLineage output's schema facet). A dataset only ever read has none."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, select

from headwater.store.names import ident
from headwater.store.schema import OPEN, edges, event_document, events
from headwater.store.types import EdgeType

UNKNOWN = "UNKNOWN"
"""The type of a column no stored event types (Marquez requires a type string)."""


def _from_headwater(doc: Mapping[str, Any]) -> dict[str, str]:
    cols = (doc.get("target") or {}).get("columns") or []
    return {ident(c["name"]): c["type"] for c in cols if isinstance(c, dict) and c.get("name") and c.get("type")}


def _from_openlineage(doc: Mapping[str, Any], name: str) -> dict[str, str]:
    outputs = [o for o in doc.get("outputs") or [] if isinstance(o, dict)]
    mine = [o for o in outputs if str(o.get("name", "")).lower().endswith(name)] or outputs[:1]
    out: dict[str, str] = {}
    for o in mine[:1]:
        for f in ((o.get("facets") or {}).get("schema") or {}).get("fields") or []:
            if isinstance(f, dict) and f.get("name") and f.get("type"):
                out[ident(f["name"])] = str(f["type"])
    return out


def field_types(conn: Connection, dataset_id: int, name: str) -> dict[str, str]:
    """Column types of the dataset (node id, Marquez name) by normalised column name."""
    ev, e = events.c, edges.c
    q = (
        select(ev.kind, ev.payload, ev.payload_zlib)
        .join(edges, e.job_id == ev.job_id)
        .where(e.type == EdgeType.WRITE.value, e.dst_id == dataset_id, e.valid_to == OPEN, ev.deleted_us.is_(None))
        .order_by(ev.event_us.desc())
        .limit(1)
    )
    row = conn.execute(q).first()
    if row is None:
        return {}
    try:
        doc = json.loads(event_document(row.payload, row.payload_zlib) or "{}")
    except ValueError:
        return {}
    if not isinstance(doc, dict):
        return {}
    return _from_openlineage(doc, name.lower()) if row.kind == "openlineage" else _from_headwater(doc)
