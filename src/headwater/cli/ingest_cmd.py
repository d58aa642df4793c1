"""``headwater ingest``: SQL scripts (through the extractor) and event files into the store.

The SQL files (and directories of them) given to one command are one project (``headwater.project``):
one session across files, run in the order of what they write and read, each statement named as its
job; the store itself is a catalog for them (``headwater.store.catalog``).

Event files hold headwater events and/or OpenLineage RunEvents, as JSON lines or (``.json``) one object
or array; a line, statement or file that cannot be read or recorded is reported and the rest recorded.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from sqlalchemy.exc import InterfaceError, OperationalError

from headwater.catalog import Catalog
from headwater.cli.options import CatalogUrlOpt, DefaultCatalogOpt, DefaultDbOpt, SchemaOpt
from headwater.cli.record_process import RecordingStopped, Writer
from headwater.cli.recording import Interrupted, Recorder, interrupted_line, stop_signals
from headwater.cli.stores import StoreOpt, open_cli_store
from headwater.extract.split import TREE_BUDGET, ScriptPieces, TreeBudget
from headwater.model import EventFormatError, LineageInfo, Severity, Status, bounded_json, event_from_dict
from headwater.model.job import JOB_PROPERTY
from headwater.model.ol_naming import OpenLineageNaming
from headwater.project import ProjectContext, ProjectFile, StatementOutcome, collect_files, project_root
from headwater.project.job_names import FileJobNames
from headwater.project.order import sort_into_order
from headwater.store import LineageStore, StoreError
from headwater.store.catalog import ANY, StoreCatalog, job_key, table_key
from headwater.store.from_ddl import TableDefinition
from headwater.store.names import now_us

if TYPE_CHECKING:
    from headwater.project.dbt import Artifacts

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
    incomplete: dict[str, int] = field(default_factory=dict)  # status → events
    codes: dict[str, int] = field(default_factory=dict)  # diagnostic code (WARNING, ERROR) → incomplete events
    incomplete_where: list[str] = field(default_factory=list)
    defined: int = 0  # tables whose DDL was recorded (new or changed): catalog knowledge, no lineage
    closed: list[str] = field(default_factory=list)  # jobs whose statement left its file
    pruned: list[str] = field(default_factory=list)  # jobs of files that left the project (--prune)
    removed_models: list[str] = field(default_factory=list)  # jobs of models that left the dbt project
    kept_open: list[str] = field(default_factory=list)  # files whose jobs were not closed (a statement failed)
    unlisted: int = 0  # problems and incomplete events past the first SHOWN of each: counted, not kept

    def fail(self, where: str, exc: BaseException | str) -> None:
        """Count one failure, named by ``where`` (``file:line``)."""
        self.failed += 1
        if isinstance(exc, str):
            message = exc
        elif isinstance(exc, EventFormatError | StoreError | OSError | UnicodeError):
            message = str(exc)
        else:  # something unexpected: name it, the message alone may be cryptic
            message = f"{type(exc).__name__}: {exc}"
        self.note(self.problems, f"{where}: {message}")

    def add_recorded(self, other: IngestTotals) -> None:
        """Add what ``other`` counted while recording (``record_items``, in the recording process)."""
        self.recorded += other.recorded
        self.duplicates += other.duplicates
        self.defined += other.defined
        self.failed += other.failed
        self.unlisted += other.unlisted
        for line in other.problems:
            self.note(self.problems, line)

    def note(self, listed: list[str], line: str) -> None:
        """Keep ``line`` in ``listed`` (``problems``, ``incomplete_where``) while it has fewer than
        ``SHOWN``, else only count it: the summary lists no more, and memory stays flat.

        >>> t = IngestTotals()
        >>> for k in range(SHOWN + 5):
        ...     t.note(t.incomplete_where, f"f.sql:{k}")
        >>> len(t.incomplete_where), t.unlisted
        (20, 5)
        """
        if len(listed) < SHOWN:
            listed.append(line)
        else:
            self.unlisted += 1


SHOWN = 20
"""Problems and incomplete events the summary lists (then ``… and N more``)."""


# events counts both kinds; how many of them are OpenLineage RunEvents is said under the table
COLUMNS = ("files", "statements", "events", "recorded", "duplicates", "skipped", "failed")
EVENT, OPENLINEAGE, DEFINITION = "event", "openlineage", "definition"
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
            for line in scratch.problems:
                totals.note(totals.problems, line)
            totals.unlisted += scratch.unlisted
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


def _write(lineage: LineageStore, kind: str, values: list[Any], totals: IngestTotals) -> None:
    if kind == DEFINITION:
        totals.defined += lineage.record_definitions(values).recorded
        return
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


class Order(StrEnum):
    deps = "deps"
    given = "given"


class CatalogSource(StrEnum):
    store = "store"
    none = "none"


class RecordIn(StrEnum):
    auto = "auto"
    thread = "thread"
    process = "process"


class Statements(StrEnum):
    doris = "doris"
    all = "all"


def _note_status(totals: IngestTotals, where: str, event: LineageInfo) -> None:
    """Count an event that stayed PARTIAL or UNAVAILABLE, by status and by its diagnostic codes."""
    if event.status is Status.COMPLETE:
        return
    status = event.status.value
    totals.incomplete[status] = totals.incomplete.get(status, 0) + 1
    serious = [d for d in event.diagnostics if d.severity is not Severity.INFO]
    for code in dict.fromkeys(d.code for d in serious):
        totals.codes[code] = totals.codes.get(code, 0) + 1
    first = serious[0] if serious else None
    why = f" {first.code}: {first.message}" if first else ""
    totals.note(totals.incomplete_where, f"{where}: {event.target.table.qualified} {status}{why}")


def base_catalog(
    schema: str | None,
    catalog_url: str | None,
    source: CatalogSource,
    lineage: LineageStore,
    dialect: str,
    default_catalog: str,
) -> tuple[Catalog | None, StoreCatalog | None]:
    """The catalog under the project's own DDL: the schema file, then the live database, then the store."""
    from headwater.catalog import ChainCatalog, open_catalog

    explicit = open_catalog(schema, catalog_url, dialect, default_catalog)
    store_catalog = StoreCatalog(lineage, dialect) if source is CatalogSource.store else None
    parts = [c for c in (explicit, store_catalog) if c is not None]
    if not parts:
        return None, None
    return (parts[0] if len(parts) == 1 else ChainCatalog(*parts)), store_catalog


