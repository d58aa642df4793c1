"""From a Marquez node id or path names to the store's node (404 naming the parameter when none)."""

from __future__ import annotations

from sqlalchemy import Connection

from headwater.service.errors import ApiError
from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.names import NodeId, job_candidates, job_id


def dataset(conn: Connection, namespace: str, name: str, param: str = "path.dataset") -> reads.Node:
    found = reads.find_dataset(conn, namespace, name)
    if found is None:
        raise ApiError(404, param, f"no dataset {name!r} in namespace {namespace!r}")
    return found


def job(conn: Connection, namespace: str, name: str, param: str = "path.job") -> reads.Node:
    for node in reads.find_processes(conn, job_candidates(namespace, name)):
        if job_id(node.name, node.properties) == (namespace, name):
            return node
    raise ApiError(404, param, f"no job {name!r} in namespace {namespace!r}")


def node(conn: Connection, nid: NodeId, param: str = "query.nodeId") -> reads.Node:
    """The dataset, job or field a node id names (the first split of its namespace that exists)."""
    for ns, rest in nid.splits():
        if nid.kind == "dataset":
            found = reads.find_dataset(conn, ns, rest)
            if found is not None:
                return found
        elif nid.kind == "job":
            try:
                return job(conn, ns, rest, param)
            except ApiError:
                continue
        else:
            name, sep, column = rest.rpartition(":")
            ds = reads.find_dataset(conn, ns, name) if sep else None
            hit = reads.find_field(conn, ds, column) if ds is not None else None
            if hit is not None:
                return hit
    raise ApiError(404, param, f"no node {nid.kind}:{nid.rest}")
