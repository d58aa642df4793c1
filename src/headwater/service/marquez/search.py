"""Marquez's search (``GET /api/v1/search?q=``): datasets and jobs whose Marquez name matches ``q``,
case-insensitive, ``%`` any run of characters and ``_`` one character, anywhere in the name."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, or_, select

from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.names import node_id
from headwater.service.marquez.shapes import Shapes
from headwater.store import LineageStore
from headwater.store.engine import READ
from headwater.store.schema import nodes
from headwater.store.types import NodeType

_N = nodes.c


def pattern(q: str) -> re.Pattern[str]:
    """``q`` as a regular expression matching anywhere, ``%`` and ``_`` as in SQL ``LIKE``.

    >>> bool(pattern("cust%rev").search("sales.customer_revenue")), bool(pattern("o_ders").search("orders"))
    (True, True)
    """
    body = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in q)
    return re.compile(body, re.IGNORECASE | re.DOTALL)


def search(
    store: LineageStore, q: str, what: str | None, sort: str, limit: int, namespace: str | None
) -> dict[str, Any]:
    like = "%" + q.lower() + "%"
    types = {"dataset": [NodeType.DATASET.value], "job": list(reads.PROCESS)}.get(
        (what or "").lower(), [NodeType.DATASET.value, *reads.PROCESS]
    )
    found = pattern(q)
    query = select(_N.id).where(
        _N.type.in_(types), or_(func.lower(_N.name).like(like), func.lower(_N.short).like(like))
    )
    with store.engine.connect().execution_options(**READ) as conn:
        hits = reads.by_ids(conn, [r.id for r in conn.execute(query)])
        shapes = Shapes(conn)
        ds = [n for n in hits.values() if n.type == NodeType.DATASET.value]
        js = [n for n in hits.values() if n.type != NodeType.DATASET.value]
        shaped = [("DATASET", "dataset", d) for d in shapes.datasets(ds)] + [("JOB", "job", j) for j in shapes.jobs(js)]
    results = [
        {
            "type": kind,
            "name": s["name"],
            "updatedAt": s["updatedAt"],
            "namespace": s["namespace"],
            "nodeId": node_id(prefix, s["namespace"], s["name"]),
        }
        for kind, prefix, s in shaped
        if found.search(s["name"]) and namespace in (None, "", s["namespace"])
    ]
    if sort == "updated_at":
        results.sort(key=lambda r: (r["updatedAt"], r["name"]), reverse=True)
    else:
        results.sort(key=lambda r: (r["name"], r["type"]))
    return {"totalCount": len(results), "results": results[:limit]}
