"""``headwater query …``, ``headwater serve`` and ``headwater db upgrade|current``."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from pydantic import BaseModel, TypeAdapter, ValidationError
from rich.console import Console, Group
from rich.table import Table
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from headwater.cli.display import DottedName, Namer, fail, lit
from headwater.cli.graph import graph_edges
from headwater.cli.stores import StoreOpt, check_store_url, connect_error, open_cli_store, read_engine, sqlite_path
from headwater.service import schemas as m
from headwater.store import ChangeType, LineageStore, NodeType, StoreError
from headwater.store.impact import DESTRUCTIVE_OPERATIONS, METADATA_OPERATIONS


class Fmt(StrEnum):
    table = "table"
    json = "json"


class AnalyzeFmt(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


FmtOpt = Annotated[Fmt, typer.Option("--format", help="table, or json (the API's answer, full names).")]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Answer as of this time: ISO 8601 (naive = UTC), seconds or milliseconds since the epoch, or a "
        "duration back from now (7d, 12h, 2w).",
    ),
]
DepthOpt = Annotated[int, typer.Option("--depth", min=0, help="Levels to follow (dataset → job → dataset is one).")]
LimitOpt = Annotated[int, typer.Option("--limit", min=1, help="Rows to show.")]


SeenSinceOpt = Annotated[
    str | None,
    typer.Option(
        "--seen-since",
        help="Leave out jobs known only from query logs (no project file) not seen since then: a duration back "
        "from now (30d, 12h, 2w) or an ISO 8601 time.",
    ),
]


def check_seen_since(value: str | None) -> str | None:
    """``--seen-since`` as given, once it parses (a bad one is a usage error naming the option)."""
    from headwater.store.jobs import parse_since

    try:
        parse_since(value)
    except StoreError as exc:
        fail(f"--seen-since: {exc}")
    return value


# ---------------------------------------------------------------- query

query_app = typer.Typer(
    name="query", help="Query the lineage store (names relative to the default catalog internal).", no_args_is_help=True
)


def _emit(console: Console, fmt: str, model: type[BaseModel], value: Any, render: Any) -> None:
    data = model.model_validate(value)
    if fmt == Fmt.json:
        print(data.model_dump_json(indent=2))
    else:
        render(data)


def _fail(message: str) -> NoReturn:
    """``error: …`` on standard error, exit 2 (a usage error, as for a node that does not exist)."""
    fail(message)


def _run(fn: Any) -> Any:
    try:
        return fn()
    except StoreError as exc:  # NodeNotFound, AmbiguousNode, InvalidInput
        _fail(str(exc))


def _console() -> Console:
    return Console(highlight=False)


def plural(n: int, word: str) -> str:
    """``1 node``, ``2 nodes``.

    >>> plural(1, "node"), plural(0, "edge")
    ('1 node', '0 edges')
    """
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


NAMES = Namer()


def _name(node: m.Node) -> DottedName:
    return NAMES.cell(node.name, node.type)


_DATETIME = TypeAdapter(datetime)


def parse_as_of(value: str | None) -> datetime | None:
    """``--as-of`` read as the API reads ``as_of`` (the same pydantic parser): ISO 8601 (a naive time
    is UTC), or seconds or milliseconds since the epoch; or a duration back from now (``7d``, ``12h``),
    as ``--seen-since`` and ``diff --from`` take it."""
    if value is None:
        return None
    from headwater.store.jobs import _DURATION, parse_since
    from headwater.store.names import from_us

    if _DURATION.match(value):
        return from_us(parse_since(value))
    try:
        return _DATETIME.validate_python(value)
    except ValidationError as exc:
        _fail(
            f"--as-of: {value!r}: {exc.errors()[0]['msg']} "
            "(give an ISO 8601 time, seconds or milliseconds since the epoch, or a duration back from now: 7d, 12h)"
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


def _graph_table(title: str, g: m.LineageGraph, console: Console, limit: int, depth: int | None = None) -> None:
    t = Table(title=lit(f"{title} of {NAMES.short(g.root.name, g.root.type)}"))
    for c in ("depth", "type"):
        t.add_column(c)
    t.add_column("name", overflow="fold")
    page = g.nodes[:limit]
    for n in page:
        t.add_row(lit(n.depth), lit(n.type), _name(n))
    console.print(t)
    by_id = {n.id: n for n in page} | {g.root.id: g.root}
    edges = graph_edges(g)
    shown = [(a, label, b) for a, label, b in edges if a in by_id and b in by_id]
    if shown:
        _edges_table(shown, by_id, console)
    more = f" (showing {len(page)})" if len(page) < g.total_nodes else ""
    summary = lit(f"{plural(g.total_nodes, 'node')}, {plural(len(edges), 'edge')}{more}")
    if g.truncated:
        summary.append(" truncated", "yellow")
    console.print(summary)
    for note in cut_notes(g, depth):
        console.print(lit(note, "yellow"))


def _share(room: int, least: list[int], most: list[int]) -> list[int]:
    """Column widths between ``least`` and ``most`` that fill at most ``room``, the space beyond the
    least shared in proportion to what each column could use.

    >>> _share(100, [10, 20, 10], [30, 20, 50])
    [30, 20, 50]
    >>> _share(60, [10, 20, 10], [30, 20, 50])
    [16, 20, 23]
    """
    spare = room - sum(least)
    wants = [m - n for n, m in zip(least, most, strict=True)]
    if spare >= sum(wants):
        return most
    return [n + spare * w // max(1, sum(wants)) for n, w in zip(least, wants, strict=True)]


def _edges_table(shown: list[tuple[int, str, int]], by_id: dict[int, m.Node], console: Console) -> None:
    """The edges as a table of from, edge, to; where the three columns cannot each hold their longest
    identifier, one edge per row of a single column (from, then the edge and its target indented), so
    that no identifier is cut."""
    rows = [(_name(by_id[a]), label, _name(by_id[b])) for a, label, b in shown]
    widest = [max(max(len(p) for p in r[i].pieces) for r in rows) for i in (0, 2)]
    edge_words = max(len(w) for _, label, _ in rows for w in label.split())
    title = lit("edges (data flows from → to)")
    if sum(widest) + edge_words + 10 <= console.width:
        t = Table(title=title)
        least = [widest[0], edge_words, widest[1]]  # no column narrower than its longest identifier
        most = [max(len(r[0].name) for r in rows), max(len(r[1]) for r in rows), max(len(r[2].name) for r in rows)]
        widths = _share(console.width - 10, least, most)
        for name, width in zip(("from", "edge", "to"), widths, strict=True):
            t.add_column(name, overflow="fold", width=width)
        for a, label, b in rows:
            t.add_row(a, lit(label), b)
    else:
        t = Table(title=title, show_header=False, show_lines=True)
        t.add_column("edge", overflow="fold")
        for a, label, b in rows:
            t.add_row(Group(a, lit(f"  {label}"), DottedName(f"  → {b.name}")))
    console.print(t)


_KIND = {"DATASET": "table", "FIELD": "field", "JOB": "job"}


def _kinds(n: int, node_type: str) -> str:
    return plural(n, _KIND.get(node_type, node_type.lower() + " node"))


def cut_notes(g: m.LineageGraph, depth: int | None = None) -> list[str]:
    """What the answer left out, one line each: nodes beyond the depth (and the ``--depth`` that shows
    them), the node cap, nodes of other types (``--type``).

    >>> N = m.Node(id=1, type="DATASET", name="t", short="t", depth=0)
    >>> g = m.LineageGraph(root=N, direction="DOWNSTREAM", nodes=[], edges=[], total_nodes=0, total_edges=0,
    ...     truncated=True, limit=None, cut_by=["depth"], more_at_depth=3, more_by_type={"DATASET": 3},
    ...     depth_needed=10)
    >>> cut_notes(g, 3)
    ['3 more tables beyond depth 3: --depth 10']
    """
    notes = []
    if g.more_at_depth:
        where = f"depth {depth}" if depth is not None else "this depth"
        kinds = g.more_by_type
        if len(kinds) == 1:
            ((kind, n),) = kinds.items()
            what = f"{n} more {_kinds(n, kind).split(' ', 1)[1]}"
        else:
            what = f"{g.more_at_depth} more ({', '.join(_kinds(n, k) for k, n in kinds.items())})"
        hint = f"--depth {g.depth_needed}" if g.depth_needed is not None else "at least that many; raise --depth"
        notes.append(f"{what} beyond {where}: {hint}")
    if "max_nodes" in g.cut_by:
        notes.append("the walk stopped at its node cap: the answer is partial")
    if g.hidden_by_type:
        notes.append(
            f"{plural(g.hidden_by_type, 'node')} of other types left out by --type (edges through them: via …)"
        )
    return notes


def _direction(name: str) -> Any:
    def cmd(
        node: Annotated[str, typer.Argument(help="Dataset, field, job…: full or short name, or #id.")],
        store: StoreOpt = None,
        depth: DepthOpt = 3,
        as_of: AsOfOpt = None,
        types: Annotated[
            list[str] | None,
            typer.Option(
                "--type",
                help="Keep only these node types (DATASET, FIELD, JOB…; repeat the option); the edges through "
                "the hidden nodes are shown as one edge (via …).",
            ),
        ] = None,
        limit: LimitOpt = 200,
        fmt: FmtOpt = Fmt.table,
        seen_since: SeenSinceOpt = None,
    ) -> None:
        when, node_types, seen = parse_as_of(as_of), parse_node_types(types), check_seen_since(seen_since)
        s = open_cli_store(store)
        if fmt == Fmt.json:
            g = _run(lambda: s.get_lineage(node, name.upper(), depth, when, node_types, limit, seen_since=seen))
            _emit(_console(), fmt, m.LineageGraph, g, None)
            return
        full = m.LineageGraph.model_validate(
            _run(lambda: s.get_lineage(node, name.upper(), depth, when, node_types, None, seen_since=seen))
        )
        _graph_table(name, full, _console(), limit, depth)

    cmd.__doc__ = f"{name.capitalize()} lineage of a node: the nodes, and the edges between them with their dependency."
    return cmd


def _paths_table(title: str, entries: list[m.FieldPath], console: Console) -> None:
    t = Table(title=lit(title))
    t.add_column("field", overflow="fold")
    for c in ("depth", "dependency", "path"):
        t.add_column(c)
    for e in entries:
        t.add_row(_name(e.field), lit(e.depth), lit(e.dependency), lit(" → ".join(e.types) or "(itself)"))
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
    indirect: Annotated[bool, typer.Option("--indirect", help="The same as --level all.")] = False,
    as_of: AsOfOpt = None,
    limit: LimitOpt = 200,
    fmt: FmtOpt = Fmt.table,
    seen_since: SeenSinceOpt = None,
) -> None:
    """The ultimate source fields of a field, each labelled by its strongest dependency (DIRECT beats INDIRECT)."""
    when, seen = parse_as_of(as_of), check_seen_since(seen_since)
    if indirect and level not in (None, LevelName.all):
        _fail(f"--indirect is --level all; it cannot be combined with --level {level.value}")
    chosen = LevelName.all if indirect else level or LevelName.field
    s = open_cli_store(store)
    o = _run(lambda: s.get_field_origin(field, as_of=when, limit=limit, level=chosen.value, seen_since=seen))
    console = _console()

    def render(d: m.FieldOrigin) -> None:
        _paths_table(f"origin of {NAMES.short(d.field.name, d.field.type)} (level {d.level})", d.origins, console)
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
    seen_since: SeenSinceOpt = None,
) -> None:
    """Every field downstream of a field, each labelled by its strongest dependency (DIRECT beats INDIRECT)."""
    when, seen = parse_as_of(as_of), check_seen_since(seen_since)
    chosen = level or LevelName.field
    s = open_cli_store(store)
    i = _run(lambda: s.get_field_impact(field, when, limit=limit, level=chosen.value, seen_since=seen))
    console = _console()

    def render(d: m.FieldImpact) -> None:
        _paths_table(f"impact of {NAMES.short(d.field.name, d.field.type)} (level {d.level})", d.impacted, console)
        more = []
        for other in list(LevelName)[list(LevelName).index(chosen) + 1 :]:
            o = _run(lambda lv=other.value: s.get_field_impact(field, when, limit=1, level=lv, seen_since=seen))
            added = [(o.direct_count - d.direct_count, "DIRECT"), (o.indirect_count - d.indirect_count, "INDIRECT")]
            if any(n > 0 for n, _ in added):
                more.append(" ".join(f"+{n} {kind}" for n, kind in added if n > 0) + f" at --level {other.value}")
        headline = f"{plural(d.total, 'field')}: {d.direct_count} DIRECT, {d.indirect_count} INDIRECT"
        console.print(lit(headline + (f" ({'; '.join(more)})" if more else "")))

    _emit(console, fmt, m.FieldImpact, i, render)


def trace(
    node: Annotated[str, typer.Argument(help="Any node.")],
    store: StoreOpt = None,
    depth: Annotated[
        int | None, typer.Option("--depth", min=0, help="Levels to follow upstream (default: to the roots).")
    ] = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """The roots upstream of a node and their source systems."""
    when = parse_as_of(as_of)
    s = open_cli_store(store)
    r = _run(lambda: s.trace_origin(node, depth, when))
    console = _console()

    def render(d: m.TraceResult) -> None:
        t = Table(title=lit(f"origins of {NAMES.short(d.root.name, d.root.type)}"))
        t.add_column("origin", overflow="fold")
        for c in ("type", "system", "depth"):
            t.add_column(c)
        for o in d.origins:
            t.add_row(_name(o.origin), lit(o.origin.type), lit(o.system.name if o.system else ""), lit(o.depth))
        console.print(t)
        console.print(lit(f"source systems: {', '.join(x.name for x in d.source_systems) or '(none)'}"))

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
    samples: Annotated[int, typer.Option("--samples", min=0, help="Affected nodes to list per type.")] = 5,
    show_all: Annotated[bool, typer.Option("--all", help="List every affected node (overrides --samples).")] = False,
    as_of: AsOfOpt = None,
    fmt: Annotated[
        AnalyzeFmt,
        typer.Option("--format", help="table, json (the API's answer) or csv (type, severity, node per row)."),
    ] = AnalyzeFmt.table,
) -> None:
    """Impact analysis: affected nodes by type with severity, overall severity and risk."""
    when = parse_as_of(as_of)
    change_type, op = parse_change(change, operation)
    s = open_cli_store(store)
    details: dict[str, Any] = {}
    if op:
        details["operation"] = op
    if column:
        details["columns"] = column
    size = 2**31 - 1 if show_all else samples
    a = _run(lambda: s.analyze_impact(target, change_type, details, when, sample_size=size))
    console = _console()
    if fmt == AnalyzeFmt.csv:
        import csv
        import sys

        d = m.ImpactAnalysis.model_validate(a)
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["type", "count", "severity", "node"])
        for g in d.groups:
            for node in g.sample_node_ids or [""]:
                out.writerow([g.type, g.count, g.severity, node])
        return

    def render(d: m.ImpactAnalysis) -> None:
        cells = {g.type: [NAMES.cell(x, g.type) for x in g.sample_node_ids] for g in d.groups}
        widest = max((len(p) for names in cells.values() for c in names for p in c.pieces), default=0)
        beside = console.width >= widest + 40  # the three short columns and the borders take ~40 columns
        title = lit(f"{d.change_type} of {NAMES.short(d.target.name, d.target.type)}")
        t = Table(title=title if beside else None)
        if not beside:
            console.print(title)  # over the whole width, not the narrow table's
        for c in ("type", "count", "severity"):
            t.add_column(c)
        heading = "affected" if show_all else "sample"
        if beside:
            t.add_column(heading, overflow="fold")
        below: list[Any] = []
        for g in d.groups:
            listed: list[Any] = list(cells[g.type])
            more = g.count - len(listed)
            if more > 0:
                listed.append(lit(f"… {more} more (--samples N, --all)"))
            if beside:
                t.add_row(lit(g.type), lit(g.count), lit(g.severity), Group(*listed))
            else:  # too narrow for a name beside the counts: the names under the table, one a line
                t.add_row(lit(g.type), lit(g.count), lit(g.severity))
                below += [lit(f"{heading} {g.type}:"), *listed]
        console.print(t)
        for item in below:
            console.print(item)
        console.print(lit(f"{d.total_affected_count} affected; severity {d.overall_severity}; risk {d.risk_level}"))

    _emit(console, fmt, m.ImpactAnalysis, a, render)


def summary(
    node: Annotated[str, typer.Argument(help="Any node.")],
    store: StoreOpt = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Counts around one node."""
    when = parse_as_of(as_of)
    s = open_cli_store(store)
    r = _run(lambda: s.get_lineage_summary(node, when))
    console = _console()

    def render(d: m.LineageSummary) -> None:
        t = Table(title=lit(f"summary of {NAMES.short(d.node.name, d.node.type)}"), show_header=False)
        for k in ("upstream_count", "downstream_count", "field_count", "pipeline_count", "last_updated"):
            t.add_row(lit(k), lit(getattr(d, k)))
        t.add_row(lit("node types"), lit(", ".join(f"{k}={v}" for k, v in d.node_type_counts.items())))
        console.print(t)

    _emit(console, fmt, m.LineageSummary, r, render)


