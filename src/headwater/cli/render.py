"""Terminal rendering of extraction results.

The default is compact: one block per statement (what it writes, from what, each target column's
expression, the indirect lineage) with empty parts left out. ``verbose`` prints the guide's five
sections in full, the query context included. Every name and expression is literal text
(``display.lit`` / ``DottedName``): nothing from the SQL is read as rich markup.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from headwater.cli.display import DottedName, Namer, first_words, line, lit
from headwater.cli.fit import Cell, SqlText, fit
from headwater.extract import ScriptResult, StatementResult
from headwater.model import LineageInfo
from headwater.model.event import ColumnRef, TableRef
from headwater.model.job import JOB_FILE_PROPERTY, JOB_LINE_PROPERTY, JOB_PROPERTY
from headwater.model.storage import is_storage, storage_uri


def _table(title: str, *columns: str) -> Table:
    t = Table(title=lit(title, "bold"), title_justify="left", show_lines=False, expand=False)
    for c in columns:
        t.add_column(lit(c))
    return t


class _Names:
    """Table and column names of one event, relative to its session catalog and database."""

    def __init__(self, e: LineageInfo) -> None:
        refs = [e.target.table, *e.sources]
        self.namer = Namer(e.context.catalog, e.context.database, (self._full(r) for r in refs))

    @staticmethod
    def _full(ref: TableRef) -> str:
        if is_storage(ref):  # a path: its URI
            return storage_uri(ref)
        return ".".join(p for p in (ref.catalog, ref.database, ref.name) if p)

    def table(self, ref: TableRef) -> str:
        return self.namer.short(self._full(ref))

    def column(self, c: ColumnRef) -> str:
        return f"{storage_uri(c.table) if is_storage(c.table) else c.table.name}.{c.column}"

    def columns(self, refs: tuple[ColumnRef, ...]) -> str:
        return ", ".join(self.column(r) for r in refs)


def _header(console: Console, e: LineageInfo, names: _Names, where: str) -> None:
    status = e.status.value
    style = {"COMPLETE": "green", "PARTIAL": "yellow"}.get(status, "red")
    title = line(
        Text(e.context.source_command.value, style="bold"),
        " → ",
        names.table(e.target.table),
        "  ",
        Text(status, style=style),
        f"  ({where})" if where else "",
    )
    if len(title.plain) + 4 <= console.width:
        console.rule(title, align="left")
    else:  # a rule would cut the title with an ellipsis: the title wraps at its spaces instead
        console.print(title)


def _diagnostics(
    console: Console, e: LineageInfo, least: tuple[str, ...] = ("ERROR", "WARNING", "INFO"), per_code: int = 0
) -> None:
    """The event's diagnostics of the ``least`` severities; with ``per_code``, at most that many of each code."""
    shown: dict[str, int] = {}
    for d in e.diagnostics:
        if d.severity.value not in least:
            continue
        shown[d.code] = shown.get(d.code, 0) + 1
        if per_code and shown[d.code] > per_code:
            continue
        where = f"line {d.line}, column {d.column}: " if d.line else ""
        style = {"ERROR": "red", "WARNING": "yellow"}.get(d.severity.value, "dim")
        console.print(line(Text(d.severity.value.lower(), style=style), f" {d.code}: ", where, d.message))
    for code, n in shown.items():
        if per_code and n > per_code:
            console.print(lit(f"… and {n - per_code} more {code} (--verbose lists every one)", "dim"))


def render_compact(console: Console, e: LineageInfo, where: str = "") -> None:
    """One block: header, sources, one row per target column, the indirect lineage; empty parts omitted."""
    names = _Names(e)
    _header(console, e, names, where)
    if e.sources:
        console.print(line(Text("from ", style="dim"), ", ".join(names.table(s) for s in e.sources)))
    if e.direct:
        t = Table(show_lines=False, expand=False, box=None, pad_edge=False, header_style="bold")
        for c in ("column", "lineage", "expression"):
            t.add_column(c)
        rows = []
        for d in e.direct:
            name = d.target_column + (f" (branch {d.branch})" if d.branch else "")
            kind = d.type.value if d.origin.value == "COLUMN" else f"{d.type.value} {d.origin.value}"
            rows.append((name, kind, SqlText(d.expression)))
        console.print(fit(console, t, rows))
    indirect = [("", i.type.value, i.expression) for i in e.dataset_indirect]
    indirect += [(i.target_column, i.type.value, i.expression) for i in e.output_indirect]
    if indirect:
        t = Table(show_lines=False, expand=False, box=None, pad_edge=False, header_style="bold")
        for c in ("indirect", "for", "expression"):
            t.add_column(c)
        console.print(fit(console, t, [(kind, col or "(all rows)", SqlText(expr)) for col, kind, expr in indirect]))
    _diagnostics(console, e, ("ERROR", "WARNING"), per_code=3)
    console.print()


