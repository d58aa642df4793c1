"""Terminal rendering of events: the guide's five sections as rich tables."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from headwater.extract import ScriptResult, StatementResult
from headwater.model import LineageInfo


def _table(title: str, *columns: str) -> Table:
    t = Table(title=title, title_justify="left", title_style="bold", show_lines=False, expand=False)
    for c in columns:
        t.add_column(c, overflow="fold")
    return t


def _cols(refs: tuple) -> str:
    return ", ".join(f"{r.table.name}.{r.column}" for r in refs)


def render_event(console: Console, e: LineageInfo) -> None:
    """Print one event: table lineage, direct, dataset indirect, output indirect, context."""
    target = e.target.table
    console.rule(f"[bold]{e.context.source_command.value}[/] → {target.qualified}  status={e.status.value}")
    t = _table("Table lineage", "Source table", "Target table")
    for s in e.sources:
        t.add_row(s.qualified, target.qualified)
    console.print(t)

    t = _table("Direct column lineage", "Target column", "Source expression", "Type", "Origin", "DIRECT inputs")
    for d in e.direct:
        name = f"{target.name}.{d.target_column}" + (f" [branch {d.branch}]" if d.branch else "")
        inputs = "; ".join(
            f"{i.column.table.name}.{i.column.column}"
            + (f" ({', '.join(i.labels)})" if i.labels else "")
            + (" masked" if i.masking else "")
            for i in d.inputs
        )
        t.add_row(name, d.expression, d.type.value, d.origin.value, inputs or "—")
    console.print(t)

    t = _table("Dataset indirect lineage", "Type", "Source expression", "Source columns")
    for i in e.dataset_indirect:
        t.add_row(i.type.value, i.expression, _cols(i.sources))
    console.print(t)

    t = _table("Output indirect lineage", "Target column", "Type", "Source expression", "Source columns")
    for i in e.output_indirect:
        t.add_row(f"{target.name}.{i.target_column}", i.type.value, i.expression, _cols(i.sources))
    console.print(t)

    c = e.context
    t = _table("Query context", "Field", "Value")
    props = ", ".join(f"{k}={v}" for k, v in c.external_catalog_properties.items()) or "{}"
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
        t.add_row(k, v)
    console.print(t)
    if e.diagnostics:
        t = _table("Diagnostics", "Severity", "Code", "Where", "Message")
        for d in e.diagnostics:
            t.add_row(d.severity.value, d.code, f"{d.line}:{d.column}" if d.line else "—", d.message)
        console.print(t)


def statement_head(s: StatementResult) -> str:
    first = " ".join(s.sql.split())[:70]
    return f"statement {s.index + 1} (line {s.line}): {first}"


def render_skips(console: Console, result: ScriptResult, explain: bool) -> None:
    """Say which statements made no event and why (with ``explain``: every one)."""
    for s in result.statements:
        if s.error is not None:
            d = s.error
            where = f"line {d.line}, column {d.column}" if d.line else f"line {s.line}"
            console.print(f"[red]error[/] in statement {s.index + 1} at {where}: {d.message}")
        elif explain and s.skip_reason:
            console.print(f"[dim]no event[/] {statement_head(s)} — {s.skip_reason}")
