"""``headwater ingest``, ``headwater query …``, ``headwater serve`` and ``headwater db upgrade``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from headwater.model import EventFormatError, LineageInfo, event_from_dict
from headwater.service import schemas as m
from headwater.store import LineageStore, NodeNotFound, StoreError, open_store

StoreOpt = Annotated[
    str | None,
    typer.Option("--store", help="Store URL or SQLite path (default: $HEADWATER_STORE or ~/.headwater/lineage.db)."),
]
EVENT_SUFFIXES = {".jsonl", ".ndjson", ".json"}


def _event_suffix(path: Path) -> str | None:
    """The event-file suffix of ``path`` (``.jsonl``, ``.ndjson``, ``.json``), looking past a rotation
    number (``lineage.jsonl.1``, as the jsonl plugin and logrotate name rotated files); None for SQL.

    >>> [_event_suffix(Path(n)) for n in ("lineage.jsonl.2", "E.JSON", "etl.sql", "nightly.1", "x.json.gz")]
    ['.jsonl', '.json', None, None, None]
    """
    name = path.name.lower()
    stem, dot, last = name.rpartition(".")
    if dot and last.isascii() and last.isdigit():
        name = stem
    suffix = Path(name).suffix
    return suffix if suffix in EVENT_SUFFIXES else None


class Fmt(StrEnum):
    table = "table"
    json = "json"


FmtOpt = Annotated[Fmt, typer.Option("--format", help="table or json")]
AsOfOpt = Annotated[str | None, typer.Option("--as-of", help="Answer as of this ISO 8601 time.")]
DepthOpt = Annotated[int, typer.Option("--depth", min=0, help="Levels (dataset → job → dataset is one).")]
LimitOpt = Annotated[int, typer.Option("--limit", min=1, help="Rows to show.")]


@dataclass
class IngestTotals:
    files: int = 0
    statements: int = 0
    events: int = 0
    recorded: int = 0
    duplicates: int = 0
    skipped: int = 0
    failed: int = 0
    problems: list[str] = field(default_factory=list)


def _read_events(path: Path, totals: IngestTotals) -> list[LineageInfo]:
    text = path.read_text(encoding="utf-8-sig")
    stripped = text.strip()
    items: list[tuple[int, Any]] = []
    if _event_suffix(path) == ".json" and stripped.startswith("["):
        items = list(enumerate(json.loads(stripped), 1))
    else:
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    items.append((n, json.loads(line)))
                except json.JSONDecodeError as exc:
                    totals.failed += 1
                    totals.problems.append(f"{path}:{n}: not JSON ({exc.msg})")
    out = []
    for n, item in items:
        try:
            out.append(event_from_dict(item))
        except EventFormatError as exc:
            totals.failed += 1
            totals.problems.append(f"{path}:{n}: {exc}")
    return out


def _extract(
    path: Path, dialect: str, database: str | None, schema: str | None, totals: IngestTotals
) -> list[LineageInfo]:
    from headwater.extract import extract_script

    catalog = None
    if schema:
        from headwater.catalog import open_catalog

        catalog = open_catalog(schema, None, dialect)
    result = extract_script(path.read_text(encoding="utf-8-sig"), dialect=dialect, catalog=catalog, database=database)
    for s in result.statements:
        totals.statements += 1
        if s.failed:
            totals.failed += 1
            msg = s.error.message if s.error else "failed"
            totals.problems.append(f"{path}:{s.line}: {msg}")
        elif not s.events and s.skip_reason:
            totals.skipped += 1
    return list(result.events)


def ingest(
    files: Annotated[
        list[Path],
        typer.Argument(help="SQL scripts, or event JSONL files (.jsonl/.ndjson/.json, also rotated: lineage.jsonl.1)."),
    ],
    store: StoreOpt = None,
    dialect: Annotated[str, typer.Option(help="SQL dialect of the scripts.")] = "doris",
    database: Annotated[str | None, typer.Option(help="Default database of the scripts.")] = None,
    schema: Annotated[str | None, typer.Option(help="Schema file for the extractor's catalog.")] = None,
    batch: Annotated[int, typer.Option(min=1, help="Events per transaction.")] = 500,
) -> None:
    """Record lineage from SQL scripts (through the extractor) and event files into the store."""
    console = Console()
    lineage = open_store(store)
    totals = IngestTotals()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("ingesting", total=len(files))
        for path in files:
            progress.update(task, description=f"ingesting {path.name}")
            totals.files += 1
            try:
                if _event_suffix(path):
                    events = _read_events(path, totals)
                else:
                    events = _extract(path, dialect, database, schema, totals)
            except (OSError, ValueError) as exc:
                totals.failed += 1
                totals.problems.append(f"{path}: {exc}")
                events = []
            totals.events += len(events)
            for start in range(0, len(events), batch):
                res = lineage.record_batch(events[start : start + batch])
                totals.recorded += res.recorded
                totals.duplicates += res.duplicates
            progress.advance(task)
    table = Table(title="ingest", show_header=True)
    for col in ("files", "statements", "events", "recorded", "duplicates", "skipped", "failed"):
        table.add_column(col, justify="right")
    table.add_row(
        *(
            str(getattr(totals, c))
            for c in ("files", "statements", "events", "recorded", "duplicates", "skipped", "failed")
        )
    )
    console.print(table)
    for p in totals.problems[:20]:
        console.print(f"[yellow]{p}[/]", soft_wrap=True)
    if totals.failed:
        raise typer.Exit(1)


# ---------------------------------------------------------------- query

query_app = typer.Typer(name="query", help="Query the lineage store.", no_args_is_help=True)


def _emit(console: Console, fmt: Fmt, model: type[BaseModel], value: Any, render: Any) -> None:
    data = model.model_validate(value)
    if fmt == Fmt.json:
        console.print_json(data.model_dump_json())
    else:
        render(data)


def _run(fn: Any) -> Any:
    try:
        return fn()
    except NodeNotFound as exc:
        Console(stderr=True).print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    except StoreError as exc:
        Console(stderr=True).print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None


def _graph_table(title: str, g: m.LineageGraph, console: Console) -> None:
    t = Table(title=f"{title}: {g.root.name}")
    for c in ("depth", "type"):
        t.add_column(c)
    t.add_column("name", overflow="fold")
    for n in g.nodes:
        t.add_row(str(n.depth), n.type, n.name)
    console.print(t)
    more = f" (showing {len(g.nodes)})" if len(g.nodes) < g.total_nodes else ""
    console.print(
        f"{g.total_nodes} nodes, {g.total_edges} edges{more}" + (" [yellow]truncated[/]" if g.truncated else "")
    )


def _direction(name: str) -> Any:
    def cmd(
        node: Annotated[str, typer.Argument(help="Dataset, field, job…: full or short name, or #id.")],
        store: StoreOpt = None,
        depth: DepthOpt = 3,
        as_of: AsOfOpt = None,
        types: Annotated[list[str] | None, typer.Option("--type", help="Keep only these node types.")] = None,
        limit: LimitOpt = 200,
        fmt: FmtOpt = Fmt.table,
    ) -> None:
        s = open_store(store)
        g = _run(lambda: s.get_lineage(node, name.upper(), depth, as_of, types, limit))
        console = Console()
        _emit(console, fmt, m.LineageGraph, g, lambda d: _graph_table(name, d, console))

    cmd.__doc__ = f"{name.capitalize()} lineage of a node."
    return cmd


def _paths_table(title: str, entries: list[m.FieldPath], console: Console) -> None:
    t = Table(title=title)
    t.add_column("field", overflow="fold")
    for c in ("depth", "dependency", "path"):
        t.add_column(c)
    for e in entries:
        t.add_row(e.field.name, str(e.depth), e.dependency, " → ".join(e.types) or "(itself)")
    console.print(t)


def origin(
    field: Annotated[str, typer.Argument(help="table.column (or a longer name).")],
    store: StoreOpt = None,
    indirect: Annotated[bool, typer.Option("--indirect", help="Follow INDIRECT mappings too.")] = False,
    as_of: AsOfOpt = None,
    limit: LimitOpt = 200,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """The ultimate source fields of a field, with the types along each path."""
    s = open_store(store)
    o = _run(lambda: s.get_field_origin(field, indirect, as_of, limit=limit))
    console = Console()

    def render(d: m.FieldOrigin) -> None:
        _paths_table(f"origin of {d.field.name}", d.origins, console)
        if not indirect and [e.field.id for e in d.origins] == [d.field.id]:
            console.print("no DIRECT inputs: the value is constant or system-made; try --indirect")

    _emit(console, fmt, m.FieldOrigin, o, render)


def impact(
    field: Annotated[str, typer.Argument(help="table.column (or a longer name).")],
    store: StoreOpt = None,
    as_of: AsOfOpt = None,
    limit: LimitOpt = 200,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Every field downstream of a field, DIRECT or INDIRECT."""
    s = open_store(store)
    i = _run(lambda: s.get_field_impact(field, as_of, limit=limit))
    console = Console()

    def render(d: m.FieldImpact) -> None:
        _paths_table(f"impact of {d.field.name}", d.impacted, console)
        console.print(f"{d.total} fields: {d.direct_count} DIRECT, {d.indirect_count} INDIRECT")

    _emit(console, fmt, m.FieldImpact, i, render)


