"""``headwater extract`` and ``headwater demo``."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from headwater.catalog import CatalogError, open_catalog
from headwater.cli.render import render_event, render_skips
from headwater.extract import ExtractOptions, Extractor, RunInfo, ScriptResult
from headwater.extract.examples import GUIDE_CLIENT_IP, GUIDE_USER, guide_script
from headwater.extract.split import sqlglot_dialect
from headwater.model import Severity, event_to_json

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    openlineage = "openlineage"
    payload = "payload"


class StatementRules(StrEnum):
    doris = "doris"
    all = "all"


def read_sql_input(path: str) -> str:
    """The text of a SQL file (``-`` is standard input); a clear error for binary or unreadable input."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as err:
        raise typer.BadParameter(f"cannot read {path}: {err.strerror}") from None
    if data.count(b"\x00") > max(8, len(data) // 100):  # binary; a stray NUL fails only its statement
        raise ValueError(f"{path}: binary data (NUL bytes), not SQL text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text (byte {err.start})") from None


def check_dialect(dialect: str) -> str:
    from sqlglot.dialects.dialect import Dialect

    try:
        Dialect.get_or_raise(sqlglot_dialect(dialect))
    except ValueError:
        raise typer.BadParameter(f"unknown dialect {dialect!r}", param_hint="--dialect") from None
    return dialect


def statement_failed(result: ScriptResult) -> bool:
    """True when a statement failed to parse or bind (an ERROR on it or on its event)."""
    for s in result.statements:
        if s.failed:
            return True
        if any(d.severity == Severity.ERROR for e in s.events for d in e.diagnostics):
            return True
    return False


def print_result(
    result: ScriptResult, fmt: OutputFormat, console: Console, explain_skips: bool, namespace: str
) -> None:
    if fmt == OutputFormat.table:
        for e in result.events:
            render_event(console, e)
        render_skips(console, result, explain_skips)
        return
    err = Console(stderr=True, soft_wrap=True)
    render_skips(err, result, explain_skips)
    out = sys.stdout
    if fmt == OutputFormat.json:
        events = result.events
        out.write("[\n" + ",\n".join(event_to_json(e, indent=2) for e in events) + "\n]\n" if events else "[]\n")
    elif fmt == OutputFormat.jsonl:
        for e in result.events:
            out.write(event_to_json(e) + "\n")
    elif fmt == OutputFormat.payload:
        from headwater.model.payload import dumps

        for e in result.events:
            out.write(dumps(e) + "\n")
    else:
        from headwater.model.openlineage import run_event_json

        for e in result.events:
            out.write(run_event_json(e, namespace=namespace) + "\n")


def extract(
    files: Annotated[list[str] | None, typer.Argument(help="SQL files; '-' or nothing reads standard input.")] = None,
    dialect: Annotated[str, typer.Option(help="Any sqlglot dialect, 'generic' or 'flink'.")] = "doris",
    schema: Annotated[Path | None, typer.Option(help="Schema file (JSON or YAML).")] = None,
    catalog_url: Annotated[str | None, typer.Option(help="SQLAlchemy URL of a live catalog.")] = None,
    default_db: Annotated[str | None, typer.Option(help="Session database for unqualified names.")] = None,
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
    statements: Annotated[StatementRules, typer.Option(help="Which statements make events.")] = StatementRules.doris,
    explain_skips: Annotated[bool, typer.Option(help="Say why each statement made no event.")] = False,
    namespace: Annotated[str, typer.Option(help="OpenLineage dataset namespace.")] = "headwater",
    query_id: Annotated[str | None, typer.Option(help="Query id for the events (default: generated).")] = None,
    user: Annotated[str | None, typer.Option(help="User for the query context.")] = None,
) -> None:
    """Extract lineage events from SQL scripts."""
    check_dialect(dialect)
    console = Console()
    try:
        catalog = open_catalog(schema, catalog_url, sqlglot_dialect(dialect))
    except CatalogError as err:
        Console(stderr=True, soft_wrap=True).print(f"[red]error:[/] {err}")
        raise typer.Exit(EXIT_USAGE) from None
    failed = False
    for path in files or ["-"]:
        try:
            text = read_sql_input(path)
        except ValueError as err:
            Console(stderr=True, soft_wrap=True).print(f"[red]error:[/] {err}")
            failed = True
            continue
        extractor = Extractor(
            catalog, ExtractOptions(dialect=dialect, statements=statements.value), database=default_db
        )
        result = extractor.run(text, RunInfo(query_id=query_id, user=user))
        if not result.statements:
            Console(stderr=True, soft_wrap=True).print(f"[yellow]warning:[/] {path}: no SQL statement")
        print_result(result, format, console, explain_skips, namespace)
        failed = failed or statement_failed(result)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def run_demo() -> ScriptResult:
    """Extract the guide's example as the guide's user would run it."""
    return Extractor().run(guide_script(), RunInfo(user=GUIDE_USER, client_ip=GUIDE_CLIENT_IP))


def register(app: typer.Typer) -> None:
    app.command()(extract)
