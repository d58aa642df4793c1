"""A ``DiffReport`` as a pull-request comment (GitHub-flavoured Markdown): the verdict and its reasons
first, then one collapsible section per changed table with its columns, their edges and the paths
to each column downstream of them."""

from __future__ import annotations

from headwater.diff.changes import ColumnChange, DiffReport, Verdict, strongest
from headwater.diff.formats.json_report import counts

ICON = {Verdict.BREAKING: "🔴", Verdict.POSSIBLY_BREAKING: "🟡", Verdict.SAFE: "🟢"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _where(c: ColumnChange) -> str:
    return f"`{c.file}:{c.line}`" if c.file else ""


def _short(column: str, table: str) -> str:
    return column[len(table) + 1 :] if column.startswith(table + ".") else column


def _edges(c: ColumnChange) -> list[str]:
    out = [
        f"- changed: `{e.source}` {e.old_subtype} `{e.old_expression}` → {e.new_subtype} `{e.new_expression}`"
        for e in c.changed
    ]
    if c.renamed_to:
        return [f"- every edge moved to `{_short(c.renamed_to, c.table)}` in the same statement"]
    whole = c.kind.value in ("added", "removed")  # the statement's joins and filters: counted
    for verb, edges in (("added", c.added), ("removed", c.removed)):
        shown = [e for e in edges if not whole or e.dependency == "DIRECT"]
        out += [f"- {verb}: `{e.source}` {e.dependency} {e.subtype} `{e.expression}`" for e in shown]
        if len(shown) < len(edges):
            out.append(
                f"- {verb}: {len(edges) - len(shown)} INDIRECT edge(s) of the statement's joins, filters, grouping"
            )
    return out


def _downstream(c: ColumnChange) -> list[str]:
    if c.impact is None or not c.impact.readers:
        return []
    out = [f"Downstream of `{_short(c.column, c.table)}` ({c.impact.change_type}, severity {c.impact.severity}):", ""]
    for r in c.impact.readers:
        mark = " — **breaks**" if r.broken else ""
        out.append(f"- `{' → '.join(r.path)}` ({r.dependency}){mark}")
    groups = [f"{g.count} {g.type} ({g.severity})" for g in c.impact.groups if g.type != "FIELD"]
    if groups:
        out += ["", "Affected: " + ", ".join(groups)]
    return out


def _table_section(table: str, changes: list[ColumnChange]) -> list[str]:
    verdict = strongest([c.verdict for c in changes])
    lines = [
        "<details>",
        f"<summary>{ICON[verdict]} <b>{table}</b>: {verdict.value}, {len(changes)} column(s) changed</summary>",
        "",
        "| column | change | verdict | statement | why |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in changes:
        kind = c.kind.value + (f" → `{_short(c.renamed_to, c.table)}`" if c.renamed_to else "")
        lines.append(f"| `{_short(c.column, table)}` | {kind} | {c.verdict.value} | {_where(c)} | {_cell(c.reason)} |")
    for c in changes:
        body = _edges(c) + ([""] if c.impact and c.impact.readers else []) + _downstream(c)
        if body:
            lines += ["", f"**`{_short(c.column, table)}`**", "", *body]
    lines += ["", "</details>", ""]
    return lines


def render_markdown(report: DiffReport) -> str:
    n = counts(report)
    lines = [
        f"## {ICON[report.verdict]} headwater diff: {report.verdict.value}",
        "",
        f"`{report.old}` → `{report.new}`; downstream read from `{report.impact_from}`.",
        f"{n['BREAKING']} breaking, {n['POSSIBLY_BREAKING']} possibly breaking, {n['SAFE']} safe column change(s); "
        f"{n['problems']} statement(s) no longer extract.",
        "",
    ]
    if report.reasons:
        lines += ["**Why**", "", *(f"- {_cell(r)}" for r in report.reasons), ""]
    if report.problems:
        lines += ["### Statements that no longer extract", ""]
        lines += [f"- `{p.location}` ({p.job}): {p.code}: {_cell(p.message)}" for p in report.problems]
        lines.append("")
    if report.columns:
        lines += ["### Changed tables", ""]
        for table, changes in report.by_table.items():
            lines += _table_section(table, changes)
    if report.tables:
        lines += ["### Tables added or removed", ""]
        lines += [f"- {t.kind}: `{t.table}` ({len(t.columns)} column(s))" for t in report.tables]
        lines.append("")
    if report.jobs:
        lines += ["### Jobs", "", "| job | change | before | after |", "| --- | --- | --- | --- |"]
        for j in report.jobs:
            before = f"`{j.old_file}:{j.old_line}`" if j.old_file else ""
            after = f"`{j.new_file}:{j.new_line}`" if j.new_file else ""
            name = f"`{j.job}`" + (f" (was `{j.moved_from}`)" if j.moved_from else "")
            lines.append(f"| {name} | {j.kind} | {before} | {after} |")
        lines.append("")
    if not (report.columns or report.jobs or report.problems):
        lines += ["No lineage changed.", ""]
    return "\n".join(lines)