def trace(
    node: Annotated[str, typer.Argument(help="Any node.")],
    store: StoreOpt = None,
    depth: Annotated[int | None, typer.Option("--depth", min=0)] = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """The roots upstream of a node and their source systems."""
    s = open_store(store)
    r = _run(lambda: s.trace_origin(node, depth, as_of))
    console = Console()

    def render(d: m.TraceResult) -> None:
        t = Table(title=f"origins of {d.root.name}")
        t.add_column("origin", overflow="fold")
        for c in ("type", "system", "depth"):
            t.add_column(c)
        for o in d.origins:
            t.add_row(o.origin.name, o.origin.type, o.system.name if o.system else "", str(o.depth))
        console.print(t)
        console.print(f"source systems: {', '.join(x.name for x in d.source_systems) or '(none)'}")

    _emit(console, fmt, m.TraceResult, r, render)


def analyze(
    target: Annotated[str, typer.Argument(help="Dataset or field that changes.")],
    store: StoreOpt = None,
    change: Annotated[str, typer.Option(help="SCHEMA_CHANGE, DATA_UPDATE or DELETE.")] = "SCHEMA_CHANGE",
    operation: Annotated[str | None, typer.Option(help="DROP_COLUMN, TYPE_CHANGE, ADD_COLUMN, METADATA…")] = None,
    column: Annotated[list[str] | None, typer.Option("--column", help="Changed columns of a dataset.")] = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Impact analysis: affected nodes by type with severity, overall severity and risk."""
    s = open_store(store)
    details: dict[str, Any] = {}
    if operation:
        details["operation"] = operation
    if column:
        details["columns"] = column
    a = _run(lambda: s.analyze_impact(target, change, details, as_of))
    console = Console()

    def render(d: m.ImpactAnalysis) -> None:
        t = Table(title=f"{d.change_type} of {d.target.name}")
        for c in ("type", "count", "severity"):
            t.add_column(c)
        t.add_column("sample", overflow="fold")
        for g in d.groups:
            t.add_row(g.type, str(g.count), g.severity, "\n".join(g.sample_node_ids))
        console.print(t)
        console.print(f"{d.total_affected_count} affected; severity {d.overall_severity}; risk {d.risk_level}")

    _emit(console, fmt, m.ImpactAnalysis, a, render)


def summary(
    node: Annotated[str, typer.Argument(help="Any node.")],
    store: StoreOpt = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Counts around one node."""
    s = open_store(store)
    r = _run(lambda: s.get_lineage_summary(node, as_of))
    console = Console()

    def render(d: m.LineageSummary) -> None:
        t = Table(title=f"summary of {d.node.name}", show_header=False)
        for k in ("upstream_count", "downstream_count", "field_count", "pipeline_count", "last_updated"):
            t.add_row(k, str(getattr(d, k)))
        t.add_row("node types", ", ".join(f"{k}={v}" for k, v in d.node_type_counts.items()))
        console.print(t)

    _emit(console, fmt, m.LineageSummary, r, render)


def stats(store: StoreOpt = None, as_of: AsOfOpt = None, fmt: FmtOpt = Fmt.table) -> None:
    """Nodes, edges and field mappings by type; events recorded."""
    s = open_store(store)
    r = s.get_lineage_stats(as_of)
    console = Console()

    def render(d: m.LineageStats) -> None:
        t = Table(title="lineage store")
        t.add_column("kind")
        t.add_column("type")
        t.add_column("count", justify="right")
        for k, v in d.nodes_by_type.items():
            t.add_row("node", k, str(v))
        for k, v in d.edges_by_type.items():
            t.add_row("edge", k, str(v))
        t.add_row("events", "recorded", str(d.events_recorded))
        console.print(t)

    _emit(console, fmt, m.LineageStats, r, render)


# ---------------------------------------------------------------- serve, db


def serve(
    store: StoreOpt = None,
    host: Annotated[str, typer.Option(help="Bind address (non-loopback needs tokens).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8077,
    tokens_file: Annotated[Path | None, typer.Option(help="Tokens file: 'token:read,write' per line.")] = None,
) -> None:
    """Serve the REST API (and the explorer) over the store."""
    from headwater.service import UnsafeBind
    from headwater.service.auth import load_tokens
    from headwater.service.server import serve as run

    try:
        run(store, host, port, load_tokens(tokens_file))
    except (UnsafeBind, ValueError) as exc:
        Console(stderr=True).print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None


db_app = typer.Typer(name="db", help="Store schema management.", no_args_is_help=True)


@db_app.command("upgrade")
def db_upgrade(
    store: StoreOpt = None,
    revision: Annotated[str, typer.Option(help="Target revision.")] = "head",
) -> None:
    """Create or upgrade the store's tables (Alembic)."""
    from headwater.store.engine import default_url, make_engine
    from headwater.store.migrate import current_revision, upgrade

    engine = make_engine(store or default_url())
    before = current_revision(engine)
    after = upgrade(engine, revision)
    Console().print(f"store schema: {before or '(empty)'} → {after}")


@db_app.command("current")
def db_current(store: StoreOpt = None) -> None:
    """Print the store's schema revision."""
    from headwater.store.engine import default_url, make_engine
    from headwater.store.migrate import current_revision, head_revision

    rev = current_revision(make_engine(store or default_url()))
    Console().print(f"{rev or '(empty)'} (head: {head_revision()})")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command()(ingest)
    for name in ("upstream", "downstream"):
        query_app.command(name)(_direction(name))
    query_app.command()(origin)
    query_app.command()(impact)
    query_app.command()(trace)
    query_app.command()(analyze)
    query_app.command()(summary)
    query_app.command()(stats)
    app.add_typer(query_app)
    app.command()(serve)
    app.add_typer(db_app)


__all__ = ["LineageStore", "register"]