def stats(store: StoreOpt = None, as_of: AsOfOpt = None, fmt: FmtOpt = Fmt.table) -> None:
    """Nodes, edges and field mappings by type; events recorded."""
    when = parse_as_of(as_of)
    s = open_cli_store(store)
    r = _run(lambda: s.get_lineage_stats(when))
    console = _console()

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
    grpc_port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, help="Also serve the gRPC LineageServices (pipeline, governance) on this port."),
    ] = None,
    grpc_host: Annotated[str, typer.Option(help="gRPC bind address (non-loopback needs tokens).")] = "127.0.0.1",
    grpc_tls_cert: Annotated[
        Path | None, typer.Option(help="gRPC over TLS: the server's PEM certificate chain.")
    ] = None,
    grpc_tls_key: Annotated[Path | None, typer.Option(help="gRPC over TLS: the server's PEM private key.")] = None,
    grpc_tls_client_ca: Annotated[
        Path | None, typer.Option(help="gRPC over TLS: require client certificates signed by this PEM CA.")
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option("--allowed-host", help="Also answer this Host name (besides the bound ones); repeatable."),
    ] = None,
    cors_origin: Annotated[
        list[str] | None,
        typer.Option("--cors-origin", help="Allow CORS from this origin (off by default); repeatable."),
    ] = None,
    header_timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds a client has to send a request's headers.")
    ] = 10.0,
    body_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds a client has to send a request's body.")] = 60.0,
    keep_alive_timeout: Annotated[int, typer.Option(min=1, help="Seconds an idle keep-alive connection is kept.")] = 5,
    max_connections: Annotated[int, typer.Option(min=1, help="Open connections at most; more are refused.")] = 256,
    max_client_connections: Annotated[
        int, typer.Option(min=1, help="Open connections from one address at most; its longest waiting one gives way.")
    ] = 64,
    min_body_rate: Annotated[
        int, typer.Option(min=1, help="Bytes a second a request body must average (after 5 s); slower ones are closed.")
    ] = 1024,
    max_body_mb: Annotated[
        float, typer.Option(min=0.001, help="Request bodies hold at most this many MiB; larger ones get 413.")
    ] = 16.0,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Server processes (each with its own connection pool).")
    ] = 1,
) -> None:
    """Serve the REST API (and the explorer) over the store; with --grpc-port also gRPC (docs/api.md)."""
    from headwater.service import UnsafeBind
    from headwater.service.auth import load_tokens
    from headwater.service.server import check_bind
    from headwater.service.server import serve as run

    tls = None
    if grpc_tls_cert or grpc_tls_key or grpc_tls_client_ca:
        if grpc_port is None:
            _fail("--grpc-tls-cert, --grpc-tls-key and --grpc-tls-client-ca need --grpc-port")
        if not (grpc_tls_cert and grpc_tls_key):
            _fail("--grpc-tls-cert and --grpc-tls-key go together: give both")
        from headwater.service.grpc import TlsFiles

        tls = TlsFiles(grpc_tls_cert, grpc_tls_key, grpc_tls_client_ca)
    try:
        tokens = load_tokens(tokens_file)
        check_bind(host, tokens)
        if grpc_port is not None:
            check_bind(grpc_host, tokens)
    except (UnsafeBind, ValueError) as exc:
        _fail(str(exc))
    open_cli_store(store)  # a mistyped path or an unreachable server: one line, before binding
    try:
        from headwater.service.http_limits import ServerLimits

        limits = ServerLimits(
            header_timeout, body_timeout, keep_alive_timeout, max_connections, max_client_connections, min_body_rate
        )
        run(
            store,
            host,
            port,
            tokens,
            grpc_port=grpc_port,
            grpc_host=grpc_host,
            grpc_tls=tls,
            allowed_hosts=allowed_host or (),
            cors_origins=cors_origin or (),
            limits=limits,
            workers=workers,
            max_body=int(max_body_mb * 1024 * 1024),
        )
    except (UnsafeBind, ValueError) as exc:
        _fail(str(exc))


