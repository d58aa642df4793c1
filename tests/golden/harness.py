"""Runs a golden case and renders its lineage in the compact, deterministic form of the expected files.

A case is ``cases/<dialect>/<name>.sql``. Its leading ``-- key: value`` comment lines set the options:

- ``dialect`` (default: the directory name), ``database`` (session database, default none),
- ``statements`` (``doris`` or ``all``, default ``doris``), ``catalog`` (default ``internal``),
- ``schema`` (a schema file beside the case; default ``<name>.schema.yaml`` / ``.json`` when present).

The expected file is ``<name>.expected.yaml`` beside it; ``render`` gives the text it must equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from headwater.catalog import load_schema_file
from headwater.extract import ExtractOptions, Extractor, ScriptResult
from headwater.extract.reuse import StatementReuse
from headwater.model import ColumnRef, Diagnostic, IndirectLineage, LineageInfo, TableRef

ROOT = Path(__file__).resolve().parent
CASES = ROOT / "cases"
HEADER = "# Golden lineage, compared exactly by tests/golden/test_golden.py. Review every change (README.md).\n"
_OPTION = re.compile(r"^--\s*(dialect|database|statements|schema|catalog)\s*:\s*(\S+)\s*$")


@dataclass(frozen=True)
class Case:
    path: Path

    @property
    def id(self) -> str:
        """``<dialect dir>/<name>``, the name used by ``--only`` and by the xfail table."""
        return f"{self.path.parent.name}/{self.path.stem}"

    @property
    def expected_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".expected.yaml")

    def options(self) -> dict[str, str]:
        opts = {"dialect": self.path.parent.name, "statements": "doris", "catalog": "internal"}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            m = _OPTION.match(line.strip())
            if m is None:
                if line.lstrip().startswith("--"):
                    continue
                break
            opts[m.group(1)] = m.group(2)
        if "schema" not in opts:
            for ext in ("yaml", "json"):
                candidate = self.path.with_name(f"{self.path.stem}.schema.{ext}")
                if candidate.exists():
                    opts["schema"] = candidate.name
        return opts


def all_cases(pattern: str | None = None) -> list[Case]:
    """Every case, sorted; ``pattern`` keeps those whose id contains it (or matches it as a glob)."""
    cases = [Case(p) for p in sorted(CASES.glob("*/*.sql"))]
    if pattern:
        from fnmatch import fnmatch

        cases = [c for c in cases if pattern in c.id or fnmatch(c.id, pattern)]
    return cases


# ---------------------------------------------------------------------- rendering


def _part(s: str | None) -> str:
    s = "" if s is None else s
    return f'"{s}"' if (not s or re.search(r"[.\s\"<,\[\]]", s)) else s


def table(t: TableRef) -> str:
    """``db.name``; the catalog is written only when it is not ``internal``."""
    parts = [] if t.catalog == "internal" else [t.catalog]
    if t.database is not None:
        parts.append(t.database)
    parts.append(t.name)
    return ".".join(_part(p) for p in parts)


def column(c: ColumnRef) -> str:
    return f"{table(c.table)}.{_part(c.column)}"


def _indirect(i: IndirectLineage, with_target: bool) -> str:
    head = f"{i.target_column} | " if with_target else ""
    reads = ", ".join(column(c) for c in i.sources)
    return f"{head}{i.type.value} {i.expression} <- [{reads}]"


def diagnostic(d: Diagnostic) -> str:
    s = f"{d.code} {d.severity.value} @{d.line}:{d.column}"
    if d.target_column is not None:
        s += f" target={d.target_column}"
    if d.construct is not None:
        s += f" construct={d.construct}"
    return s


def event(e: LineageInfo) -> dict[str, Any]:
    out: dict[str, Any] = {
        "command": e.source_command.value,
        "target": table(e.target.table),
        "columns": [f.name if f.type is None else f"{f.name} {f.type}" for f in e.target.columns],
        "sources": [table(t) for t in e.sources],
    }
    if e.via:
        out["via"] = [table(t) for t in e.via]
    out["status"] = e.status.value
    direct = []
    for d in e.direct:
        entry: dict[str, Any] = {"column": d.target_column}
        if d.branch:
            entry["branch"] = d.branch
        entry["expr"] = d.expression
        entry["type"] = d.type.value
        entry["origin"] = d.origin.value
        entry["reads"] = [column(c) for c in d.sources]
        inputs = []
        for i in d.inputs:
            s = column(i.column)
            if i.labels:
                s += " [" + " ".join(i.labels) + "]"
            if i.masking:
                s += " masking"
            inputs.append(s)
        entry["inputs"] = inputs
        direct.append(entry)
    out["direct"] = direct
    if e.dataset_indirect:
        out["dataset_indirect"] = [_indirect(i, False) for i in e.dataset_indirect]
    if e.output_indirect:
        out["output_indirect"] = [_indirect(i, True) for i in e.output_indirect]
    if e.diagnostics:
        out["diagnostics"] = [diagnostic(d) for d in e.diagnostics]
    if e.context.external_catalog_properties:
        out["properties"] = dict(e.context.external_catalog_properties)
    return out


def _first_line(sql: str) -> str:
    lines = [ln.strip() for ln in sql.strip().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("--")] or [""]
    text = lines[0]
    return text if len(text) <= 90 else text[:87] + "..."


def case_extractor(case: Case, reuse: StatementReuse | None = None) -> Extractor:
    """A fresh extractor session with the case's options (dialect, schema, statements, session)."""
    opts = case.options()
    catalog = None
    if "schema" in opts:
        catalog = load_schema_file(case.path.with_name(opts["schema"]), dialect=opts["dialect"])
    return Extractor(
        catalog,
        ExtractOptions(dialect=opts["dialect"], statements=opts["statements"]),
        database=opts.get("database"),
        catalog_name=opts["catalog"],
        reuse=reuse,
    )


def extract_case(case: Case) -> ScriptResult:
    """The case's script extracted with its options."""
    return case_extractor(case).run(case.path.read_text(encoding="utf-8"))


def run_case(case: Case) -> dict[str, Any]:
    opts = case.options()
    result = extract_case(case)
    statements = []
    for s in result.statements:
        entry: dict[str, Any] = {"stmt": s.index, "at": f"{s.line}:{s.column}", "sql": _first_line(s.sql)}
        entry["kind"] = s.kind
        if s.skip_reason is not None:
            entry["skip"] = s.skip_reason.split(":", 1)[0]
        if s.error is not None:
            entry["error"] = diagnostic(s.error)
        if s.events:
            entry["events"] = [event(e) for e in s.events]
        statements.append(entry)
    head = {k: opts[k] for k in ("dialect", "database", "statements", "schema") if k in opts}
    return {"case": case.id, **head, "results": statements}


class _Dumper(yaml.SafeDumper):
    """Block style everywhere, except a short list of scalars, which stays on one line; no line folding."""


def _list(dumper: yaml.SafeDumper, data: list) -> yaml.Node:
    short = all(isinstance(x, str | int) for x in data) and sum(len(str(x)) + 2 for x in data) <= 100
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=short)


def _dict(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
    flat = all(isinstance(v, str | int) for v in data.values())
    short = flat and sum(len(str(k)) + len(str(v)) + 4 for k, v in data.items()) <= 200
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=short)


_Dumper.add_representer(list, _list)
_Dumper.add_representer(dict, _dict)


def render(case: Case) -> str:
    """The expected-file text for the case as headwater extracts it now."""
    return HEADER + yaml.dump(
        run_case(case), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100_000, default_flow_style=False
    )


def count_statements(text: str) -> int:
    return len(yaml.safe_load(text)["results"])
