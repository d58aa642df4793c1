"""``headwater ingest-log`` (query history on this machine) and ``headwater spark-ingest`` (on Spark).

``run_ingest_log`` is the plain function behind ``ingest-log``, so that other commands (``ingest``)
can call it with keyword arguments.
"""

from __future__ import annotations

import json
import signal
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from headwater.cli.display import fail, line, lit
from headwater.cli.recording import Interrupted, interrupted_line, stop_signals
from headwater.cli.stores import StoreOpt, open_cli_store
from headwater.history import FIELDS, Counters, IngestSummary

SOURCE_HELP = "doris-audit-table, doris-audit-file, jsonl or csv (default: from the location)."
MAP_HELP = (
    "The log's column for each field, as field=column,… (e.g. sql=statement,user=user_name). Fields: "
    + ", ".join(FIELDS)
    + "; unnamed fields are found by common column names."
)


def infer_source(location: str) -> str:
    """``doris-audit-table`` for a URL, ``jsonl`` / ``csv`` by suffix, else ``doris-audit-file``."""
    if "://" in location:
        return "doris-audit-table"
    name = location.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    return "doris-audit-file"


def _time(value: str | None, tz: str, option: str) -> datetime | None:
    from headwater.history import parse_time, zone

    if value is None:
        return None
    try:
        return parse_time(value, zone(tz))
    except (ValueError, KeyError) as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None


def _line(c: Counters) -> str:
    """The live counters, short enough to stay on one line of a 100-column terminal with the bar.

    >>> _line(Counters(rows_read=120000, events=98000, skipped=1500, failed=12))
    'rows 120000 · events 98000 · skipped 1500 · failed 12'
    """
    return f"rows {c.rows_read} · events {c.events} · skipped {c.skipped} · failed {c.failed}"


