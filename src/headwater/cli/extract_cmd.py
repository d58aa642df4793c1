"""``headwater extract``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.text import Text

from headwater.catalog import CatalogError, open_catalog
from headwater.cli.dialect_hint import MAX_CHECKED, _signs, dialect_hint
from headwater.cli.display import fail, line, stderr_console, warn
from headwater.cli.render import render_statement, skip_line
from headwater.extract import ExtractOptions, Extractor, RunInfo, ScriptResult, StatementResult
from headwater.extract.examples import GUIDE_CLIENT_IP, GUIDE_USER, guide_script
from headwater.extract.split import iter_script, sqlglot_dialect
from headwater.model import LineageInfo, Severity, event_to_json

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    openlineage = "openlineage"
    payload = "payload"


class Lifecycle(StrEnum):
    start = "start"
    complete = "complete"


class StatementRules(StrEnum):
    doris = "doris"
    all = "all"


def read_sql_input(path: str) -> str:
    """The text of a SQL file (``-`` is standard input); the same errors as every command
    (``cli/inputs.py``): a missing or unreadable file is a usage error, binary or non-UTF-8 data a
    ``ValueError`` naming the byte."""
    from headwater.cli.inputs import text_problem

    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as err:
        fail(f"{path}: {(err.strerror or str(err)).lower()}", EXIT_USAGE)
    problem = text_problem(data)
    if problem:
        raise ValueError(f"{path}: {problem}")
    return data.decode("utf-8-sig")


def dialect_names() -> list[str]:
    """Every name ``--dialect`` takes: sqlglot's dialects, ``generic`` and ``flink``."""
    from sqlglot.dialects.dialect import Dialects

    return sorted({d.value for d in Dialects if d.value} | {"generic", "flink"})


_ALIASES = {"postgresql": "postgres", "pg": "postgres", "sparksql": "spark", "mssql": "tsql", "sqlserver": "tsql"}


def check_dialect(dialect: str, where: str = "--dialect") -> str:
    """``dialect`` if sqlglot knows it; else exit 2 with one line naming the closest valid name (``did
    you mean postgres?`` for ``postgresql``) and listing them all; ``where`` names where it was given."""
    import difflib

    from sqlglot.dialects.dialect import Dialect

    try:
        Dialect.get_or_raise(sqlglot_dialect(dialect))
    except ValueError:
        names = dialect_names()
        close = _ALIASES.get(dialect.lower()) or next(iter(difflib.get_close_matches(dialect.lower(), names, 1)), None)
        guess = f"did you mean {close}? " if close else ""
        fail(f"{where}: unknown dialect {dialect!r}; {guess}one of: {', '.join(names)}")
    return dialect


def failed_statement(s: StatementResult) -> bool:
    """True when ``s`` failed to parse or bind (an ERROR on it or on one of its events)."""
    if s.failed:
        return True
    return any(d.severity == Severity.ERROR for e in s.events for d in e.diagnostics)