def render_event(console: Console, e: LineageInfo, where: str = "") -> None:
    """Print one event in full: table lineage, direct, dataset indirect, output indirect, context."""
    names = _Names(e)
    _header(console, e, names, where)
    target = names.table(e.target.table)
    t = _table("Table lineage", "Source table", "Target table")
    console.print(fit(console, t, [(DottedName(names.table(s)), DottedName(target)) for s in e.sources]))

    t = _table("Direct column lineage", "Target column", "Source expression", "Type", "Origin", "DIRECT inputs")
    rows: list[tuple[Cell, ...]] = []
    for d in e.direct:
        name = f"{e.target.table.name}.{d.target_column}" + (f" (branch {d.branch})" if d.branch else "")
        inputs = "; ".join(
            names.column(i.column)
            + (f" ({', '.join(i.labels)})" if i.labels else "")
            + (" masked" if i.masking else "")
            for i in d.inputs
        )
        rows.append((DottedName(name), SqlText(d.expression), d.type.value, d.origin.value, SqlText(inputs or "—")))
    console.print(fit(console, t, rows))

    t = _table("Dataset indirect lineage", "Type", "Source expression", "Source columns")
    rows = [(i.type.value, SqlText(i.expression), SqlText(names.columns(i.sources))) for i in e.dataset_indirect]
    console.print(fit(console, t, rows))

    t = _table("Output indirect lineage", "Target column", "Type", "Source expression", "Source columns")
    rows = [
        (
            DottedName(f"{e.target.table.name}.{i.target_column}"),
            i.type.value,
            SqlText(i.expression),
            SqlText(names.columns(i.sources)),
        )
        for i in e.output_indirect
    ]
    console.print(fit(console, t, rows))

    c = e.context
    t = _table("Query context", "Field", "Value")
    props = ", ".join(f"{k}={v}" for k, v in c.external_catalog_properties.items()) or "{}"
    rows = []
    for k, v in (
        ("Source command", c.source_command.value),
        ("Query ID", c.query_id),
        ("User", c.user or "—"),
        ("Client IP", c.client_ip or "—"),
        ("Session database", c.database or "—"),
        ("Session catalog", c.catalog),
        ("State", c.state),
        ("Timestamp", c.timestamp or "—"),
        ("Duration (ms)", str(c.duration_ms)),
        ("External catalog properties", props),
        ("Event id", e.event_id),
    ):
        rows.append((k, SqlText(v)))
    console.print(fit(console, t, rows))
    if e.diagnostics:
        t = _table("Diagnostics", "Severity", "Code", "Where", "Message")
        rows = [(d.severity.value, d.code, f"{d.line}:{d.column}" if d.line else "—", d.message) for d in e.diagnostics]
        console.print(fit(console, t, rows))


def render_statements(console: Console, result: ScriptResult, verbose: bool) -> None:
    """Every event of ``result``: compact blocks, or (``verbose``) the five sections in full."""
    for s in result.statements:
        render_statement(console, s, verbose)


def render_statement(console: Console, s: StatementResult, verbose: bool, source: str = "") -> None:
    """The events of one statement, as ``render_statements`` prints them; ``source`` names its file."""
    for e in s.events:
        where = _where(e, s, source)
        if verbose:
            render_event(console, e, where)
        else:
            render_compact(console, e, where)


def _where(e: LineageInfo, s: StatementResult, source: str) -> str:
    """Where a block's statement is: ``statement 2, line 7`` of the one script; with its file
    (``source``), ``FILE:LINE``, and the job's one name when the project gave it one.

    >>> from headwater.extract import Extractor
    >>> s = Extractor().run("INSERT INTO t SELECT a FROM s").statements[0]
    >>> _where(s.events[0], s, ""), _where(s.events[0], s, "etl.sql")
    ('statement 1, line 1', 'etl.sql:1, statement 1')
    """
    props = e.context.external_catalog_properties
    if source and props.get(JOB_FILE_PROPERTY) and props.get(JOB_PROPERTY):
        return f"{props[JOB_FILE_PROPERTY]}:{props.get(JOB_LINE_PROPERTY, s.line)}, job {props[JOB_PROPERTY]}"
    if source:
        return f"{source}:{s.line}, statement {s.index + 1}"
    return f"statement {s.index + 1}, line {s.line}"


def statement_head(s: StatementResult) -> str:
    return f"statement {s.index + 1} (line {s.line}): {first_words(s.sql)}"


def render_skips(console: Console, result: ScriptResult, explain: bool) -> None:
    """Say which statements made no event and why (with ``explain``: every one)."""
    for s in result.statements:
        said = skip_line(s, explain)
        if said is not None:
            console.print(said[0], soft_wrap=said[1])


def skip_line(s: StatementResult, explain: bool) -> tuple[Text, bool | None] | None:
    """The line ``render_skips`` prints for one statement (when it failed, or with ``explain`` made no
    event) and its ``soft_wrap`` (True for an error: never wrapped; else the console's); else None."""
    if s.error is not None:
        d = s.error
        where = f"line {d.line}, column {d.column}" if d.line else f"line {s.line}"
        named = f"statement {s.index + 1} " in d.message or f"statement {s.index + 1}:" in d.message
        what = "" if named else f"statement {s.index + 1} ({first_words(s.sql)}): "
        return line(Text("error", style="red"), f" at {where}: ", what, d.message), True
    if explain and s.skip_reason:
        return line(Text("no event", style="dim"), " ", statement_head(s), " — ", s.skip_reason), None
    return None