def progress_bar(console: Console, show: bool) -> Progress:
    """A one-line progress display: never wider than the terminal (the counters are cut with …), and
    off when ``show`` is false or the output is not a terminal (a pipe, a file, a CI log)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[line]}", table_column=Column(no_wrap=True, overflow="ellipsis")),
        console=console,
        transient=True,
        disable=not show or not console.is_terminal,
    )


def render_summary(console: Console, summary: IngestSummary, limit: int = 20) -> None:
    """The end-of-run table, the rule breakdown, the watermark, and the first problems."""
    c = summary.counters
    console.print(lit(f"source: {summary.source}"), soft_wrap=True, highlight=False)
    t = Table(title="ingest-log", title_justify="left", show_header=False)
    t.add_column("", style="bold")
    t.add_column("", justify="right")
    columns = {
        "rows read": c.rows_read,
        "sessions": c.sessions,
        "not succeeded": c.not_succeeded,
        "statements": c.statements,
        "reused (same shape)": f"{c.reused} ({c.reused / c.statements:.0%})" if c.statements else "0",
        "events": c.events,
        "recorded": c.recorded,
        "duplicates": c.duplicates,
        "skipped by rule": c.skipped,
        "failed to parse": c.failed,
        "unreadable rows": c.unreadable,
    }
    if c.resumed:
        columns["resumed (recorded before)"] = c.resumed
    for name, value in columns.items():
        t.add_row(name, str(value))
    console.print(t)
    if c.rules:
        rules = ", ".join(f"{k} {v}" for k, v in sorted(c.rules.items()))
        console.print(lit(f"skipped by rule: {rules}"), soft_wrap=True, highlight=False)
    before = summary.watermark_before.to_dict()["timestamp"] if summary.watermark_before else "none"
    after = summary.watermark_after.to_dict()["timestamp"] if summary.watermark_after else "none"
    console.print(lit(f"watermark: {before} → {after}"))
    for p in summary.problems[:limit]:
        console.print(line(lit(p.where, "yellow"), ": ", p.message), soft_wrap=True, highlight=False)
    if len(summary.problems) > limit:
        console.print(f"… and {len(summary.problems) - limit} more (--report FILE lists them all)")


def run_ingest_log(
    locations: list[str],
    *,
    source: str | None = None,
    table: str | None = None,
    mapping: str | None = None,
    store: str | None = None,
    schema: str | None = None,
    catalog_url: str | None = None,
    dialect: str = "doris",
    catalog_name: str = "internal",
    statements: str = "doris",
    since: str | None = None,
    until: str | None = None,
    timezone: str = "UTC",
    lookback: float = 0.0,
    watermark: bool = True,
    state: Path | None = None,
    source_name: str | None = None,
    workers: int = 1,
    task_size: int = 500,
    batch: int = 500,
    reuse_cache: int = 10_000,
    report: Path | None = None,
    console: Console | None = None,
    show_progress: bool = True,
) -> IngestSummary:
    """Ingest a query log into the store (see ``headwater ingest-log --help``); returns the summary.

    Raises ``typer.BadParameter`` for bad options.
    """
    from headwater.history import (
        ExtractSpec,
        FileWatermarks,
        IngestOptions,
        MappingError,
        TableWatermarks,
        ingest_history,
        open_source,
        parse_mapping,
        zone,
    )

    console = console or Console()
    if not locations:
        raise typer.BadParameter("give the log's files, or the audit table's database URL", param_hint="LOCATIONS")
    kind = source or infer_source(locations[0])
    try:
        tz = zone(timezone)
    except (ValueError, KeyError) as exc:
        raise typer.BadParameter(f"unknown timezone: {exc}", param_hint="--timezone") from None
    try:
        fields = parse_mapping(mapping)
        log = open_source(kind, locations, fields, tz, table, source_name)
    except MappingError as exc:
        raise typer.BadParameter(str(exc), param_hint="--map") from None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--source") from None
    options = IngestOptions(
        spec=ExtractSpec(dialect, statements, schema, catalog_url, catalog_name, reuse_cache),
        since=_time(since, timezone, "--since"),
        until=_time(until, timezone, "--until"),
        lookback=timedelta(seconds=lookback),
        use_watermark=watermark,
        workers=workers,
        task_size=task_size,
        batch=batch,
    )
    if schema or catalog_url:  # a wrong catalog fails before any row is read
        from headwater.catalog import CatalogError, open_catalog

        try:
            open_catalog(schema, catalog_url, dialect, catalog_name)
        except CatalogError as exc:
            raise typer.BadParameter(str(exc), param_hint="--schema/--catalog-url") from None
    _check_log(log, kind, locations)  # an audit table or a file that cannot be read: one line, no store created
    lineage = open_cli_store(store, create=True)
    marks = FileWatermarks(state) if state else TableWatermarks(lineage.engine)
    with progress_bar(console, show_progress) as bar:
        task = bar.add_task("reading", total=None, line="")

        def tell(phase: str, c: Counters, total: int) -> None:
            if phase == "reading":
                bar.update(task, description="reading", completed=c.rows_read, line=_line(c))
            else:
                bar.update(task, description="extracting", total=total, completed=c.rows_done, line=_line(c))

        with stop_signals() as flag:
            summary = ingest_history(log, lineage, options, marks, tell, stop=lambda: flag.signum is not None)
    if summary.interrupted:
        c = summary.counters
        code = Interrupted(flag.signum or signal.SIGINT).code
        console.print(
            interrupted_line(c.rows_done, c.rows_read, c.rows_done), markup=False, highlight=False, soft_wrap=True
        )
        raise typer.Exit(code)
    render_summary(console, summary)
    if report is not None:
        with report.open("w", encoding="utf-8") as fh:
            for p in summary.problems:
                fh.write(json.dumps({"where": p.where, "message": p.message}, ensure_ascii=False) + "\n")
    return summary


def _check_log(log: object, kind: str, locations: list[str]) -> None:
    """Exit 2 with one ``error:`` line when the log cannot be read: its files (``cli/inputs.py``, as
    every command reads files; a glob that matched nothing is left to the source), or its table."""

    if kind != "doris-audit-table":
        from headwater.cli.inputs import read_problem

        for loc in locations:
            path = Path(loc)
            problem = read_problem(path) if path.exists() or not any(c in loc for c in "*?[") else None
            if problem and not (problem.startswith("binary") and loc.endswith(".gz")):
                fail(f"{loc}: {problem}")
        return
    check = getattr(log, "check", None)
    if check is not None:
        try:
            check()
        except ValueError as exc:
            fail(str(exc))


def ingest_log(
    locations: Annotated[list[str], typer.Argument(help="Log files, or the audit table's SQLAlchemy URL.")],
    source: Annotated[str | None, typer.Option("--source", help=SOURCE_HELP)] = None,
    table: Annotated[
        str | None, typer.Option(help="Audit table (doris-audit-table); default __internal_schema.audit_log.")
    ] = None,
    mapping: Annotated[str | None, typer.Option("--map", help=MAP_HELP)] = None,
    store: StoreOpt = None,
    schema: Annotated[str | None, typer.Option(help="Schema file (e.g. from `headwater catalog dump`).")] = None,
    catalog_url: Annotated[str | None, typer.Option(help="Live database to bind against (SQLAlchemy URL).")] = None,
    dialect: Annotated[str, typer.Option(help="SQL dialect of the statements.")] = "doris",
    catalog_name: Annotated[
        str, typer.Option("--default-catalog", help="Catalog of rows and table names that name none.")
    ] = "internal",
    catalog_alias: Annotated[str | None, typer.Option("--catalog-name", hidden=True)] = None,
    statements: Annotated[str, typer.Option(help="doris (the guide's rules) or all.")] = "doris",
    since: Annotated[str | None, typer.Option(help="Read rows from this time (inclusive).")] = None,
    until: Annotated[str | None, typer.Option(help="Read rows before this time; the watermark stays.")] = None,
    timezone: Annotated[str, typer.Option(help="Timezone of the log's times without one (Doris: the FE's).")] = "UTC",
    lookback: Annotated[
        float, typer.Option(min=0, help="Seconds before the watermark to read again (late rows).")
    ] = 0.0,
    watermark: Annotated[bool, typer.Option("--watermark/--no-watermark", help="Use and move the watermark.")] = True,
    state: Annotated[Path | None, typer.Option(help="Keep watermarks in this JSON file, not in the store.")] = None,
    source_name: Annotated[str | None, typer.Option(help="Name of the source for its watermark.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Extraction processes (sessions stay together).")] = 1,
    task_size: Annotated[int, typer.Option(min=1, help="Statements per unit of work.")] = 500,
    batch: Annotated[int, typer.Option(min=1, help="Events per store transaction.")] = 500,
    reuse_cache: Annotated[
        int,
        typer.Option(
            min=0,
            help="Statement shapes remembered per worker: a re-run with other literals is not parsed again "
            "(same events). 0 turns it off.",
        ),
    ] = 10_000,
    report: Annotated[Path | None, typer.Option(help="Write every problem (query id, message) as JSON lines.")] = None,
) -> None:
    """Record the lineage of a query log's successful statements into the store (incremental).

    Sources: the Doris audit table or fe.audit.log files, JSON lines and CSV logs (--map).
    """
    try:
        run_ingest_log(
            locations,
            source=source,
            table=table,
            mapping=mapping,
            store=store,
            schema=schema,
            catalog_url=catalog_url,
            dialect=dialect,
            catalog_name=catalog_alias or catalog_name,
            statements=statements,
            since=since,
            until=until,
            timezone=timezone,
            lookback=lookback,
            watermark=watermark,
            state=state,
            source_name=source_name,
            workers=workers,
            task_size=task_size,
            batch=batch,
            reuse_cache=reuse_cache,
            report=report,
        )
    except typer.BadParameter as exc:  # one line, as every other usage error
        hint = exc.param_hint if isinstance(exc.param_hint, str) else None
        fail(exc.message if not hint or exc.message.startswith(hint) else f"{hint}: {exc.message}")


def spark_ingest(
    inputs: Annotated[
        list[str] | None, typer.Argument(help="Log files or directories (not for --format jdbc).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="jsonl, csv, parquet, doris-audit-file or jdbc.")] = "jsonl",
    jdbc_url: Annotated[str | None, typer.Option(help="JDBC URL (--format jdbc).")] = None,
    table: Annotated[str, typer.Option(help="JDBC table (--format jdbc).")] = "__internal_schema.audit_log",
    mapping: Annotated[str | None, typer.Option("--map", help=MAP_HELP)] = None,
    schema: Annotated[str | None, typer.Option(help="Catalog snapshot (`headwater catalog dump`), broadcast.")] = None,
    catalog_url: Annotated[
        str | None, typer.Option(help="Snapshot this live database on the driver first (instead of --schema).")
    ] = None,
    dialect: Annotated[str, typer.Option(help="SQL dialect of the statements.")] = "doris",
    catalog_name: Annotated[
        str, typer.Option("--default-catalog", help="Catalog of rows and table names that name none.")
    ] = "internal",
    catalog_alias: Annotated[str | None, typer.Option("--catalog-name", hidden=True)] = None,
    since: Annotated[str | None, typer.Option(help="Rows from this time (inclusive).")] = None,
    until: Annotated[str | None, typer.Option(help="Rows before this time.")] = None,
    timezone: Annotated[str, typer.Option(help="Timezone of the log's times without one.")] = "UTC",
    output: Annotated[str | None, typer.Option(help="Write the events here (a directory).")] = None,
    output_format: Annotated[str, typer.Option(help="jsonl or parquet.")] = "jsonl",
    store: Annotated[
        str | None,
        typer.Option(
            help="Also record the events into this store, from the driver in ingest-log's order and batches "
            "(the same store as ingest-log of the same log)."
        ),
    ] = None,
    master: Annotated[str, typer.Option(help="Spark master.")] = "local[*]",
    partitions: Annotated[int | None, typer.Option(min=1, help="Session partitions.")] = None,
    batch: Annotated[int, typer.Option(min=1, help="Events per store transaction.")] = 500,
    task_size: Annotated[int, typer.Option(min=1, help="Statements per unit of work (as ingest-log's).")] = 500,
) -> None:
    """Extract a query log on Spark (local mode by default) into JSON lines / Parquet and/or the store."""
    from headwater.history import MappingError, parse_mapping
    from headwater.spark import INPUT_FORMATS, SparkJob, local_session, run_job

    catalog_name = catalog_alias or catalog_name
    console = Console()
    if fmt not in INPUT_FORMATS:
        raise typer.BadParameter(f"one of {', '.join(INPUT_FORMATS)}", param_hint="--format")
    if output_format not in ("jsonl", "parquet"):
        raise typer.BadParameter("jsonl or parquet", param_hint="--output-format")
    if not output and not store:
        raise typer.BadParameter("give --output DIR and/or --store URL", param_hint="--output")
    read_options: dict[str, str] = {}
    if fmt == "jdbc":
        if not jdbc_url:
            raise typer.BadParameter("--format jdbc needs --jdbc-url", param_hint="--jdbc-url")
        read_options = {"url": jdbc_url, "dbtable": table}
    elif not inputs:
        raise typer.BadParameter("give the log's files", param_hint="INPUTS")
    try:
        fields = parse_mapping(mapping)
    except MappingError as exc:
        raise typer.BadParameter(str(exc), param_hint="--map") from None
    snapshot: dict | str | None = schema
    if catalog_url:
        from headwater.catalog import CatalogError, dump_catalog

        try:
            snapshot = dump_catalog(catalog_url, None, dialect=dialect, catalog=catalog_name)
        except CatalogError as exc:
            raise typer.BadParameter(str(exc), param_hint="--catalog-url") from None
    job = SparkJob(
        inputs=list(inputs or []),
        input_format=fmt,
        read_options=read_options,
        mapping=fields,
        snapshot=snapshot,
        dialect=dialect,
        timezone=timezone,
        default_catalog=catalog_name,
        since=_time(since, timezone, "--since"),
        until=_time(until, timezone, "--until"),
        partitions=partitions,
        output=output,
        output_format=output_format,
        store=store,
        batch=batch,
        task_size=task_size,
    )
    spark = local_session(master, "headwater spark-ingest")
    try:
        summary = run_job(spark, job)
    finally:
        spark.stop()
    t = Table(title="spark-ingest", title_justify="left", show_header=False)
    kinds = summary["kinds"]
    row = {
        "statements": sum(v for k, v in kinds.items() if k not in ("not-succeeded", "unreadable")),
        "not succeeded": kinds.get("not-succeeded", 0),
        "events": summary["events"],
        "skipped by rule": kinds.get("skipped", 0),
        "failed to parse": kinds.get("failed", 0),
        "unreadable rows": kinds.get("unreadable", 0),
    }
    if "recorded" in summary:
        row["recorded"], row["duplicates"] = summary["recorded"], summary["duplicates"]
    t.add_column("", style="bold")
    t.add_column("", justify="right")
    for name, value in row.items():
        t.add_row(name, str(value))
    console.print(t)
    if summary["rules"]:
        rules = ", ".join(f"{k} {v}" for k, v in sorted(summary["rules"].items()))
        console.print(lit(f"skipped by rule: {rules}"), soft_wrap=True, highlight=False)
    for qid, message in summary["problems"]:
        console.print(line(lit(f"query {qid}", "yellow"), ": ", str(message)), soft_wrap=True, highlight=False)
    if output:
        console.print(lit(f"events written to {output} ({output_format})"))


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("ingest-log")(ingest_log)
    app.command("spark-ingest")(spark_ingest)