def _naming(items: list[str] | None, catalog_url: str | None, dialect: str) -> OpenLineageNaming:
    """Which OpenLineage namespace is which catalog, for RunEvents: ``--namespace CATALOG=NAMESPACE``
    items, over ``[openlineage.namespaces]`` of headwater.toml; ``internal`` defaults to the place of
    ``--catalog-url`` (its host and port)."""
    from headwater.dispatch.settings import load_naming
    from headwater.model.ol_naming import parse_mapping, place_of_url

    base = load_naming()
    naming = OpenLineageNaming(
        {**base.catalogs, **parse_mapping(items or [])}, base.default_namespace, base.job_namespace
    )
    return naming.with_place("internal", place_of_url(catalog_url, dialect)) if catalog_url else naming


def _progress(console: Console) -> Progress:
    """Statements done of all, their rate and the time left; nothing when stdout is not a terminal."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _rate(progress: Progress, task: TaskID, unit: str = "stmt") -> str:
    speed = next(t.speed for t in progress.tasks if t.id == task)  # rich's moving average, None at first
    return f"{speed:,.0f} {unit}/s" if speed else ""


@dataclass
class Timing:
    """How long extraction and recording took (they overlap: recording runs beside extraction)."""

    started: float = field(default_factory=time.perf_counter)
    total: int = 0  # statements to extract
    extraction_start: float = 0.0
    extraction_s: float = 0.0
    recording_s: float = 0.0
    wall_s: float = 0.0
    in_process: int | None = None  # items recorded in this process before recording moved to another

    def started_extraction(self) -> None:
        self.extraction_start = time.perf_counter()

    def since_extraction(self) -> float:
        return time.perf_counter() - self.extraction_start if self.extraction_start else 0.0

    def line(self, totals: IngestTotals) -> str:
        """The closing line: both phases' times and rates, and the whole run's.

        >>> Timing(extraction_s=20.0, recording_s=12.5, wall_s=21.0).line(IngestTotals(statements=4000, recorded=3900))
        'extraction 20.0 s (200 statements/s), recording 12.5 s (312 events/s, beside extraction), total 21.0 s'
        >>> t = Timing(extraction_s=20.0, recording_s=12.5, wall_s=21.0, in_process=120)
        >>> t.line(IngestTotals(statements=4000, recorded=3900)).split(", ")[3]
        'in a process of its own from event 121)'
        """
        ex = f"{totals.statements / self.extraction_s:,.0f} statements/s" if self.extraction_s else "-"
        rec = f"{totals.recorded / self.recording_s:,.0f} events/s" if self.recording_s else "-"
        where = ""
        if self.in_process is not None:
            where = ", in a process of its own" + (f" from event {self.in_process + 1:,}" if self.in_process else "")
        return (
            f"extraction {self.extraction_s:.1f} s ({ex}), recording {self.recording_s:.1f} s ({rec}, beside "
            f"extraction{where}), total {self.wall_s:.1f} s"
        )


def ingest(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            help="SQL scripts or directories of them (one project), or event files (.jsonl/.ndjson/.json, also "
            "rotated: lineage.jsonl.1) holding headwater events and/or OpenLineage RunEvents."
        ),
    ] = None,
    store: StoreOpt = None,
    dbt: Annotated[
        Path | None,
        typer.Option(
            "--dbt",
            help="A dbt project directory (or its target directory): its artifacts (target/manifest.json; "
            "catalog.json and run_results.json when present), every model, snapshot and seed a job named by "
            "its unique id, in the adapter's dialect. See docs/dbt.md.",
        ),
    ] = None,
    dialect: Annotated[
        str, typer.Option(help="SQL dialect of the scripts (default: dialect = … in headwater.toml, else doris).")
    ] = "doris",
    default_db: DefaultDbOpt = None,
    database: Annotated[str | None, typer.Option("--database", hidden=True)] = None,
    default_catalog: DefaultCatalogOpt = "internal",
    schema: SchemaOpt = None,
    catalog_url: CatalogUrlOpt = None,
    catalog: Annotated[
        CatalogSource,
        typer.Option(
            help="store: tables and views the store knows describe tables too (after --schema and "
            "--catalog-url); none: only those."
        ),
    ] = CatalogSource.store,
    statements: Annotated[
        Statements,
        typer.Option(
            help="doris: the Doris rules (INSERT, CTAS; views as nodes); all: also SELECT, "
            "UPDATE, MERGE, INSERT … VALUES."
        ),
    ] = Statements.doris,
    order: Annotated[
        Order,
        typer.Option(
            help="deps: files run after the files writing the tables they read (name order "
            "breaks ties); given: the command line's order."
        ),
    ] = Order.deps,
    session_per_file: Annotated[
        bool, typer.Option("--session-per-file", help="Each SQL file its own session (unrelated scripts).")
    ] = False,
    root: Annotated[
        Path | None,
        typer.Option(help="Project root that job names are relative to (default: the files' common directory)."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when a statement stayed PARTIAL or UNAVAILABLE.")
    ] = False,
    namespace: Annotated[
        list[str] | None,
        typer.Option(
            help="OpenLineage namespace of a catalog, CATALOG=NAMESPACE (a bare NAMESPACE: catalog internal), "
            "repeatable: RunEvents in it land on the catalog's nodes. Default: [openlineage.namespaces] of "
            "headwater.toml, then --catalog-url's host and port."
        ),
    ] = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="The SQL files given are the whole project: close the jobs of the project files the store "
            "has (below the directory the files have in common) that are not among them.",
        ),
    ] = False,
    batch: Annotated[int, typer.Option(min=1, help="Events per transaction.")] = 500,
    recorder_kind: Annotated[
        RecordIn,
        typer.Option(
            "--recorder",
            help="Record in a thread or in a process of its own beside extraction (auto: a thread, moved to a "
            "process once recording proves heavy, on a machine with two cores or more).",
        ),
    ] = RecordIn.auto,
    ctx: typer.Context = None,  # type: ignore[assignment]  # given by typer: was --dialect given?
) -> None:
    """Record lineage from SQL scripts (through the extractor) and event files into the store.

    The SQL files given (directories: their *.sql files) are one project: one session across them,
    so the tables, views and temporary views one file creates bind the statements of the others.
    Each statement is recorded as the job FILE#N (the file's N-th INSERT, CTAS or view), or as the name
    of a "-- name: …" comment before it. The jobs of a file that are no longer in it are closed (their
    lineage stops being current; --as-of before the run still shows it); with --prune, also those of
    files no longer in the project.
    Event files: JSON lines, or (.json) one JSON object or array, of headwater events and/or OpenLineage RunEvents.
    A line, statement or file that cannot be read or recorded is listed as file:line; the rest is still recorded.
    Exit code 1 when anything failed (with --strict: or stayed PARTIAL/UNAVAILABLE), 2 for a bad option, else 0.
    """
    from headwater.catalog import CatalogError
    from headwater.cli.extract_cmd import check_dialect
    from headwater.dispatch.settings import SettingsError
    from headwater.model.ol_naming import NamingError

    files = files or []
    console = Console()
    artifacts = None
    if dbt is not None:
        artifacts, dialect = _dbt_artifacts(dbt, files, console)
    elif not files:
        console.print("error: give SQL or event files, or --dbt PROJECT_DIR", style="red")
        raise typer.Exit(2)
    check_dialect(dialect)
    assumed = False  # no --dialect, no headwater.toml: the dialect warning says which one was assumed
    if dbt is None:  # without --dialect: the dialect headwater.toml states for the project
        from headwater.cli.extract_cmd import project_dialect

        dialect, assumed = project_dialect(ctx, dialect)
    from headwater.cli.inputs import check_inputs

    check_inputs(files)  # a missing, binary or non-UTF-8 file: exit 2 before the store is created
    default_db = default_db or database
    try:
        naming = _naming(namespace, catalog_url, dialect)
    except (NamingError, SettingsError) as exc:
        console.print(f"error: --namespace: {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    lineage = open_cli_store(store, create=True)  # one-line errors for a bad URL or server
    lineage.naming = naming
    totals = IngestTotals()
    try:
        base, store_catalog = base_catalog(schema, catalog_url, catalog, lineage, dialect, default_catalog)
    except CatalogError as exc:
        console.print(f"error: {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    root_dir = root or project_root([p for p in files if not _event_suffix(p)] or files)
    sql_paths = [p for p in files if not _event_suffix(p)]
    event_paths = [p for p in files if _event_suffix(p)]
    if prune and not sql_paths:
        console.print("error: --prune needs the project's SQL files (or directories)", style="red")
        raise typer.Exit(2)
    run_at = now_us()  # when the jobs that left the project stop being current
    project_files: list[ProjectFile] = []
    names_in: dict[str, FileJobNames | None] = {}  # file → its statements' job names (None: do not close)

    def new_context() -> ProjectContext:
        return ProjectContext(
            base,
            dialect=dialect,
            database=default_db,
            default_catalog=default_catalog,
            statements=statements.value,
            recorded_views=store_catalog if store_catalog is not None else (),
        )

    from headwater.cli.extract_cmd import DialectWarning

    hint = DialectWarning(dialect, assumed=assumed, project=True, defer=True)  # one for the run, said at the end
    timing = Timing()
    with _progress(console) as progress, stop_signals() as flag:
        writer = Writer(
            lambda items: record_items(lineage, items, batch, totals),
            totals.add_recorded,
            lineage.engine.url.render_as_string(hide_password=False),
            lineage.naming,
            batch,
            recorder_kind.value,
        )
        recorder = Recorder(writer, batch, touches=_touches)
        if store_catalog is not None:  # a lookup sees every batch extracted before it, as when recording inline
            store_catalog.before_lookup = recorder.drain
            store_catalog.in_flight = recorder.in_flight
        try:
            if artifacts is not None:
                _ingest_dbt(artifacts, lineage, base, store_catalog, default_catalog, recorder, totals, run_at)
            # read and split every SQL file first (the order and the progress total need their statements);
            # each statement is parsed when it is taken, by the order and again by extraction (but the
            # order's first TREE_BUDGET characters, kept for extraction), so memory is bounded however
            # large the project, and its events wait in the recorder's batches only
            project: list[tuple[ProjectFile, str, ScriptPieces]] = []
            budget = TreeBudget(TREE_BUDGET)  # trees the order parses that extraction then takes as they are
            task = progress.add_task("reading", total=None, rate="")
            for pf in collect_files(sql_paths, root_dir) if sql_paths else []:
                project_files.append(pf)
                progress.update(task, description=f"reading {pf.relpath}")
                totals.files += 1
                try:
                    text = pf.path.read_text(encoding="utf-8-sig")
                    project.append((pf, text, ScriptPieces(text, dialect, keep=budget)))
                except (OSError, UnicodeError) as exc:
                    totals.fail(str(pf.path), exc)
            if order is Order.deps and len(project) > 1:
                cycle = sort_into_order(project, dialect, default_db, default_catalog)
                if cycle:
                    console.print(cycle, style="yellow", markup=False, highlight=False, soft_wrap=True)
            budget.close()
            timing.total = sum(len(p) for _, _, p in project)
            progress.update(task, total=timing.total, completed=0)
            writing = progress.add_task("recording", total=0, rate="")
            timing.started_extraction()
            context = new_context()
            for pf, text, pieces in project:
                if session_per_file:
                    context = new_context()
                progress.update(task, description=f"ingesting {pf.relpath}")
                names = FileJobNames(pf.relpath)
                names_in[pf.relpath] = names
                extracted = [0]  # events of this file handed to the recorder
                ordinal = [0]  # statements of this file so far

                def step(
                    outcome: StatementOutcome,
                    pf: ProjectFile = pf,
                    names: FileJobNames = names,
                    extracted: list[int] = extracted,
                    ordinal: list[int] = ordinal,
                ) -> None:
                    s = outcome.result
                    totals.statements += 1
                    hint.statement(s, str(pf.path), ordinal[0])
                    ordinal[0] += 1
                    where = f"{pf.path}:{s.line}"
                    names.update(_job_names(outcome))
                    items = []
                    for table, schema in outcome.defined:
                        columns = tuple((c.name, c.type) for c in schema.columns)
                        definition = TableDefinition(table, columns, s.sql, pf.relpath, s.line)
                        items.append(Item(where, DEFINITION, definition))
                    if s.failed:
                        names_in[pf.relpath] = None  # its job, and the ordinals after it, are not known
                        totals.fail(where, s.error.message if s.error else "failed")
                    elif not s.events and s.skip_reason:
                        totals.skipped += 1
                    for e in outcome.events:
                        _note_status(totals, where, e)
                        items.append(Item(where, EVENT, e))
                    totals.events += len(outcome.events)
                    extracted[0] += len(outcome.events)
                    for k, item in enumerate(items):
                        recorder.add(item, done=1 if k == len(items) - 1 else 0)
                    if not items:
                        recorder.count(1)
                    progress.update(task, advance=1, rate=_rate(progress, task))
                    rate = _rate(progress, writing, "event")
                    progress.update(writing, total=totals.events, completed=recorder.written, rate=rate)
                    flag.check()  # Ctrl-C: stop after this statement, once its events are recorded

                try:
                    context.extract(pf.relpath, text, pieces, on_statement=step)
                except Exception as exc:  # an extractor bug: name it, go on with the next file
                    totals.fail(str(pf.path), exc)
                    names_in[pf.relpath] = None
                recorder.cut()  # a batch never spans two files
                if store_catalog is not None:  # what this file's items may have changed of its answers
                    store_catalog.refresh(recorder.touched)
                recorder.touched.clear()  # (kept by file only: a run of 100,000 statements keeps none)
            for path in event_paths:
                progress.update(task, description=f"ingesting {path.name}")
                totals.files += 1
                try:
                    items = _read_events(path, totals)
                except Exception as exc:  # unreadable file, not UTF-8…
                    totals.fail(str(path), exc)
                    items = []
                totals.events += len(items)
                totals.openlineage += sum(1 for i in items if i.kind == OPENLINEAGE)
                for item in items:
                    recorder.add(item)
                    flag.check()
                recorder.cut()
                recorder.touched.clear()
            timing.extraction_s = timing.since_extraction()
            recorder.close()
        except Interrupted as stop:
            recorder.close()  # what was extracted is recorded: the next run starts after it
            progress.stop()
            total = timing.total or totals.statements
            console.print(
                interrupted_line(totals.statements, total, recorder.done_count),
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(stop.code) from None
        except RecordingStopped as exc:  # killed, out of memory: the batches it committed stay
            recorder.abandon()
            progress.stop()
            console.print(f"error: {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        except BaseException:
            recorder.abandon()
            raise
        finally:
            if store_catalog is not None:
                store_catalog.before_lookup = store_catalog.in_flight = None
            writer.close()
    if hint.message:
        from headwater.cli.display import stderr_console, warn

        warn(hint.message, stderr_console())
    timing.recording_s = recorder.busy_s
    timing.in_process = writer.moved_after if writer.process is not None else None
    timing.wall_s = time.perf_counter() - timing.started
    _close_left_jobs(lineage, names_in, totals, run_at)
    if prune:
        under = _relative_dir(project_root(sql_paths), root_dir)
        totals.pruned = lineage.prune_files([pf.relpath for pf in project_files], under, at=run_at).jobs
    _summary(console, totals)
    console.print(timing.line(totals), markup=False, highlight=False, soft_wrap=True)
    if totals.failed or (strict and totals.incomplete):
        raise typer.Exit(1)


def _dbt_artifacts(path: Path, files: list[Path], console: Console) -> tuple[Artifacts, str]:
    """The artifacts of ``--dbt`` and the adapter's dialect; exit 2 with one line when unreadable."""
    from headwater.project.dbt import DbtArtifactError, load_artifacts, read_manifest

    if any(not _event_suffix(p) for p in files):
        console.print("error: --dbt reads the project's artifacts: give no SQL files with it", style="red")
        raise typer.Exit(2)
    try:
        artifacts = load_artifacts(path)
    except DbtArtifactError as exc:
        console.print(f"error: --dbt {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    return artifacts, read_manifest(artifacts.manifest).dialect


def _ingest_dbt(
    artifacts: Artifacts,
    lineage: LineageStore,
    base: Catalog | None,
    store_catalog: StoreCatalog | None,
    default_catalog: str,
    recorder: Recorder,
    totals: IngestTotals,
    at: int,
) -> None:
    """Record a dbt project's lineage (``headwater.project.dbt``): its jobs' events in dependency
    order, failed runs as run states, the project's node properties; then close the jobs of models
    no longer in the project."""
    from headwater.project.dbt import PROPERTY_PREFIX, extract_dbt, property_updates

    totals.files += 1
    try:
        extraction = extract_dbt(
            artifacts, base, default_catalog=default_catalog, recorded_views=store_catalog if store_catalog else ()
        )
    except Exception as exc:  # an extractor bug: name it, record nothing of the project
        totals.fail(str(artifacts.target / "manifest.json"), exc)
        return
    items: list[Item] = []
    for m in extraction.models:
        totals.statements += 1
        result = m.outcome.result if m.outcome else None
        if result is not None and result.failed:
            totals.fail(m.relpath, result.error.message if result.error else "failed")
        elif not m.events:
            totals.skipped += 1
            if m.not_recorded:
                totals.note(totals.problems, f"{m.relpath}: {m.node.unique_id}: {m.not_recorded}")
        for e in m.events:
            _note_status(totals, m.relpath, e)
            items.append(Item(m.relpath, EVENT, e))
    runs = [Item(f"{artifacts.target}/run_results.json", OPENLINEAGE, e) for e in extraction.run_events]
    totals.events += len(items) + len(runs)
    totals.openlineage += len(runs)
    for item in items:
        recorder.add(item, done=1)
    recorder.cut()
    for item in runs:
        recorder.add(item)
    recorder.sync()  # the properties and the closing after the project's events
    lineage.set_node_properties(property_updates(extraction.properties), PROPERTY_PREFIX)
    project = extraction.manifest.project
    totals.removed_models = lineage.prune_files(extraction.files, under=project, at=at).jobs


def _touches(item: Item) -> tuple[Hashable, ...]:
    """What recording ``item`` may change of the store's answers as a catalog (``StoreCatalog``)."""
    if item.kind == EVENT:
        return table_key(item.value.target.table), job_key(item.value)
    if item.kind == DEFINITION:
        return (table_key(item.value.table),)
    return (ANY,)


def _job_names(outcome: StatementOutcome) -> set[str]:
    """The job names a statement of a project file has (one per target of a multi-insert)."""
    names = {outcome.job} if outcome.job else set()
    for e in outcome.events:
        name = e.context.external_catalog_properties.get(JOB_PROPERTY)
        if name:
            names.add(name)
    return names


def _close_left_jobs(
    lineage: LineageStore, names_in: dict[str, FileJobNames | None], totals: IngestTotals, at: int
) -> None:
    """Close the jobs of each file ingested that are no longer in it, once every file is recorded (a
    statement moved to another file under its ``-- name:`` belongs to that file by then). A file with
    a statement that failed is left alone: its broken statement is not a removed one."""
    for relpath, names in names_in.items():
        if names is None:
            totals.kept_open.append(relpath)
        else:
            totals.closed.extend(lineage.close_jobs(relpath, names, at=at).jobs)


def _relative_dir(directory: Path, root: Path) -> str:
    """``directory`` relative to ``root``, ``/``-separated; "" for the root itself or outside it.

    >>> [_relative_dir(Path(d), Path("/w")) for d in ("/w/marts", "/w", "/x")]
    ['marts', '', '']
    """
    try:
        rel = directory.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel


def _names(jobs: list[str], shown: int = 10) -> str:
    more = f", … and {len(jobs) - shown} more" if len(jobs) > shown else ""
    return ", ".join(jobs[:shown]) + more


def _summary(console: Console, totals: IngestTotals) -> None:
    table = Table(title="ingest", show_header=True)
    for col in COLUMNS:
        table.add_column(col, justify="right")
    table.add_row(*(str(getattr(totals, c)) for c in COLUMNS))
    console.print(table)
    if totals.openlineage:
        console.print(f"of the events, OpenLineage RunEvents: {totals.openlineage}")
    plain = {"markup": False, "highlight": False, "soft_wrap": True}
    if totals.defined:
        console.print(f"table definitions recorded (DDL, for later statements to bind): {totals.defined}", **plain)
    if totals.closed:
        console.print(f"jobs closed, no longer in their file: {len(totals.closed)} ({_names(totals.closed)})", **plain)
    if totals.pruned:
        console.print(
            f"jobs closed, their file no longer in the project (--prune): {len(totals.pruned)} "
            f"({_names(totals.pruned)})",
            **plain,
        )
    if totals.removed_models:
        gone = totals.removed_models
        console.print(f"jobs closed, their model no longer in the dbt project: {len(gone)} ({_names(gone)})", **plain)
    if totals.kept_open:
        console.print(
            f"jobs not closed in {', '.join(totals.kept_open)}: a statement failed (fix it and ingest again)",
            style="yellow",
            **plain,
        )
    if totals.incomplete:
        statuses = ", ".join(f"{n} {status}" for status, n in sorted(totals.incomplete.items()))
        codes = ", ".join(f"{code} {n}" for code, n in sorted(totals.codes.items(), key=lambda kv: (-kv[1], kv[0])))
        console.print(
            f"not COMPLETE: {statuses}" + (f"; by diagnostic: {codes}" if codes else ""),
            style="yellow",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    listed = [*totals.problems, *totals.incomplete_where]
    for p in listed[:SHOWN]:
        console.print(p, style="yellow", soft_wrap=True, markup=False, highlight=False)
    if len(listed) + totals.unlisted > SHOWN:
        console.print(f"… and {len(listed) + totals.unlisted - SHOWN} more", style="yellow")


def register(app: typer.Typer) -> None:
    """Add ``headwater ingest`` to ``app``."""
    app.command()(ingest)
