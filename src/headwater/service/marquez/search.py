"""Marquez's search (``GET /api/v1/search?q=``): datasets and jobs whose Marquez name matches ``q``,
case-insensitive, ``%`` any run of characters and ``_`` one character, anywhere in the name; a dataset
whose own name does not match but one of its other names does (a symlink's, ``store.aliases``) is found
under its own name, with ``alias`` the one that matched."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, or_, select

from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.names import node_id
from headwater.service.marquez.shapes import Shapes
from headwater.store import LineageStore
from headwater.store.aliases import present
from headwater.store.engine import READ
from headwater.store.schema import aliases, nodes
from headwater.store.types import NodeType

_N = nodes.c
_A = aliases.c


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
    by_alias = select(_A.node_id, _A.name).where(or_(func.lower(_A.name).like(like), func.lower(_A.short).like(like)))
    with store.engine.connect().execution_options(**READ) as conn:
        ids = [r.id for r in conn.execute(query)]
        aliased: dict[int, str] = {}  # a dataset found by one of its other names (``store.aliases``)
        if NodeType.DATASET.value in types and present(conn):
            for nid, name in conn.execute(by_alias.order_by(_A.name)):
                if found.search(name):
                    aliased.setdefault(nid, name)
        hits = reads.by_ids(conn, [*ids, *(i for i in aliased if i not in ids)])
        shapes = Shapes(conn)
        ds = [n for n in hits.values() if n.type == NodeType.DATASET.value]
        js = [n for n in hits.values() if n.type != NodeType.DATASET.value]
        shaped = [("DATASET", "dataset", d, n.id) for n, d in zip(ds, shapes.datasets(ds), strict=True)]
        shaped += [("JOB", "job", j, n.id) for n, j in zip(js, shapes.jobs(js), strict=True)]
    results = []
    for kind, prefix, s, node in shaped:
        if namespace not in (None, "", s["namespace"]):
            continue
        hit = {
            "type": kind,
            "name": s["name"],
            "updatedAt": s["updatedAt"],
            "namespace": s["namespace"],
            "nodeId": node_id(prefix, s["namespace"], s["name"]),
        }
        if found.search(s["name"]):
            results.append(hit)
        elif node in aliased:  # its own name did not match: the other name that did
            results.append({**hit, "alias": aliased[node]})
    if sort == "updated_at":
        results.sort(key=lambda r: (r["updatedAt"], r["name"]), reverse=True)
    else:
        results.sort(key=lambda r: (r["name"], r["type"]))
    return {"totalCount": len(results), "results": results[:limit]}
