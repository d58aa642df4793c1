"""A ``DiffReport`` for a terminal: a rich table per changed table (its columns, the change, the
verdict, how many columns read it downstream, why), then the statements that no longer extract, the
jobs that changed and the verdict."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from headwater.diff.changes import ColumnChange, DiffReport, Verdict, strongest
from headwater.diff.formats.json_report import counts

STYLE = {Verdict.BREAKING: "bold red", Verdict.POSSIBLY_BREAKING: "yellow", Verdict.SAFE: "green"}
PLAIN = {"markup": False, "highlight": False, "soft_wrap": True}


def _table(name: str, changes: list[ColumnChange]) -> Table:
    verdict = strongest([c.verdict for c in changes])
    title = Text.assemble((name, "bold"), ": ", (verdict.value, STYLE[verdict]))
    table = Table(title=title, title_justify="left", show_header=True, header_style="bold", expand=True)
    table.add_column("column", overflow="fold", max_width=28)
    table.add_column("change", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("down", justify="right", no_wrap=True)
    table.add_column("why", overflow="fold", ratio=1)
    for c in changes:
        short = c.column[len(name) + 1 :] if c.column.startswith(name + ".") else c.column
        readers = len(c.impact.readers) if c.impact else 0
        table.add_row(Text(short), c.kind.value, Text(c.verdict.value, STYLE[c.verdict]), str(readers), Text(c.reason))
    return table


def print_table(report: DiffReport, console: Console) -> None:
    console.print(f"{report.old} → {report.new} (downstream read from {report.impact_from})", **PLAIN)
    for name, changes in report.by_table.items():
        console.print(_table(name, changes))
    for p in report.problems:
        console.print(f"{p.location}: {p.code}: {p.message}", style="red", **PLAIN)
    for t in report.tables:
        console.print(f"table {t.kind}: {t.table} ({len(t.columns)} columns)", **PLAIN)
    for j in report.jobs:
        file, line = (j.new_file, j.new_line) if j.new_file else (j.old_file, j.old_line)
        where = f" {file}:{line}" if file else ""
        was = f" (was {j.moved_from})" if j.moved_from else ""
        console.print(f"job {j.kind}: {j.job}{was}{where}", **PLAIN)
    if not (report.columns or report.jobs or report.problems):
        console.print("no lineage changed", **PLAIN)
    n = counts(report)
    console.print(
        Text.assemble(
            "verdict: ",
            (report.verdict.value, STYLE[report.verdict]),
            f" ({n['BREAKING']} breaking, {n['POSSIBLY_BREAKING']} possibly breaking, {n['SAFE']} safe; "
            f"{n['problems']} statement(s) no longer extract)",
        )
    )