db_app = typer.Typer(
    name="db",
    help="The store itself: create or upgrade its tables, its revision, delete lineage.",
    no_args_is_help=True,
)


@db_app.command("upgrade")
def db_upgrade(
    store: StoreOpt = None,
    revision: Annotated[str, typer.Option(help="Target revision.")] = "head",
) -> None:
    """Create or upgrade the store's tables (Alembic)."""
    from headwater.store.engine import default_url, make_engine
    from headwater.store.migrate import current_revision, upgrade

    url = check_store_url(store or default_url())
    try:
        engine = make_engine(url)
        before = current_revision(engine)
        after = upgrade(engine, revision)
    except DBAPIError as exc:
        _fail(connect_error(url, exc))
    _console().print(lit(f"store schema: {before or '(empty)'} → {after}"))


def _read_engine(url: str) -> Engine:
    """An engine that only reads (``stores.read_engine``); a missing SQLite file is an error."""
    from headwater.store.engine import normalise_url

    url = normalise_url(url)
    path = sqlite_path(url)
    if path is not None and not path.is_file():
        _fail(f"no store at {path}")
    return read_engine(url)


@db_app.command("current")
def db_current(store: StoreOpt = None) -> None:
    """Print the store's schema revision; only reads (a missing SQLite file is an error, exit 2)."""
    from headwater.store.engine import default_url
    from headwater.store.migrate import current_revision, head_revision

    url = check_store_url(store or default_url())
    engine = _read_engine(url)
    try:
        rev = current_revision(engine)
    except DBAPIError as exc:
        message = connect_error(url, exc)
        if "is not a database" in message:
            _fail(f"cannot read the store: file is not a database ({make_url(url).database})")
        _fail(message)
    finally:
        engine.dispose()
    _console().print(lit(f"{rev or '(empty)'} (head: {head_revision()})"))


