"""``headwater ingest``: SQL scripts (through the extractor) and event files into the store.

Event files hold headwater events and/or OpenLineage RunEvents, as JSON lines or (``.json``) one object
or array; a line, statement or file that cannot be read or recorded is reported and the rest recorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from sqlalchemy.exc import InterfaceError, OperationalError

from headwater.cli.store_cmd import StoreOpt
from headwater.model import EventFormatError, bounded_json, event_from_dict
from headwater.store import LineageStore, StoreError, open_store

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


@dataclass
class IngestTotals:
    files: int = 0
    statements: int = 0
    events: int = 0
    openlineage: int = 0
    recorded: int = 0
    duplicates: int = 0
    skipped: int = 0
    failed: int = 0
    problems: list[str] = field(default_factory=list)

    def fail(self, where: str, exc: BaseException | str) -> None:
        """Count one failure, named by ``where`` (``file:line``)."""
        self.failed += 1
        if isinstance(exc, str):
            message = exc
        elif isinstance(exc, EventFormatError | StoreError | OSError | UnicodeError):
            message = str(exc)
        else:  # something unexpected: name it, the message alone may be cryptic
            message = f"{type(exc).__name__}: {exc}"
        self.problems.append(f"{where}: {message}")


# events counts both kinds; how many of them are OpenLineage RunEvents is said under the table
COLUMNS = ("files", "statements", "events", "recorded", "duplicates", "skipped", "failed")
EVENT, OPENLINEAGE = "event", "openlineage"
# the store itself failing (unreachable, "database is locked"): not one bad input, so the run stops
FATAL_STORE_ERRORS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)


@dataclass(slots=True)
class Item:
    """One thing to record: a decoded headwater event or an OpenLineage RunEvent (a dict)."""

    where: str
    kind: str
    value: Any


def is_openlineage(obj: Any) -> bool:
    """An OpenLineage RunEvent rather than a headwater event (which has ``event_id`` and ``context``).

    >>> is_openlineage({"eventType": "COMPLETE", "eventTime": "2024-05-01T10:00:00Z", "run": {}, "job": {}})
    True
    >>> is_openlineage({"event_id": "q1", "context": {}}), is_openlineage([1])
    (False, False)
    """
    if not isinstance(obj, dict) or "event_id" in obj or "context" in obj:
        return False
    return "eventTime" in obj or ("run" in obj and "job" in obj)


def _json_lines(text: str, path: Path, totals: IngestTotals) -> list[tuple[int, Any]]:
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                items.append((n, bounded_json.loads(line)))  # too deep: a JSONDecodeError
            except json.JSONDecodeError as exc:
                totals.fail(f"{path}:{n}", f"not JSON ({exc.msg})")
    return items


def _array_lines(text: str) -> list[tuple[int, Any]]:
    """The items of a valid JSON array document, each with the line it starts on."""
    decoder = json.JSONDecoder()
    blank = re.compile(r"[ \t\n\r]*")
    i = blank.match(text, 0).end() + 1  # type: ignore[union-attr]  # past "["
    line, counted = 1, 0
    out: list[tuple[int, Any]] = []
    while True:
        i = blank.match(text, i).end()  # type: ignore[union-attr]
        if text[i] == "]":
            return out
        line += text.count("\n", counted, i)
        counted = i
        value, i = decoder.raw_decode(text, i)
        out.append((line, value))
        i = blank.match(text, i).end()  # type: ignore[union-attr]
        if text[i] == ",":
            i += 1


def _json_values(path: Path, totals: IngestTotals) -> list[tuple[int, Any]]:
    """The JSON values of an event file with their line numbers: JSON lines, or (``.json``) one
    document that is an object or an array."""
    text = path.read_text(encoding="utf-8-sig")
    if _event_suffix(path) != ".json":
        return _json_lines(text, path, totals)
    try:
        document = bounded_json.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("["):
            totals.fail(f"{path}:{exc.lineno}", f"not JSON ({exc.msg})")
            return []
        # JSON lines in a .json file; if no line is JSON either, the document's error says more
        scratch = IngestTotals()
        items = _json_lines(text, path, scratch)
        if items or exc.msg == "Extra data":
            totals.failed += scratch.failed
            totals.problems.extend(scratch.problems)
            return items
        totals.fail(f"{path}:{exc.lineno}", f"not JSON ({exc.msg})")
        return []
    if isinstance(document, list):
        return _array_lines(text)
    first = next((n for n, line in enumerate(text.splitlines(), 1) if line.strip()), 1)
    return [(first, document)]


def _read_events(path: Path, totals: IngestTotals) -> list[Item]:
    out = []
    for n, value in _json_values(path, totals):
        where = f"{path}:{n}"
        if is_openlineage(value):
            out.append(Item(where, OPENLINEAGE, value))
            continue
        try:
            out.append(Item(where, EVENT, event_from_dict(value)))
        except Exception as exc:  # EventFormatError, or anything a malformed document provokes
            totals.fail(where, exc)
    return out


def _extract(path: Path, dialect: str, database: str | None, schema: str | None, totals: IngestTotals) -> list[Item]:
    from headwater.extract import extract_script

    catalog = None
    if schema:
        from headwater.catalog import open_catalog

        catalog = open_catalog(schema, None, dialect)
    result = extract_script(path.read_text(encoding="utf-8-sig"), dialect=dialect, catalog=catalog, database=database)
    out = []
    for s in result.statements:
        totals.statements += 1
        if s.failed:
            totals.fail(f"{path}:{s.line}", s.error.message if s.error else "failed")
        elif not s.events and s.skip_reason:
            totals.skipped += 1
        out.extend(Item(f"{path}:{s.line}", EVENT, e) for e in s.events)
    return out


def _write(lineage: LineageStore, kind: str, values: list[Any], totals: IngestTotals) -> None:
    res = lineage.record_openlineage(values) if kind == OPENLINEAGE else lineage.record_batch(values)
    totals.recorded += res.recorded
    totals.duplicates += res.duplicates


def record_items(lineage: LineageStore, items: list[Item], batch: int, totals: IngestTotals) -> None:
    """Record ``items`` in transactions of up to ``batch`` items of one kind, in order. A batch is all
    or nothing, so when one fails its items are recorded again one by one: only the bad ones fail.
    The store failing as a whole (``FATAL_STORE_ERRORS``) stops the run."""
    start = 0
    while start < len(items):
        kind = items[start].kind
        end = start + 1
        while end < len(items) and end - start < batch and items[end].kind == kind:
            end += 1
        chunk = items[start:end]
        start = end
        try:
            _write(lineage, kind, [i.value for i in chunk], totals)
        except FATAL_STORE_ERRORS:
            raise
        except Exception as exc:
            if len(chunk) == 1:
                totals.fail(chunk[0].where, exc)
            else:
                for item in chunk:
                    _write_one(lineage, item, totals)


def _write_one(lineage: LineageStore, item: Item, totals: IngestTotals) -> None:
    try:
        _write(lineage, item.kind, [item.value], totals)
    except FATAL_STORE_ERRORS:
        raise
    except Exception as exc:
        totals.fail(item.where, exc)


def ingest(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="SQL scripts, or event files (.jsonl/.ndjson/.json, also rotated: lineage.jsonl.1) holding "
            "headwater events and/or OpenLineage RunEvents."
        ),
    ],
    store: StoreOpt = None,
    dialect: Annotated[str, typer.Option(help="SQL dialect of the scripts.")] = "doris",
    database: Annotated[str | None, typer.Option(help="Default database of the scripts.")] = None,
    schema: Annotated[str | None, typer.Option(help="Schema file for the extractor's catalog.")] = None,
    batch: Annotated[int, typer.Option(min=1, help="Events per transaction.")] = 500,
) -> None:
    """Record lineage from SQL scripts (through the extractor) and event files into the store.

    Event files: JSON lines, or (.json) one JSON object or array, of headwater events and/or OpenLineage RunEvents.
    A RunEvent is recognised by eventTime, run and job, and recorded as POST /api/v1/lineage records it.
    A line, statement or file that cannot be read or recorded is listed as file:line; the rest is still recorded.
    Exit code 1 when anything failed, else 0.
    """
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
                    items = _read_events(path, totals)
                else:
                    items = _extract(path, dialect, database, schema, totals)
            except Exception as exc:  # unreadable file, not UTF-8, a bad --schema, an extractor bug…
                totals.fail(str(path), exc)
                items = []
            totals.events += len(items)
            totals.openlineage += sum(1 for i in items if i.kind == OPENLINEAGE)
            record_items(lineage, items, batch, totals)
            progress.advance(task)
    table = Table(title="ingest", show_header=True)
    for col in COLUMNS:
        table.add_column(col, justify="right")
    table.add_row(*(str(getattr(totals, c)) for c in COLUMNS))
    console.print(table)
    if totals.openlineage:
        console.print(f"of the events, OpenLineage RunEvents: {totals.openlineage}")
    shown = 20
    for p in totals.problems[:shown]:
        console.print(p, style="yellow", soft_wrap=True, markup=False, highlight=False)
    if len(totals.problems) > shown:
        console.print(f"… and {len(totals.problems) - shown} more", style="yellow")
    if totals.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``headwater ingest`` to ``app``."""
    app.command()(ingest)
