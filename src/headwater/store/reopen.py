"""A project statement's event that comes back after its job moved on is a new run, not a replay.

A project statement's event id comes from its file, ordinal and text (``headwater.project``), so a
statement deleted from a file and later restored with the same text, or edited and edited back,
arrives with an id the store already has. Skipped as a replay, it would leave its job closed, or on
the other text's lineage. So a duplicate id of an event with a project file is recorded again, under
a derived id (``<event id>@<event time>``), when its event is newer than what its job did since: the
job was closed after that (``hw_jobs.closed_us``), its latest run is a different statement (another
fingerprint), or its latest run is this statement with a worse status (PARTIAL, now COMPLETE: the
statement binds better than when it was first recorded). A replay of an older event changes
nothing, nor does any duplicate without a project file (query logs and producers have one id per
run: theirs are replays).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import Connection, func, select

from headwater.store.facts import Facts
from headwater.store.schema import events, jobs
from headwater.store.write import chunks

_ID_ROOM = events.c.event_id.type.length - 21  # "@" and the time (µs, up to 20 digits)
_E, _J = events.c, jobs.c
_RANK = {"UNAVAILABLE": 1, "PARTIAL": 2, "COMPLETE": 3}


def reopen_id(event_id: str, event_us: int) -> str:
    """The id a returning event is recorded under.

    >>> reopen_id("3f2a", 1700000000000000)
    '3f2a@1700000000000000'
    """
    return f"{event_id[:_ID_ROOM]}@{event_us}"


def same_statement(event_id: str, recorded: str) -> bool:
    """Whether ``recorded`` is ``event_id`` or one of its returns (``reopen_id``)."""
    return recorded == event_id or recorded.startswith(event_id[:_ID_ROOM] + "@")


def returning(conn: Connection, duplicates: Sequence[Facts]) -> list[Facts]:
    """Those of ``duplicates`` (events whose id is recorded) that come back to a job that moved on,
    each under its ``reopen_id``; the others are replays."""
    with_job = [f for f in duplicates if f.job and f.file is not None]  # project statements
    if not with_job:
        return []
    recorded: dict[str, tuple[int | None, int | None]] = {}
    for part in chunks([f.event_id for f in with_job]):
        q = select(_E.event_id, _E.job_id, _J.closed_us).outerjoin(jobs, _J.job_id == _E.job_id)
        recorded.update({eid: (job, closed) for eid, job, closed in conn.execute(q.where(_E.event_id.in_(part)))})
    job_ids = sorted({job for job, _ in recorded.values() if job is not None})
    latest: dict[int, tuple[str, int, str | None, str | None]] = {}
    for part in chunks(job_ids):
        newest = select(_E.job_id, func.max(_E.event_us).label("t")).where(_E.job_id.in_(part)).group_by(_E.job_id)
        sub = newest.subquery()
        q = select(_E.job_id, _E.event_id, _E.event_us, _E.status, _E.fingerprint).join(
            sub, (sub.c.job_id == _E.job_id) & (sub.c.t == _E.event_us)
        )
        for job, eid, t, status, fingerprint in conn.execute(q):
            if job not in latest or eid > latest[job][0]:
                latest[job] = (eid, t, status, fingerprint)
    out = []
    for f in with_job:
        job, closed = recorded.get(f.event_id, (None, None))
        if job is None or job not in latest:
            continue
        last_id, last_us, last_status, last_fingerprint = latest[job]
        newer = f.event_us > last_us
        moved_on = newer and not same_statement(f.event_id, last_id) and f.fingerprint != last_fingerprint
        # the same statement bound better than when it was recorded (a file ingested before the files
        # it reads: PARTIAL then, COMPLETE now that the store knows their tables)
        improved = newer and _RANK.get(f.status or "", 0) > _RANK.get(last_status or "", 0)
        if (closed is not None and f.event_us > closed) or moved_on or improved:
            again = reopen_id(f.event_id, f.event_us)
            if last_id != again:
                out.append(replace(f, event_id=again))
    return out