class JsonArray:
    """The one JSON array of a command's events, however many files (and printers) they come from."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.count = 0

    def add(self, e: LineageInfo) -> None:
        self.out.write(("[\n" if not self.count else ",\n") + event_to_json(e, indent=2))
        self.count += 1

    def close(self) -> None:
        self.out.write("\n]\n" if self.count else "[]\n")


class StatementPrinter:
    """Writes each statement's output as it is given (``statement``), keeping none of it.

    jsonl, payload and openlineage are one line per event; json is one array, opened at its first event
    and closed by ``close``; the table format prints each statement's blocks, and at ``close`` the
    statements that failed or (``explain_skips``) made no event, which the other formats say on
    standard error as they come. The output is the same as that of the whole script at once.
    """

    def __init__(
        self,
        fmt: OutputFormat,
        console: Console,
        explain_skips: bool,
        namespace: str | None = None,
        verbose: bool = False,
        naming: object = None,
        catalog: object = None,
        engine: str | None = None,
        out: TextIO | None = None,
        lifecycle: str = Lifecycle.start,
        ddl: bool = False,
        database: str | None = None,
        catalog_name: str = "internal",
        ddl_runs: _DdlRuns | None = None,
        source: str = "",
        array: JsonArray | None = None,
    ) -> None:
        """``ddl`` (``--statements all``): table DDL as OpenLineage runs too (``_DdlRuns``), or through
        ``ddl_runs`` when given (a project's files share one: a ``USE`` holds for the files after it)."""
        self.fmt = fmt
        self._array = array or JsonArray(out)  # json: given when other printers share the array (closes it)
        self._own_array = array is None
        self.source = source  # the file the statements come from, named in each block and skip line (else "")
        self.console = console
        self.explain_skips = explain_skips
        self.verbose = verbose
        self.catalog = catalog
        self.engine = engine
        self.out = out or sys.stdout
        self.naming_kw: dict[str, object] = {"naming": naming} if naming is not None else {"namespace": namespace}
        self.events = 0
        """Events written so far."""
        self.failed = False
        """Whether a statement given so far failed to parse or bind."""
        self._skips: list[tuple[Text, bool | None]] = []  # the table format's lines for ``close``
        self._stderr = stderr_console() if fmt != OutputFormat.table else None
        self._ddl: _DdlRuns | None = None
        self._line: Callable[[LineageInfo], str]  # one event as its line (jsonl, payload, openlineage)
        if fmt == OutputFormat.payload:
            from headwater.model.payload import dumps

            self._line = dumps
        elif fmt == OutputFormat.openlineage:
            from headwater.model.openlineage import run_event_json, to_run_events

            naming = naming if naming is not None else _namespace_naming(namespace)
            if ddl_runs is not None:
                self._ddl = ddl_runs
            elif ddl:  # --statements all: table DDL as runs with the lifecycleStateChange facet
                self._ddl = _DdlRuns(naming, lifecycle, engine, database, catalog_name)
            self._line = lambda e: "\n".join(
                run_event_json(r)
                for r in to_run_events(e, naming=naming, lifecycle=lifecycle, engine=self.engine, catalog=self.catalog)
            )
        else:
            self._line = event_to_json

    def statement(self, s: StatementResult) -> None:
        """Write the output of one statement (its events, or why it made none)."""
        self.failed = self.failed or failed_statement(s)
        said = skip_line(s, self.explain_skips)
        if said is not None and self.source:
            said = (line(f"{self.source}: ", said[0]), said[1])
        if self._stderr is None:  # the table format
            render_statement(self.console, s, self.verbose, self.source)
            if said is not None:
                self._skips.append(said)
            self.events += len(s.events)
            return
        if said is not None:
            self._stderr.print(said[0], soft_wrap=said[1])
        out = self.out
        if self.fmt == OutputFormat.json:
            for e in s.events:
                self._array.add(e)
                self.events += 1
            return
        for e in s.events:
            out.write(self._line(e) + "\n")
        self.events += len(s.events)
        if self._ddl is not None and not s.events and not failed_statement(s):
            for line_ in self._ddl.lines(s):
                out.write(line_ + "\n")

    def close(self) -> None:
        """End the output: the json array's end, the table format's failed and skipped statements."""
        if self.fmt == OutputFormat.json and self._own_array:
            self._array.close()
        for text, soft_wrap in self._skips:
            self.console.print(text, soft_wrap=soft_wrap)
        self._skips.clear()


class _DdlRuns:
    """The OpenLineage runs of the table DDL of a script (``model.ol_ddl``), following ``USE``."""

    def __init__(self, naming: object, lifecycle: str, dialect: str | None, database: str | None, catalog: str) -> None:
        self.naming = naming
        self.lifecycle = lifecycle
        self.dialect = dialect or "doris"
        self.database = database
        self.catalog = catalog
        self.file = ""
        """The project file being printed (keeps the run ids of two files' statements apart)."""

    def lines(self, s: StatementResult) -> list[str]:
        from headwater.catalog import Names
        from headwater.model.ol_ddl import ddl_run_events
        from headwater.model.openlineage import run_event_json

        dialect = sqlglot_dialect(self.dialect)
        if s.kind == "use":
            import sqlglot

            try:
                used = sqlglot.parse_one(s.sql, read=dialect)
                self.database = used.this.name if used.this is not None else self.database
            except Exception:  # a USE sqlglot cannot read: the database stays
                pass
            return []
        runs = ddl_run_events(
            s.sql,
            dialect,
            self.database,
            self.catalog,
            self.naming,  # type: ignore[arg-type]
            lifecycle=self.lifecycle,
            engine=self.dialect,
            fold=Names.for_dialect(dialect).dataset_ident,
            run_key=f"{self.file}\x1f{s.index}" if self.file else f"{s.index}",
        )
        return [run_event_json(r) for r in runs]


def _namespace_naming(namespace: str | None) -> object:
    from headwater.model.ol_naming import OpenLineageNaming

    return OpenLineageNaming(default_namespace=namespace or "headwater", job_namespace=namespace or "headwater")


def print_result(
    result: ScriptResult,
    fmt: OutputFormat,
    console: Console,
    explain_skips: bool,
    namespace: str | None,
    verbose: bool = False,
    naming: object = None,
    catalog: object = None,
    engine: str | None = None,
    lifecycle: str = Lifecycle.start,
    ddl_runs: _DdlRuns | None = None,
    source: str = "",
    array: JsonArray | None = None,
) -> None:
    """Print a whole script's result (``StatementPrinter`` over its statements; ``ddl_runs``: its table
    DDL as OpenLineage runs too; ``source``: the file; ``array``: json's array when other scripts share
    it)."""
    printer = StatementPrinter(
        fmt,
        console,
        explain_skips,
        namespace,
        verbose,
        naming,
        catalog,
        engine,
        lifecycle=lifecycle,
        ddl_runs=ddl_runs,
        source=source,
        array=array,
    )
    for s in result.statements:
        printer.statement(s)
    printer.close()


class DialectWarning:
    """``dialect_hint`` fed one statement at a time: one warning (for the file, or with ``project`` for
    every file of a project run) when the first statement that reads differently under the dialect its
    syntax implies is given. ``defer``: keep it in ``message`` (a command with a progress display
    prints it after) instead of printing it at once."""

    def __init__(
        self, dialect: str, path: str = "", assumed: bool = False, project: bool = False, defer: bool = False
    ) -> None:
        self.dialect = dialect
        self.path = path
        self.assumed = assumed  # no --dialect given: the warning says which one was assumed
        self.project = project
        self.defer = defer
        self.checked = 0  # statements with a sign of another dialect seen (``dialect_hint`` stops after MAX_CHECKED)
        self.done = False
        self.message: str | None = None

    def statement(self, s: StatementResult, path: str | None = None, index: int | None = None) -> None:
        """Check ``s`` (of ``path``, else the file given at the start; ``index``: its place in that file,
        when ``s.index`` counts across the project)."""
        if self.done or not _signs(s.sql, self.dialect):
            return
        self.checked += 1
        if self.checked > MAX_CHECKED:
            self.done = True
            return
        at = s.index if index is None else index
        hint = dialect_hint([(at, s.line, s.sql)], self.dialect, self.assumed, self.project)
        if hint:
            self.message = f"{path or self.path}: {hint}"
            self.done = True
            if not self.defer:
                warn(self.message)


def extract_file(extractor: Extractor, text: str, run: RunInfo, printer: StatementPrinter, hint: DialectWarning) -> int:
    """Extract ``text`` one statement at a time, each printed (``printer``) before the next is parsed;
    the number of statements. No result is kept: memory stays flat however long the script."""
    pieces = iter_script(text, extractor.options.dialect, extractor.options.limits)
    return print_statements(extractor.run_pieces(pieces, run), printer, hint)


def print_statements(
    results: Iterable[StatementResult], printer: StatementPrinter, hint: DialectWarning, path: str | None = None
) -> int:
    """Check (``hint``) and print (``printer``, closed at the end) each statement as ``results`` gives
    it, keeping none (``path``: the file, for the warning, when ``hint`` serves several); their number."""
    n = 0
    for s in results:
        hint.statement(s, path)
        printer.statement(s)
        n += 1
    printer.close()
    return n


def _dialect_assumed(ctx: typer.Context | None) -> bool:
    """Whether ``--dialect`` was left at its default (the warning then says which dialect was assumed)."""
    source = ctx.get_parameter_source("dialect") if ctx is not None else None
    return source is not None and source.name == "DEFAULT"


def project_dialect(ctx: typer.Context | None, dialect: str) -> tuple[str, bool]:
    """The dialect to read with, and whether it is only assumed: ``--dialect`` when given, else the
    ``dialect`` that ``headwater.toml`` states for the project, else ``dialect`` (the default) assumed."""
    if not _dialect_assumed(ctx):
        return dialect, False
    from headwater.dispatch.settings import SettingsError, load_dialect

    try:
        stated = load_dialect()
    except SettingsError as exc:
        fail(str(exc))
    if stated is None:
        return dialect, True
    check_dialect(stated[0], f"{stated[1]}: dialect")
    return stated[0], False


def extract(
    files: Annotated[list[str] | None, typer.Argument(help="SQL files; '-' or nothing reads standard input.")] = None,
    dialect: Annotated[
        str, typer.Option("--dialect", help="SQL dialect: any sqlglot dialect, generic or flink.")
    ] = "doris",
    schema: Annotated[Path | None, typer.Option("--schema", help="Schema file (JSON or YAML).")] = None,
    catalog_url: Annotated[
        str | None, typer.Option("--catalog-url", help="SQLAlchemy URL of a live database to bind against.")
    ] = None,
    default_db: Annotated[
        str | None, typer.Option("--default-db", help="Session database of unqualified table names.")
    ] = None,
    database_alias: Annotated[str | None, typer.Option("--database", hidden=True)] = None,
    default_catalog: Annotated[
        str, typer.Option("--default-catalog", help="Catalog of table names that name none.")
    ] = "internal",
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
    lifecycle: Annotated[
        Lifecycle,
        typer.Option(
            "--lifecycle",
            help="--format openlineage: start (START then COMPLETE or FAIL per run, one run id) or complete "
            "(one event per run).",
        ),
    ] = Lifecycle.start,
    statements: Annotated[
        StatementRules,
        typer.Option("--statements", help="Which statements make events: doris (the guide's rules) or all."),
    ] = StatementRules.doris,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Table format: every section in full, with the query context.")
    ] = False,
    explain_skips: Annotated[
        bool, typer.Option("--explain-skips", help="Say why each statement made no event.")
    ] = False,
    namespace: Annotated[
        list[str] | None,
        typer.Option(
            "--namespace",
            help="OpenLineage namespace of a catalog, CATALOG=NAMESPACE (a bare NAMESPACE: catalog internal); "
            "repeatable. Default: [openlineage.namespaces] of headwater.toml, then --catalog-url's host and port.",
        ),
    ] = None,
    query_id: Annotated[
        str | None, typer.Option("--query-id", help="Query id for the events (default: generated).")
    ] = None,
    user: Annotated[str | None, typer.Option("--user", help="User for the query context.")] = None,
    project: Annotated[
        bool,
        typer.Option(
            "--project",
            help="The files (directories: their *.sql files) as one project, as headwater ingest takes "
            "them: one session, dependency order, views as datasets, jobs FILE#N or by -- name:.",
        ),
    ] = False,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root", help="With --project: the root job names are relative to (default: the files' common directory)."
        ),
    ] = None,
    ctx: typer.Context = None,  # type: ignore[assignment]  # given by typer: was --dialect given?
) -> None:
    """Extract lineage events from SQL scripts.

    The table format prints one block per statement that makes an event (--verbose: every section);
    the other formats print events on standard output and problems on standard error.
    Exit code 0 when every statement was handled, 1 when one failed to parse or bind, 2 for usage errors.
    Without --dialect, the dialect headwater.toml states (dialect = "…"), else doris, said when it matters.
    """
    check_dialect(dialect)
    dialect, assumed = project_dialect(ctx, dialect)
    default_db = default_db or database_alias
    console = Console(highlight=False)
    try:
        catalog = open_catalog(schema, catalog_url, sqlglot_dialect(dialect), default_catalog)
    except CatalogError as err:
        fail(str(err), EXIT_USAGE)
    naming = None
    if format == OutputFormat.openlineage:
        from headwater.dispatch.settings import SettingsError, command_naming

        try:
            naming = command_naming(namespace or (), catalog_url, dialect)
        except SettingsError as err:
            fail(f"--namespace: {err}", EXIT_USAGE)
    from headwater.cli.inputs import check_inputs

    check_inputs([Path(p) for p in files or () if p != "-"], warn_empty=False)  # extract_file warns of empty ones
    if project:
        options = ExtractOptions(dialect=dialect, statements=statements.value)
        failed = _extract_project(
            files or [],
            root,
            catalog,
            options,
            default_db,
            default_catalog,
            format,
            console,
            explain_skips,
            verbose,
            naming,
            lifecycle,
            assumed,
        )
        raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)
    failed = False
    array = JsonArray()  # json: one array over every file
    for path in files or ["-"]:
        try:
            text = read_sql_input(path)
        except ValueError as err:  # standard input (files were checked above)
            fail(str(err), EXIT_USAGE)
        extractor = Extractor(
            catalog,
            ExtractOptions(dialect=dialect, statements=statements.value),
            database=default_db,
            catalog_name=default_catalog,
        )
        printer = StatementPrinter(
            format,
            console,
            explain_skips,
            None,
            verbose,
            naming,
            extractor.catalog,
            dialect,
            lifecycle=lifecycle,
            ddl=statements == StatementRules.all,
            database=default_db,
            catalog_name=default_catalog,
            source=path if len(files or []) > 1 else "",
            array=array,
        )
        hint = DialectWarning(dialect, "standard input" if path == "-" else path, assumed)
        if not extract_file(extractor, text, RunInfo(query_id=query_id, user=user), printer, hint):
            warn(f"{path}: no SQL statement")
        failed = failed or printer.failed
    if format == OutputFormat.json:
        array.close()
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _extract_project(
    files: list[str],
    root: Path | None,
    catalog: object,
    options: ExtractOptions,
    default_db: str | None,
    default_catalog: str,
    fmt: OutputFormat,
    console: Console,
    explain_skips: bool,
    verbose: bool,
    naming: object,
    lifecycle: str = Lifecycle.start,
    assumed: bool = False,
) -> bool:
    """``extract --project``: the files as one project (``headwater.project``), printed file by file in
    running order; True when a statement failed. One dialect warning for the whole project
    (``assumed``: no dialect was given)."""
    from headwater.extract.split import TREE_BUDGET, ScriptPieces, TreeBudget
    from headwater.project import ProjectContext, collect_files, project_root
    from headwater.project.order import sort_into_order

    paths = [Path(f) for f in files]
    if not paths or "-" in files:
        fail("--project needs SQL files or directories (not standard input)", EXIT_USAGE)
    dialect = options.dialect
    # as ingest: every file split first (the order needs its statements), each statement parsed when it
    # is taken, by the order and again by extraction (but the order's first TREE_BUDGET characters,
    # kept for extraction), and printed as it is extracted: memory is bounded however large the project
    project = []
    budget = TreeBudget(TREE_BUDGET)
    for pf in collect_files(paths, root or project_root(paths)):
        try:
            text = read_sql_input(str(pf.path))
        except ValueError as err:
            stderr_console().print(line(Text("error:", style="red"), " ", str(err)))
            return True
        project.append((pf, text, ScriptPieces(text, dialect, keep=budget)))
    cycle = sort_into_order(project, dialect, default_db, default_catalog)
    budget.close()
    if cycle:
        warn(cycle)
    context = ProjectContext(
        catalog,  # type: ignore[arg-type]
        dialect=dialect,
        database=default_db,
        default_catalog=default_catalog,
        statements=options.statements,
    )
    ddl_runs = None
    if fmt == OutputFormat.openlineage and options.statements == StatementRules.all:
        ddl_runs = _DdlRuns(naming or _namespace_naming(None), lifecycle, dialect, default_db, default_catalog)
    failed = False
    array = JsonArray()  # json: one array over every file
    hint = DialectWarning(dialect, assumed=assumed, project=True)
    for pf, text, pieces in project:
        if ddl_runs is not None:
            ddl_runs.file = pf.relpath
        printer = StatementPrinter(
            fmt,
            console,
            explain_skips,
            None,
            verbose,
            naming,
            context.extractor.catalog,
            dialect,
            lifecycle=lifecycle,
            ddl_runs=ddl_runs,
            source=pf.relpath,
            array=array,
        )
        # statements numbered within their file, as the header and skip lines that name the file say them
        outcomes = context.outcomes(pf.relpath, text, pieces)
        results = (replace(o.result, events=o.events, index=k) for k, o in enumerate(outcomes))
        print_statements(results, printer, hint, str(pf.path))
        failed = failed or printer.failed
    if fmt == OutputFormat.json:
        array.close()
    return failed


def run_demo() -> ScriptResult:
    """Extract the guide's example as the guide's user would run it."""
    return Extractor().run(guide_script(), RunInfo(user=GUIDE_USER, client_ip=GUIDE_CLIENT_IP))


def register(app: typer.Typer) -> None:
    app.command()(extract)
