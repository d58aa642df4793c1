"""``headwater query …``, ``headwater serve`` and ``headwater db upgrade|current``."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from pydantic import BaseModel, TypeAdapter, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from headwater.service import schemas as m
from headwater.store import ChangeType, LineageStore, NodeType, StoreError, open_store
from headwater.store.impact import DESTRUCTIVE_OPERATIONS, METADATA_OPERATIONS

StoreOpt = Annotated[
    str | None,
    typer.Option("--store", help="Store URL or SQLite path (default: $HEADWATER_STORE or ~/.headwater/lineage.db)."),
]


class Fmt(StrEnum):
    table = "table"
    json = "json"


FmtOpt = Annotated[Fmt, typer.Option("--format", help="table or json")]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Answer as of this time: ISO 8601 (naive = UTC), or seconds or milliseconds since the epoch.",
    ),
]
DepthOpt = Annotated[int, typer.Option("--depth", min=0, help="Levels (dataset → job → dataset is one).")]
LimitOpt = Annotated[int, typer.Option("--limit", min=1, help="Rows to show.")]


# ---------------------------------------------------------------- query

query_app = typer.Typer(name="query", help="Query the lineage store.", no_args_is_help=True)


def _emit(console: Console, fmt: Fmt, model: type[BaseModel], value: Any, render: Any) -> None:
    data = model.model_validate(value)
    if fmt == Fmt.json:
        console.print_json(data.model_dump_json())
    else:
        render(data)


def _fail(message: str) -> NoReturn:
    """``error: …`` on standard error, exit 2 (a usage error, as for a node that does not exist)."""
    Console(stderr=True).print("[red]error:[/]", escape(message), soft_wrap=True)
    raise typer.Exit(2)


def _run(fn: Any) -> Any:
    try:
        return fn()
    except StoreError as exc:  # NodeNotFound, AmbiguousNode, InvalidInput
        _fail(str(exc))


_DATETIME = TypeAdapter(datetime)


def parse_as_of(value: str | None) -> datetime | None:
    """``--as-of`` read as the API reads ``as_of`` (the same pydantic parser): ISO 8601 (a naive time
    is UTC), or seconds or milliseconds since the epoch."""
    if value is None:
        return None
    try:
        return _DATETIME.validate_python(value)
    except ValidationError as exc:
        _fail(
            f"--as-of: {value!r}: {exc.errors()[0]['msg']} "
            "(give an ISO 8601 time, or seconds or milliseconds since the epoch)"
        )


def parse_node_types(values: list[str] | None) -> list[str] | None:
    """``--type`` values as node type names, in any case; an unknown name is an error."""
    out = []
    for v in values or ():
        name = v.strip().upper()
        if name not in NodeType.__members__:
            _fail(f"--type: unknown node type {v!r} (one of {', '.join(NodeType.__members__)})")
        out.append(NodeType[name].value)
    return out or None


def parse_change(change: str, operation: str | None) -> tuple[ChangeType, str | None]:
    try:
        change_type = ChangeType(change.strip().upper())
    except ValueError:
        _fail(f"--change: unknown change type {change!r} (one of {', '.join(ChangeType.__members__)})")
    if operation is None:
        return change_type, None
    op = operation.strip().upper()
    if op not in DESTRUCTIVE_OPERATIONS and op not in METADATA_OPERATIONS:
        _fail(
            f"--operation: unknown operation {operation!r} (one of {', '.join(sorted(DESTRUCTIVE_OPERATIONS))}; "
            f"metadata only: {', '.join(sorted(METADATA_OPERATIONS))})"
        )
    return change_type, op


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
        types: Annotated[
            list[str] | None,
            typer.Option("--type", help="Keep only these node types (DATASET, FIELD, JOB…; repeat the option)."),
        ] = None,
        limit: LimitOpt = 200,
        fmt: FmtOpt = Fmt.table,
    ) -> None:
        when, node_types = parse_as_of(as_of), parse_node_types(types)
        s = open_store(store)
        g = _run(lambda: s.get_lineage(node, name.upper(), depth, when, node_types, limit))
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


class LevelName(StrEnum):
    direct = "direct"
    field = "field"
    all = "all"


LevelOpt = Annotated[
    LevelName | None,
    typer.Option(
        "--level",
        help="Which mappings to follow: direct (value flows), field (direct plus the field's own CONDITIONAL and "
        "WINDOW inputs; the default), all (plus the statement's JOIN, FILTER, GROUP BY and ORDER BY columns).",
    ),
]


def origin(
    field: Annotated[str, typer.Argument(help="table.column (or a longer name).")],
    store: StoreOpt = None,
    level: LevelOpt = None,
    indirect: Annotated[bool, typer.Option("--indirect", help="The same as --level all.", hidden=True)] = False,
    as_of: AsOfOpt = None,
    limit: LimitOpt = 200,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """The ultimate source fields of a field, each labelled by its strongest dependency (DIRECT beats INDIRECT)."""
    when = parse_as_of(as_of)
    if indirect and level not in (None, LevelName.all):
        _fail(f"--indirect is --level all; it cannot be combined with --level {level.value}")
    chosen = LevelName.all if indirect else level or LevelName.field
    s = open_store(store)
    o = _run(lambda: s.get_field_origin(field, as_of=when, limit=limit, level=chosen.value))
    console = Console()

    def render(d: m.FieldOrigin) -> None:
        _paths_table(f"origin of {d.field.name} (level {d.level})", d.origins, console)
        if chosen != LevelName.all and [e.field.id for e in d.origins] == [d.field.id]:
            console.print(f"no inputs at level {chosen.value}: the value is constant or system-made; try --level all")

    _emit(console, fmt, m.FieldOrigin, o, render)


def impact(
    field: Annotated[str, typer.Argument(help="table.column (or a longer name).")],
    store: StoreOpt = None,
    level: LevelOpt = None,
    as_of: AsOfOpt = None,
    limit: LimitOpt = 200,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Every field downstream of a field, each labelled by its strongest dependency (DIRECT beats INDIRECT)."""
    when = parse_as_of(as_of)
    chosen = level or LevelName.field
    s = open_store(store)
    i = _run(lambda: s.get_field_impact(field, when, limit=limit, level=chosen.value))
    console = Console()

    def render(d: m.FieldImpact) -> None:
        _paths_table(f"impact of {d.field.name} (level {d.level})", d.impacted, console)
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
    when = parse_as_of(as_of)
    s = open_store(store)
    r = _run(lambda: s.trace_origin(node, depth, when))
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
    operation: Annotated[
        str | None,
        typer.Option(
            help="DROP_COLUMN, RENAME_COLUMN, CHANGE_TYPE (or TYPE_CHANGE); metadata only: ADD_COLUMN, COMMENT, "
            "METADATA, PROPERTIES."
        ),
    ] = None,
    column: Annotated[list[str] | None, typer.Option("--column", help="Changed columns of a dataset.")] = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Impact analysis: affected nodes by type with severity, overall severity and risk."""
    when = parse_as_of(as_of)
    change_type, op = parse_change(change, operation)
    s = open_store(store)
    details: dict[str, Any] = {}
    if op:
        details["operation"] = op
    if column:
        details["columns"] = column
    a = _run(lambda: s.analyze_impact(target, change_type, details, when))
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
    when = parse_as_of(as_of)
    s = open_store(store)
    r = _run(lambda: s.get_lineage_summary(node, when))
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
    when = parse_as_of(as_of)
    s = open_store(store)
    r = _run(lambda: s.get_lineage_stats(when))
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


def _read_engine(url: str) -> Engine:
    """An engine that only reads: a SQLite file is opened as it is (no file created, no journal
    mode set); a missing one is an error."""
    from headwater.store.engine import make_engine, normalise_url

    url = normalise_url(url)
    u = make_url(url)
    if u.get_backend_name() != "sqlite" or u.database in (None, "", ":memory:") or u.query:
        return make_engine(url)
    path = Path(u.database).expanduser().resolve()
    if not path.is_file():
        _fail(f"no store at {path}")
    uri = f"{path.as_uri()}?mode=rw"  # rw, not ro: the last connection then removes -wal/-shm on close
    return create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, timeout=30), poolclass=NullPool)


@db_app.command("current")
def db_current(store: StoreOpt = None) -> None:
    """Print the store's schema revision; only reads (a missing SQLite file is an error, exit 2)."""
    from headwater.store.engine import default_url
    from headwater.store.migrate import current_revision, head_revision

    engine = _read_engine(store or default_url())
    try:
        rev = current_revision(engine)
    except DBAPIError as exc:
        _fail(f"cannot read the store: {exc.orig}")
    finally:
        engine.dispose()
    Console().print(f"{rev or '(empty)'} (head: {head_revision()})")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
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
