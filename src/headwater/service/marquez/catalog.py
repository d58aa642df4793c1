"""Marquez's namespaces, datasets and jobs (``/api/v1/namespaces/…``) over the store.

Namespaces are the source systems that hold datasets and the namespaces of jobs (``names``). Jobs
are found by their namespace among all process nodes, which are read whole: fine for thousands of
jobs, not tuned for millions."""

from __future__ import annotations

from typing import Any

from headwater.service.errors import ApiError
from headwater.service.marquez import resolve
from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.names import job_id
from headwater.service.marquez.shapes import Shapes, namespace
from headwater.store import LineageStore
from headwater.store.engine import READ
from headwater.store.names import ident


def _read(store: LineageStore) -> Any:
    return store.engine.connect().execution_options(**READ)


def _job_namespaces(procs: list[reads.Node]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for p in procs:
        ns = job_id(p.name, p.properties)[0]
        first, count = out.get(ns, (p.created_us, 0))
        out[ns] = (min(first, p.created_us), count + 1)
    return out


def namespaces(store: LineageStore) -> list[dict[str, Any]]:
    with _read(store) as conn:
        systems = reads.dataset_systems(conn)
        procs = _job_namespaces(reads.processes(conn))
    out: dict[str, dict[str, Any]] = {}
    for name in sorted({*systems, *procs}):
        ds, js = systems.get(name, (0, 0)), procs.get(name, (0, 0))
        created = min(t for t, n in (ds, js) if n)
        what = ", ".join(f"{n} {w}" for n, w in ((ds[1], "datasets"), (js[1], "jobs")) if n)
        out[name] = namespace(name, created, what=f"headwater: {what}")
    return list(out.values())


def one_namespace(store: LineageStore, name: str) -> dict[str, Any]:
    for ns in namespaces(store):
        if ns["name"] in (name, ident(name)):
            return ns
    raise ApiError(404, "path.namespace", f"no namespace {name!r}")


def datasets(store: LineageStore, ns: str, limit: int, offset: int) -> dict[str, Any]:
    with _read(store) as conn:
        page, total = reads.datasets_in(conn, ns, limit, offset)
        return {"datasets": Shapes(conn).datasets(page), "totalCount": total}


def dataset(store: LineageStore, ns: str, name: str) -> dict[str, Any]:
    with _read(store) as conn:
        return Shapes(conn).datasets([resolve.dataset(conn, ns, name)])[0]


def jobs(store: LineageStore, ns: str, limit: int, offset: int) -> dict[str, Any]:
    with _read(store) as conn:
        mine = [p for p in reads.processes(conn) if job_id(p.name, p.properties)[0] == ns]
        mine.sort(key=lambda p: job_id(p.name, p.properties)[1])
        return {"jobs": Shapes(conn).jobs(mine[offset : offset + limit]), "totalCount": len(mine)}


def job(store: LineageStore, ns: str, name: str) -> dict[str, Any]:
    with _read(store) as conn:
        return Shapes(conn).jobs([resolve.job(conn, ns, name)])[0]
