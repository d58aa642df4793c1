"""Jobs over time: versions, closing the jobs a project no longer has, ageing query-log jobs.

A job is a name (``headwater.model.job``). Each recording of it is a *run*; runs of one normalised
statement (``sql_fingerprint``: comments, literals, case and blanks aside) in a row are one
*version*. A new version replaces the previous one's lineage when it is recorded (``write.py``
closes the edges it no longer asserts at its time), so ``as_of`` shows each version in its period.

``hw_jobs`` keeps, per job, when it was first and last seen, its runs, the project file and line
of its latest statement, and when it was closed. Jobs with a file belong to a project: re-ingesting
the project closes those that left it (``close_jobs`` per file, ``prune_files`` for removed files).
Jobs without one (query logs, OpenLineage, ``record_lineage``) *age*: ``hidden_jobs`` lists those
not seen since a time, for queries to leave out, and ``expire_jobs`` closes them.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Collection, Container
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select, update

from headwater.model.job import JOB_FILE_PROPERTY, JOB_LINE_PROPERTY, sql_fingerprint
from headwater.store.delete import delete_lineage
from headwater.store.errors import InvalidInput
from headwater.store.names import from_us, now_us, to_us
from headwater.store.resolve import fetch_nodes, resolve
from headwater.store.results import NodeInfo
from headwater.store.schema import OPEN, edges, event_document, events, jobs, nodes
from headwater.store.types import PROCESS_TYPES

_J = jobs.c
_EV = events.c
NAMED_PREFIX = "job:"
"""Node names of named jobs: ``job:`` + the name (``marts/fct_sales.sql#2``)."""


@dataclass(frozen=True, slots=True)
class JobVersion:
    """One version of a job: the runs of one normalised statement in a row."""

    version: int
    fingerprint: str | None
    valid_from: datetime | None
    valid_to: datetime | None
    """When the next version (or the job's closing) replaced it; None while current."""
    runs: int
    last_seen: datetime | None
    sql: str | None
    """The statement of the version's latest run."""
    file: str | None
    line: int | None
    event_id: str


@dataclass(frozen=True, slots=True)
class JobHistory:
    job: NodeInfo
    name: str
    first_seen: datetime | None
    last_seen: datetime | None
    runs: int
    file: str | None
    line: int | None
    closed: datetime | None
    versions: list[JobVersion] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ClosedJobs:
    """Jobs closed by ``close_jobs``, ``prune_files`` or ``expire_jobs``, and their edges closed."""

    jobs: list[str]
    edges_closed: int


def display_name(node_name: str) -> str:
    """The name a producer gave (``job:x`` → ``x``); other job names as stored."""
    return node_name[len(NAMED_PREFIX) :] if node_name.startswith(NAMED_PREFIX) else node_name


def job_node(conn: Connection, name: str | int) -> NodeInfo:
    """The job ``name`` designates: the name a producer gave (``marts/fct_sales.sql#2``), a stored job
    name (``sql:…``, ``ol:…``), or anything ``resolve`` takes (``#id``, ``JOB:…``)."""
    if isinstance(name, str):
        for candidate in (NAMED_PREFIX + name.strip(), name.strip()):
            nid = conn.execute(
                select(nodes.c.id).where(nodes.c.type.in_(sorted(PROCESS_TYPES)), nodes.c.name == candidate)
            ).scalar_one_or_none()
            if nid is not None:
                return fetch_nodes(conn, [nid])[nid]
    return resolve(conn, name, types=PROCESS_TYPES)


def _payload(row: Any) -> dict[str, Any]:
    try:
        doc = event_document(row.payload, row.payload_zlib)
        return json.loads(doc) if doc else {}
    except ValueError:
        return {}


def _sql_and_source(kind: str, payload: dict[str, Any]) -> tuple[str | None, str | None, int | None]:
    if kind == "headwater":
        ctx = payload.get("context") or {}
        props = ctx.get("external_catalog_properties") or {}
        line = str(props.get(JOB_LINE_PROPERTY) or "")
        return ctx.get("sql"), props.get(JOB_FILE_PROPERTY), int(line) if line.isdigit() else None
    if kind == "openlineage":
        facets = (payload.get("job") or {}).get("facets") or {}
        return (facets.get("sql") or {}).get("query"), None, None
    return (payload.get("metadata") or {}).get("sql"), None, None


def job_history(conn: Connection, name: str | int, as_of: int | None = None) -> JobHistory:
    """A job's runs grouped into versions, oldest first (runs up to ``as_of`` when given)."""
    node = job_node(conn, name)
    row = conn.execute(select(jobs).where(_J.job_id == node.id)).first()
    q = select(_EV.id, _EV.event_id, _EV.kind, _EV.event_us, _EV.fingerprint).where(_EV.job_id == node.id)
    if as_of is not None:
        q = q.where(_EV.event_us <= as_of)
    runs = conn.execute(q.order_by(_EV.event_us, _EV.id)).all()
    missing = [r.id for r in runs if r.fingerprint is None]  # recorded before revision 0003
    fingerprints = {r.id: r.fingerprint for r in runs}
    if missing:
        for r in conn.execute(select(_EV.id, _EV.kind, _EV.payload, _EV.payload_zlib).where(_EV.id.in_(missing))):
            sql = _sql_and_source(r.kind, _payload(r))[0]
            fingerprints[r.id] = sql_fingerprint(sql) if sql else None
    ends = _closings(conn, node.id)
    groups: list[list[Any]] = []
    gaps: list[int | None] = []  # when each version ended before the next one's first run, if it did
    group_fp: list[str | None] = []  # a group's statement: a run without one (a producer's run state) joins
    for r in runs:
        fp = fingerprints[r.id]
        prev = groups[-1][-1] if groups else None
        gap = _closed_between(ends, prev.event_us, r.event_us) if prev is not None else None
        if groups and gap is None and (fp is None or group_fp[-1] in (fp, None)):
            groups[-1].append(r)
            group_fp[-1] = group_fp[-1] or fp
        else:
            if groups:
                gaps.append(gap)
            groups.append([r])
            group_fp.append(fp)
    stated = [[r for r in g if fingerprints[r.id] is not None] or g for g in groups]
    latest_ids = [g[-1].id for g in stated]
    docs = {
        r.id: _sql_and_source(r.kind, _payload(r))
        for r in conn.execute(
            select(_EV.id, _EV.kind, _EV.payload, _EV.payload_zlib).where(_EV.id.in_(latest_ids or [-1]))
        )
    }
    closed = row.closed_us if row is not None else None
    if closed is not None and as_of is not None and closed > as_of:
        closed = None
    versions = []
    for k, g in enumerate(groups):
        last = stated[k][-1]  # the latest run that states the version's statement
        end = (gaps[k] or groups[k + 1][0].event_us) if k + 1 < len(groups) else closed
        sql, file, line = docs.get(last.id, (None, None, None))
        versions.append(
            JobVersion(
                version=k + 1,
                fingerprint=fingerprints[last.id],
                valid_from=from_us(g[0].event_us),
                valid_to=from_us(end),
                runs=len(g),
                last_seen=from_us(g[-1].event_us),
                sql=sql,
                file=file,
                line=line,
                event_id=last.event_id,
            )
        )
    return JobHistory(
        job=node,
        name=display_name(node.name),
        first_seen=from_us(runs[0].event_us) if runs else None,
        last_seen=from_us(runs[-1].event_us) if runs else None,
        runs=len(runs),
        file=row.file if row is not None else None,
        line=row.line if row is not None else None,
        closed=from_us(closed),
        versions=versions,
    )


def _closings(conn: Connection, job: int) -> list[int]:
    """The times at which edges of ``job`` were closed, ascending."""
    q = select(edges.c.valid_to).distinct().where(edges.c.job_id == job, edges.c.valid_to != OPEN)
    return sorted(conn.execute(q).scalars())


def _closed_between(ends: list[int], after: int, before: int) -> int | None:
    """The latest closing strictly between two runs: the job was closed (its statement left its
    file, ``db expire``) and a later run reopened it, a new version even with the same statement.

    >>> _closed_between([5, 9, 20], 4, 10), _closed_between([5, 10], 5, 10)
    (9, None)
    """
    k = bisect.bisect_left(ends, before) - 1
    return ends[k] if k >= 0 and ends[k] > after else None


def _close(conn: Connection, ids: list[int], at: int) -> ClosedJobs:
    closed = 0
    infos = fetch_nodes(conn, ids)
    names = []
    for job_id in ids:
        res = delete_lineage(conn, job=job_id, at=at, mark_events=False)
        closed += res.edges_closed
        names.append(display_name(infos[job_id].name))
    if ids:
        conn.execute(update(jobs).where(_J.job_id.in_(ids)).values(closed_us=at))
    return ClosedJobs(sorted(names), closed)


def _open_jobs(conn: Connection, ids: Collection[int]) -> list[int]:
    """Those of ``ids`` with an edge still open."""
    if not ids:
        return []
    q = select(edges.c.job_id).distinct().where(edges.c.job_id.in_(sorted(ids)), edges.c.valid_to == OPEN)
    return sorted(conn.execute(q).scalars())


def close_jobs(conn: Connection, file: str, keep: Container[str], at: int | None = None) -> ClosedJobs:
    """Close (at ``at``, default now) the jobs whose latest statement came from project file ``file``
    and whose name is not in ``keep`` (the names of the statements the file has now): a statement
    removed from a file stops being current lineage; ``as_of`` before ``at`` still shows it."""
    q = select(_J.job_id, nodes.c.name).join(nodes, nodes.c.id == _J.job_id).where(_J.file == file)
    gone = [j for j, n in conn.execute(q) if not _kept(n, keep)]
    return _close(conn, _open_jobs(conn, gone), at if at is not None else now_us())


def _kept(node_name: str, keep: Container[str]) -> bool:
    """Whether a job node's name is one of ``keep`` (a name, or a name given in the SQL: ``job:`` + it).

    >>> _kept("job:load_b", {"load_b"}), _kept("a.sql#2", {"a.sql#2"}), _kept("a.sql#3", {"a.sql#2"})
    (True, True, False)
    """
    if node_name in keep:
        return True
    return node_name.startswith(NAMED_PREFIX) and node_name[len(NAMED_PREFIX) :] in keep


def prune_files(conn: Connection, files: Collection[str], under: str = "", at: int | None = None) -> ClosedJobs:
    """Close the jobs of project files (below the relative directory ``under``; "" for all) that are
    not among ``files``: a file removed from the project (``headwater ingest --prune``)."""
    q = select(_J.job_id, _J.file).where(_J.file.is_not(None))
    prefix = under.rstrip("/") + "/" if under else ""
    gone = [j for j, f in conn.execute(q) if f not in files and f.startswith(prefix)]
    return _close(conn, _open_jobs(conn, gone), at if at is not None else now_us())


def _unfiled_before(conn: Connection, before: int) -> list[int]:
    q = select(_J.job_id).where(_J.file.is_(None), _J.last_seen_us < before)
    return sorted(conn.execute(q).scalars())


def hidden_jobs(conn: Connection, seen_since: int | None) -> set[int]:
    """Jobs without a project file last seen before ``seen_since`` (µs): what ``--seen-since`` hides."""
    return set() if seen_since is None else set(_unfiled_before(conn, seen_since))


def expire_jobs(conn: Connection, not_seen_since: int, at: int | None = None) -> ClosedJobs:
    """Close (at ``at``, default now) the jobs without a project file not seen since ``not_seen_since``."""
    return _close(conn, _open_jobs(conn, _unfiled_before(conn, not_seen_since)), at if at is not None else now_us())


_DURATION = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.I)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(value: str | datetime | int | None, now: int | None = None) -> int | None:
    """A time given as a duration back from now (``30d``, ``12h``, ``2w``, ``90m``, ``45s``) or as an
    ISO 8601 time (naive = UTC), in µs.

    >>> parse_since("1d", now=86_400_000_000 * 2) == 86_400_000_000
    True
    >>> parse_since("2024-05-01T00:00:00Z")
    1714521600000000
    """
    if value is None or isinstance(value, int | datetime):
        return to_us(value)
    m = _DURATION.match(value)
    if m:
        delta = timedelta(**{_UNITS[m.group(2).lower()]: int(m.group(1))})
        return (now if now is not None else now_us()) - delta // timedelta(microseconds=1)
    try:
        return to_us(value)
    except ValueError:
        raise InvalidInput("seen_since", f"{value!r}: give a duration (30d, 12h, 2w) or an ISO 8601 time") from None


__all__ = [
    "ClosedJobs",
    "JobHistory",
    "JobVersion",
    "close_jobs",
    "expire_jobs",
    "hidden_jobs",
    "job_history",
    "job_node",
    "parse_since",
    "prune_files",
]