@db_app.command("delete")
def db_delete(
    store: StoreOpt = None,
    event: Annotated[str | None, typer.Option("--event", help="Event id: the edges one event recorded.")] = None,
    job: Annotated[str | None, typer.Option("--job", help="Job (name, short name or #id): all its edges.")] = None,
    dataset: Annotated[
        str | None, typer.Option("--dataset", help="Dataset (name, short name or #id): every edge to or from it.")
    ] = None,
    purge: Annotated[
        bool,
        typer.Option(
            "--purge",
            help="Erase the edges and forget the events (they can be recorded again), instead of closing "
            "them (as-of queries before now still see closed edges).",
        ),
    ] = False,
    fmt: Annotated[Fmt, typer.Option("--format", help="table, or json (the counts).")] = Fmt.table,
) -> None:
    """Delete lineage: close (or, with --purge, erase) the edges of one event, job or dataset.

    Give exactly one of --event, --job, --dataset. Closing keeps history: queries with --as-of before
    the deletion still answer with the edges; a closed event stays recorded, so replaying it changes nothing.
    """
    chosen = [o for o, v in (("--event", event), ("--job", job), ("--dataset", dataset)) if v is not None]
    if len(chosen) != 1:
        _fail(f"give exactly one of --event, --job, --dataset (got {', '.join(chosen) or 'none'})")
    s = open_cli_store(store)
    r = _run(lambda: s.delete_lineage(event_id=event, job=job, dataset=dataset, purge=purge))
    if fmt == Fmt.json:
        print(json.dumps(dataclasses.asdict(r) if dataclasses.is_dataclass(r) else r, default=str, indent=2))
        return
    _console().print(lit(_delete_line(r, purge)))


