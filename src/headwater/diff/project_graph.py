"""A version of a project's SQL as a graph: extracted as ``headwater ingest`` extracts it (one
``ProjectContext`` across the files, in the order of what they write and read), recorded in an
in-memory store, read back as a ``Snapshot``.

Statements that stop extracting (a parse error, a column or table they read that is not there) are
``Problem``s: on the new side, the change broke them.

>>> files = {"a.sql": "CREATE TABLE m.t AS SELECT x FROM s.r", "b.sql": "INSERT INTO r.u SELECT x FROM m.t"}
>>> graph = extract_project(files)
>>> sorted(graph.snapshot.jobs), graph.problems
(['a.sql#1', 'b.sql#1'], [])
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field

from headwater.catalog import Catalog
from headwater.diff.changes import Problem
from headwater.diff.snapshot import Snapshot, read_snapshot
from headwater.extract.split import split_script
from headwater.model import LineageInfo, Severity, TableRef
from headwater.project import ProjectContext, StatementOutcome, order_files
from headwater.store import LineageStore, open_store

PROBLEM_CODES = frozenset({"unknown_column", "unknown_table", "unknown_qualifier", "column_not_in_catalog"})
"""Diagnostics that mean a statement reads something that is not there (a WARNING or an ERROR)."""


@dataclass(frozen=True, slots=True)
class ProjectOptions:
    """The project context, as ``headwater ingest`` takes it (``--dialect``, ``--default-db``, …)."""

    dialect: str = "doris"
    database: str | None = None
    default_catalog: str = "internal"
    statements: str = "doris"
    catalog: Catalog | None = None
    recorded_views: Container[TableRef] = ()


@dataclass(slots=True)
class ProjectGraph:
    store: LineageStore
    """The in-memory store the project's events are recorded in."""
    snapshot: Snapshot
    problems: list[Problem] = field(default_factory=list)
    cycle: list[str] | None = None


def statement_problems(relpath: str, outcome: StatementOutcome) -> list[Problem]:
    """What makes a statement of the new state a broken one: it failed, or reads what is not there."""
    s = outcome.result
    if s.failed:
        d = s.error
        return [
            Problem(
                relpath,
                s.line,
                d.column if d else None,
                outcome.job,
                d.code if d else "failed",
                d.message if d else "the statement failed",
            )
        ]
    out = []
    for e in outcome.events:
        for d in e.diagnostics:
            if d.code in PROBLEM_CODES and d.severity is not Severity.INFO:
                out.append(Problem(relpath, d.line or s.line, d.column, outcome.job, d.code, d.message))
    return out


def extract_project(files: Mapping[str, str], options: ProjectOptions | None = None) -> ProjectGraph:
    """Extract ``files`` (path relative to the project root → SQL text) as one project."""
    opts = options or ProjectOptions()
    pieces = {rel: split_script(text, opts.dialect) for rel, text in sorted(files.items())}
    order, cycle = list(pieces), None
    if len(pieces) > 1:
        ordered = order_files(pieces, opts.dialect, opts.database, opts.default_catalog)
        order, cycle = ordered.order, ordered.cycle
    context = ProjectContext(
        opts.catalog,
        dialect=opts.dialect,
        database=opts.database,
        default_catalog=opts.default_catalog,
        statements=opts.statements,
        recorded_views=opts.recorded_views,
    )
    events: list[LineageInfo] = []
    problems: list[Problem] = []
    for rel in order:
        try:
            done = context.extract(rel, files[rel], pieces[rel])
        except Exception as exc:  # an extractor bug: name it, go on with the next file (as ingest does)
            problems.append(Problem(rel, None, None, None, "failed", f"{type(exc).__name__}: {exc}"))
            continue
        for outcome in done.statements:
            events.extend(outcome.events)
            problems.extend(statement_problems(rel, outcome))
    return record_graph(events, problems, cycle)


def record_graph(events: list[LineageInfo], problems: list[Problem], cycle: list[str] | None = None) -> ProjectGraph:
    """``events`` recorded in an in-memory store and read back as a graph (the diff's one side)."""
    store = open_store("sqlite://")
    store.record_batch(events)
    with store.engine.connect() as conn:
        snapshot = read_snapshot(conn)
    return ProjectGraph(store, snapshot, problems, cycle)
