"""``headwater query job NAME`` (a job's versions) and ``headwater db expire`` (ageing query-log jobs)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from headwater.cli.display import job_label, line
from headwater.cli.fit import SqlText, fit
from headwater.cli.store_cmd import (
    AsOfOpt,
    Fmt,
    FmtOpt,
    StoreOpt,
    _console,
    _emit,
    _run,
    check_seen_since,
    parse_as_of,
)
from headwater.cli.stores import open_cli_store
from headwater.service import schemas as m


def job(
    name: Annotated[str, typer.Argument(help="The job's name (reports/top.sql#2, a -- name: …), sql:…, or #id.")],
    store: StoreOpt = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """A job's versions: each with its time, runs, SQL and source file:line."""
    when = parse_as_of(as_of)
    s = open_cli_store(store)
    h = _run(lambda: s.job_history(name, when))
    console = _console()

    def render(d: m.JobHistory) -> None:
        where = f" ({d.file}:{d.line})" if d.file else ""
        state = f"closed {d.closed:%Y-%m-%d %H:%M:%S}" if d.closed else "current"
        console.print(line("job ", job_label(d.name), where, f": {d.runs} runs, {len(d.versions)} versions, {state}"))
        t = Table()
        for c in ("version", "from", "until", "runs", "source", "sql"):
            t.add_column(c)
        rows = [
            (
                str(v.version),
                f"{v.valid_from:%Y-%m-%d %H:%M:%S}" if v.valid_from else "",
                f"{v.valid_to:%Y-%m-%d %H:%M:%S}" if v.valid_to else "(current)",
                str(v.runs),
                f"{v.file}:{v.line}" if v.file else "",
                SqlText(v.sql or ""),
            )
            for v in d.versions
        ]
        console.print(fit(console, t, rows))

    _emit(console, fmt, m.JobHistory, h, render)


def expire(
    not_seen_for: Annotated[
        str, typer.Option("--not-seen-for", help="Close jobs not seen for this long (90d, 12w) or since a time.")
    ],
    store: StoreOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Close the lineage of jobs known only from query logs (no project file) not seen for a while."""
    check_seen_since(not_seen_for)
    s = open_cli_store(store)
    r = _run(lambda: s.expire_jobs(not_seen_for))
    console = _console()

    def render(d: m.ClosedJobs) -> None:
        console.print(f"closed {len(d.jobs)} jobs ({d.edges_closed} edges)")
        for n in d.jobs[:20]:
            console.print(line("  ", n))
        if len(d.jobs) > 20:
            console.print(f"  … and {len(d.jobs) - 20} more")

    _emit(console, fmt, m.ClosedJobs, r, render)


def register(query_app: typer.Typer, db_app: typer.Typer) -> None:
    query_app.command()(job)
    db_app.command()(expire)