@db_app.command("backup")
def db_backup(
    dest: Annotated[Path, typer.Argument(help="The copy: a new SQLite file (or, for PostgreSQL, pg_dump's file).")],
    store: StoreOpt = None,
) -> None:
    """Copy the store while it is in use: a consistent copy as of one commit, writers may go on.

    SQLite: SQLite's online backup into DEST, a new file that is a complete store (open it with
    --store DEST, or put it in the store's place to restore). PostgreSQL: runs pg_dump (custom format;
    restore with pg_restore) when it is installed, else prints the command to run.
    """
    import shutil
    import subprocess

    from headwater.store.backup import backup_sqlite, pg_dump_command, shown_command
    from headwater.store.engine import default_url

    url = check_store_url(store or default_url())
    if dest.exists():
        _fail(f"{dest} exists: give a new file (a backup never overwrites)")
    path = sqlite_path(url)
    if path is None and make_url(url).get_backend_name() == "sqlite":
        _fail("an in-memory store has nothing to back up")
    if path is not None:
        _require(url)
        try:
            pages = backup_sqlite(path, dest)
        except (sqlite3.Error, OSError) as exc:
            dest.unlink(missing_ok=True)
            _fail(f"cannot back up {path} to {dest}: {exc}")
        _console().print(lit(f"backed up {path} to {dest} ({pages:,} pages, one file)"))
        return
    command = pg_dump_command(url, str(dest))
    if shutil.which("pg_dump") is None:
        _fail(
            "pg_dump is not installed here: run on a machine with the PostgreSQL client tools\n  "
            + shown_command(command)
            + f"\n(restore with: pg_restore --dbname=DATABASE {dest})"
        )
    _require(url)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        dest.unlink(missing_ok=True)
        first = next((ln for ln in done.stderr.splitlines() if ln.strip()), f"exit {done.returncode}")
        _fail(f"pg_dump failed: {first} ({shown_command(command)})")
    restore = f"restore with: pg_restore --dbname=DATABASE {dest}"
    _console().print(lit(f"backed up with {shown_command(command)} ({restore})"))


def _require(url: str) -> None:
    """Exit 2 unless ``url`` holds a headwater store (``open_cli_store``'s checks, nothing created)."""
    open_cli_store(url)


def _delete_line(r: Any, purge: bool) -> str:
    values = dataclasses.asdict(r) if dataclasses.is_dataclass(r) else dict(r)
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in values.items() if isinstance(v, int))
    return ("purged: " if purge else "closed: ") + (counts or "nothing")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    for name in ("upstream", "downstream"):
        query_app.command(name)(_direction(name))
    query_app.command()(origin)
    from headwater.cli.path_cmd import path

    query_app.command()(path)
    query_app.command()(impact)
    query_app.command()(trace)
    query_app.command()(analyze)
    query_app.command()(summary)
    query_app.command()(stats)
    from headwater.cli import jobs_cmd

    jobs_cmd.register(query_app, db_app)
    app.add_typer(query_app)
    app.command()(serve)
    app.add_typer(db_app)


__all__ = ["LineageStore", "register"]
