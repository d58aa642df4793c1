"""Accuracy on production SQL: public warehouses' SQL read from local mirrors, and a hand-labelled gold set.

    python bench/realworld.py --mirrors /work/.mirror [--corpus NAME]... [--show] [--no-gold]
    python bench/realworld.py --mirror mozilla/bigquery-etl=/path/to/repo ...

Each corpus is described in ``bench/realworld/corpora.yaml`` (repository, commit, dialect, file
selection and how a file becomes SQL); the repository's SQL is never in this repository, only read
from a mirror: a bare git directory (read at the pinned commit) or a plain directory (read as it
is). ``--mirrors DIR`` finds ``DIR/<owner>+<name>/repo`` (the layout of the ``fetch`` tool);
``--mirror owner/name=PATH`` names one.

Per corpus, once without a schema and, where the corpus has one, once with it, the files are
extracted as one project (``headwater.project``: ordered by what they write and read, one
session) and the report gives statements, parse failures, event status, events with an ERROR
diagnostic (production SQL runs: every one is false), diagnostics by code, and four mechanical
silent-wrong detectors (``bench/realworld_detect.py``), with how many of their hits are on
COMPLETE events. ``bench/realworld/gold/*.yaml`` label target columns by hand (direct and
indirect inputs); they are scored with ``bench/accuracy.py``'s ``Score``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import logging
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from sqlglot import exp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy import Score, column_name, table_name
from headwater.catalog import Catalog, Names, schema_from_data
from headwater.extract.ddl import Session
from headwater.extract.result import StatementResult
from headwater.extract.split import split_script, sqlglot_dialect
from headwater.model import LineageInfo, Severity, Status
from headwater.project import ProjectContext, order_files
from headwater.project.order import tables_of
from realworld_detect import DETECTORS, Hit, detect

HERE = Path(__file__).resolve().parent / "realworld"
CORPORA = HERE / "corpora.yaml"
GOLD = HERE / "gold"


# --- corpora -----------------------------------------------------------------------------------


@dataclass
class Corpus:
    name: str
    repo: str
    commit: str | None
    dialect: str
    wrap: str  # bigquery-etl | dbt | script
    include: list[str]
    exclude: list[str] = field(default_factory=list)
    schema: str | None = None  # bigquery-etl: the schema.yaml beside each query.sql
    database: str | None = None
    statements: str = "doris"  # ExtractOptions.statements: "all" makes a SELECT an event too
    strip_comments: bool = False  # the runner strips "--" comments first (MySQL needs a space after "--")
    description: str = ""


def load_corpora(path: Path = CORPORA) -> list[Corpus]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Corpus(
            c["name"],
            c["repo"],
            c.get("commit"),
            c["dialect"],
            c["wrap"],
            list(c["include"]),
            list(c.get("exclude") or []),
            c.get("schema"),
            c.get("database"),
            c.get("statements", "doris"),
            bool(c.get("strip_comments")),
            c.get("description", ""),
        )
        for c in doc["corpora"]
    ]


class Mirror:
    """The files of a repository at a commit: a bare git directory, or a plain directory."""

    def __init__(self, path: Path, commit: str | None) -> None:
        self.path = path
        self.git = (path / "HEAD").is_file() and (path / "objects").is_dir()
        self.commit = commit or "HEAD"
        if self.git and commit:
            ok = subprocess.run(["git", "-C", str(path), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
            if ok.returncode:
                raise SystemExit(f"{path}: commit {commit} is not in the mirror (fetch it again)")

    def files(self) -> list[str]:
        if self.git:
            out = subprocess.run(
                ["git", "-C", str(self.path), "ls-tree", "-r", "--name-only", self.commit],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            return sorted(out.splitlines())
        return sorted(p.relative_to(self.path).as_posix() for p in self.path.rglob("*") if p.is_file())

    def read_many(self, paths: list[str]) -> dict[str, str]:
        if not self.git:
            return {p: (self.path / p).read_text(encoding="utf-8", errors="replace") for p in paths}
        batch = "".join(f"{self.commit}:{p}\n" for p in paths).encode()
        out = subprocess.run(
            ["git", "-C", str(self.path), "cat-file", "--batch"], input=batch, capture_output=True, check=True
        ).stdout
        texts: dict[str, str] = {}
        pos = 0
        for p in paths:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            size = int(header[2])
            texts[p] = out[end + 1 : end + 1 + size].decode("utf-8", errors="replace")
            pos = end + 1 + size + 1
        return texts


def selected(corpus: Corpus, paths: list[str]) -> list[str]:
    def match(p: str, globs: list[str]) -> bool:
        return any(fnmatch.fnmatchcase(p, g) for g in globs)

    return [p for p in paths if match(p, corpus.include) and not match(p, corpus.exclude)]


# --- turning a file into SQL ---------------------------------------------------------------------

_JINJA = re.compile(r"\{\{|\{%|\{#")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def strip_trailing_semicolons(sql: str) -> str:
    """The query without the semicolons (and comment lines) after it."""
    lines = sql.rstrip().splitlines()
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("--")):
        lines.pop()
    text = "\n".join(lines).rstrip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    return text


def only_comments_before_query(sql: str) -> bool:
    """True when the file is one query (``SELECT``/``WITH``/``(``), whatever comments come first."""
    body = _COMMENT.sub(" ", sql).strip()
    return bool(re.match(r"(?is)(select|with|\()\b", body)) and ";" not in strip_trailing_semicolons(body)


def strip_line_comments(text: str) -> str:
    """``--`` comments blanked to the end of their line (outside quotes), as a runner that strips them
    before sending the SQL does (MySQL itself needs a space after ``--``)."""
    out = []
    for line in text.splitlines():
        quote = None
        for k, ch in enumerate(line):
            if quote is None and ch in "'\"`":
                quote = ch
            elif ch == quote:
                quote = None
            elif quote is None and line.startswith("--", k):
                line = line[:k]
                break
        out.append(line)
    return "\n".join(out)


def bigquery_etl_target(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) != 5 or parts[0] != "sql":
        return None
    return f"{parts[1]}.{parts[2]}.{parts[3]}"


def wrap_bigquery_etl(path: str, text: str) -> tuple[str | None, str]:
    """``CREATE OR REPLACE TABLE `project.dataset.table` AS <query>`` (the target from the path); in a
    script (``CREATE TEMP FUNCTION …;`` first) its last statement, when a query, is wrapped so (the
    result bigquery-etl writes); another script is kept as it is."""
    if _JINJA.search(text):
        return None, "jinja"
    target = bigquery_etl_target(path)
    if target is None:
        return None, "path"
    if not only_comments_before_query(text):
        pieces = split_script(text, "bigquery")
        last = pieces[-1] if pieces else None
        start = text.rfind(last.sql) if last is not None else -1
        if last is None or not isinstance(last.tree, exp.Query) or start < 0:
            return text, "script"
        # a script (temporary functions first): its last statement's result is the table
        wrapped = f"CREATE OR REPLACE TABLE `{target}` AS\n{strip_trailing_semicolons(last.sql)}"
        return text[:start] + wrapped, "script-wrapped"
    return f"CREATE OR REPLACE TABLE `{target}` AS\n{strip_trailing_semicolons(text)}", "wrapped"


_REF = re.compile(r"\{\{\s*ref\(\s*['\"]([^'\"]+)['\"]\s*(?:,\s*['\"]([^'\"]+)['\"]\s*)?\)\s*\}\}")
_SOURCE = re.compile(r"\{\{\s*source\(\s*['\"]([^'\"]+)['\"]\s*,\s*['\"]([^'\"]+)['\"]\s*\)\s*\}\}")
_CONFIG = re.compile(r"\{\{\s*config\((?:[^{}]|\{[^{}]*\})*\)\s*\}\}", re.S)
_THIS = re.compile(r"\{\{\s*this\s*\}\}")
_INCREMENTAL = re.compile(r"\{%-?\s*if\s+is_incremental\(\)\s*-?%\}(?:(?!\{%).)*\{%-?\s*endif\s*-?%\}", re.S)
_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)


def render_dbt(text: str, model: str) -> str | None:
    """A dbt model rendered simply: ``ref('x')`` → ``x`` (``ref('p', 'x')`` → ``x``), ``source('a', 'b')``
    → ``a.b``, ``{{ this }}`` → the model, ``config(…)`` and ``{% if is_incremental() %}…{% endif %}``
    (a full refresh) dropped; None when any other Jinja is left."""
    text = _JINJA_COMMENT.sub("", text)
    text = _CONFIG.sub("", text)
    text = _INCREMENTAL.sub("", text)
    text = _REF.sub(lambda m: m.group(2) or m.group(1), text)
    text = _SOURCE.sub(lambda m: f"{m.group(1)}.{m.group(2)}", text)
    text = _THIS.sub(model, text)
    return None if _JINJA.search(text) else text


def wrap_dbt(path: str, text: str) -> tuple[str | None, str]:
    model = Path(path).stem
    rendered = render_dbt(text, model)
    if rendered is None:
        return None, "jinja"
    if not only_comments_before_query(rendered):
        return None, "not-a-query"
    return f"CREATE TABLE {model} AS\n{strip_trailing_semicolons(rendered)}", "wrapped"


_VAR = re.compile(r"\$\{(?:hiveconf:|hivevar:)?([A-Za-z_][\w.]*)\}")
_NAME_BEFORE = re.compile(r"(?i)(from|join|table|into|exists|view|update|\.)\s*$")
_USAGE = re.compile(r"(?m)^\s*--.*?(?:-d|--hivevar|--define)\s+([A-Za-z_]\w*)=(\S+)")


def render_script(text: str, stem: str = "") -> str:
    """Hive/Spark variables (``${x}``): the value the file's usage comment gives (``-d x=wmf.t``) when
    it is a name or a number; else, in a table position (after FROM, JOIN, TABLE, INTO…, or before a
    dot) the name ``x__<stem>`` (``stem``: the file's name, so that two files' unknown tables stay two
    tables); inside quotes they stay; anywhere else the number ``0``."""
    given = {m.group(1): m.group(2).rstrip("\\").strip() for m in _USAGE.finditer(text)}
    given = {k: v for k, v in given.items() if re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*|\d+", v)}
    out: list[str] = []
    quote = None
    i = 0
    while i < len(text):
        if quote is None and text.startswith(("--", "/*"), i):  # a comment: as it is
            end = text.find("\n", i) if text.startswith("--", i) else text.find("*/", i) + 2
            end = len(text) if end < 2 else end
            out.append(text[i:end])
            i = end
            continue
        m = _VAR.match(text, i) if text[i] == "$" else None
        if m is None:
            ch = text[i]
            if quote is None and ch in "'\"`":
                quote = ch
            elif ch == quote:
                quote = None
            out.append(ch)
            i += 1
            continue
        before = "".join(out[-60:])[-40:]
        if quote is not None:
            out.append(m.group(0))
        elif m.group(1) in given:
            out.append(given[m.group(1)])
        elif _NAME_BEFORE.search(before) or text[m.end() : m.end() + 1] == ".":
            name = m.group(1).replace(".", "_")
            out.append(f"{name}__{stem}" if stem else name)
        else:
            out.append("0")
        i = m.end()
    return "".join(out)


def wrap_script(path: str, text: str) -> tuple[str | None, str]:
    if _JINJA.search(text):
        return None, "jinja"
    return render_script(text, re.sub(r"\W", "_", Path(path).stem)), "script"


WRAPS = {"bigquery-etl": wrap_bigquery_etl, "dbt": wrap_dbt, "script": wrap_script}


# --- schemas -------------------------------------------------------------------------------------

_BQ_TYPES = {"INTEGER": "INT64", "FLOAT": "FLOAT64", "BOOLEAN": "BOOL", "RECORD": "STRUCT"}


def bq_type(f: dict[str, Any]) -> str:
    t = str(f.get("type") or "STRING").upper()
    t = _BQ_TYPES.get(t, t)
    if t == "STRUCT":
        subs = [s for s in f.get("fields") or [] if isinstance(s, dict) and s.get("name")]
        t = "STRUCT<" + ", ".join(f"`{s['name']}` {bq_type(s)}" for s in subs) + ">"
    if str(f.get("mode") or "").upper() == "REPEATED":
        t = f"ARRAY<{t}>"
    return t


class _TolerantLoader(yaml.SafeLoader):
    """bigquery-etl's schema files use their own tags: ``!include-field`` / ``!include-fields`` (a field,
    or all fields, of another table's schema) are kept as ``{"__include__": tag, …}``; any other
    (``!include-field-description``) is null."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if suffix in ("include-field", "include-fields") and isinstance(node, yaml.MappingNode):
        return {"__include__": suffix, **loader.construct_mapping(node, deep=True)}
    return None


_TolerantLoader.add_multi_constructor("!", _tag)


class _Unresolved(Exception):
    """An include the benchmark does not follow (replacements, exclusions, a missing table)."""


def _resolve(fields: Any, docs: dict[str, Any], depth: int = 0) -> list[dict[str, Any]]:
    if depth > 5:
        raise _Unresolved
    if isinstance(fields, dict) and fields.get("__include__") == "include-fields":
        if set(fields) - {"__include__", "table"}:
            raise _Unresolved
        return _resolve(_schema_fields(fields["table"], docs), docs, depth + 1)
    out = []
    for f in fields or []:
        if isinstance(f, dict) and f.get("__include__") == "include-field":
            if set(f) - {"__include__", "table", "field", "new_description", "description"}:
                raise _Unresolved
            found = [
                g for g in _resolve(_schema_fields(f["table"], docs), docs, depth + 1) if g.get("name") == f["field"]
            ]
            if not found:
                raise _Unresolved
            out.extend(found)
        elif isinstance(f, dict) and f.get("name"):
            if f.get("fields") is not None:
                f = {**f, "fields": _resolve(f["fields"], docs, depth + 1)}
            out.append(f)
    return out


def _schema_fields(table: str, docs: dict[str, Any]) -> Any:
    doc = docs.get("sql/" + table.replace(".", "/") + "/schema.yaml")
    if not isinstance(doc, dict):
        raise _Unresolved
    return doc.get("fields")


def bigquery_etl_schema(mirror: Mirror, queries: list[str]) -> dict[str, dict[str, str]]:
    """headwater's schema-file data of the ``schema.yaml`` files beside the queries: one table each,
    ``project.dataset.table`` with BigQuery types (RECORD → STRUCT<…>, REPEATED → ARRAY<…>). Includes of
    other tables' fields are followed; a table whose includes cannot be followed is left out (unknown
    rather than wrongly narrow)."""
    schemas = [p for p in mirror.files() if p.startswith("sql/") and p.endswith("/schema.yaml")]
    docs = {p: yaml.load(t, Loader=_TolerantLoader) for p, t in mirror.read_many(schemas).items()}  # a SafeLoader
    data: dict[str, dict[str, str]] = {}
    for q in queries:
        target = bigquery_etl_target(q)
        doc = docs.get(q.rsplit("/", 1)[0] + "/schema.yaml")
        if target is None or not isinstance(doc, dict):
            continue
        try:
            fields = _resolve(doc.get("fields"), docs)
        except (_Unresolved, KeyError, TypeError):
            continue
        columns: dict[str, str] = {}
        for f in fields:
            if f["name"].lower() not in {c.lower() for c in columns}:
                columns[f["name"]] = bq_type(f)
        if columns:
            project, dataset, table = target.split(".")
            data[f"`{project}`.`{dataset}`.`{table}`"] = columns
    return data


# --- running ---------------------------------------------------------------------------------------


@dataclass
class FileRun:
    path: str
    sql: str
    statements: list[StatementResult]


@dataclass
class Run:
    corpus: Corpus
    with_schema: bool
    files: list[FileRun]
    skipped: Counter[str]
    catalog: Catalog
    cycle: list[str] | None
    schema: Catalog | None = None
    rewritten: frozenset[Any] = frozenset()  # tables that more than one file creates or writes

    @property
    def events(self) -> list[tuple[str, StatementResult, LineageInfo]]:
        return [(f.path, s, e) for f in self.files for s in f.statements for e in s.events]


def prepare(corpus: Corpus, mirror: Mirror) -> tuple[dict[str, str], Counter[str], list[str]]:
    """(path → SQL to extract, files left out by reason, every selected path)."""
    paths = selected(corpus, mirror.files())
    texts = mirror.read_many(paths)
    wrap = WRAPS[corpus.wrap]
    out: dict[str, str] = {}
    skipped: Counter[str] = Counter()
    for p in paths:
        sql, how = wrap(p, strip_line_comments(texts[p]) if corpus.strip_comments else texts[p])
        if sql is None:
            skipped[how] += 1
        else:
            out[p] = sql
    return out, skipped, paths


def run_corpus(corpus: Corpus, mirror: Mirror, with_schema: bool) -> Run:
    sqls, skipped, paths = prepare(corpus, mirror)
    catalog = None
    if with_schema and corpus.schema == "bigquery-etl":
        catalog = schema_from_data(bigquery_etl_schema(mirror, paths), dialect=corpus.dialect, source="schema.yaml")
    return run_sqls(corpus, sqls, skipped, catalog, with_schema)


def run_sqls(corpus: Corpus, sqls: dict[str, str], skipped: Counter[str], catalog: Any, with_schema: bool) -> Run:
    ctx = ProjectContext(catalog, dialect=corpus.dialect, database=corpus.database, statements=corpus.statements)
    pieces = {p: ctx.split(s) for p, s in sqls.items()}
    order = order_files(pieces, corpus.dialect, corpus.database)
    names = Names.for_dialect(sqlglot_dialect(corpus.dialect))
    # a tree from before Names.dataset (BigQuery's case kept) folds a dataset as it folds any table
    fold = getattr(names, "dataset_ident", names.table_ident)
    writers: Counter[Any] = Counter()
    for p in sqls:
        session = Session("internal", fold(corpus.database) if corpus.database else None)
        writers.update(tables_of(pieces[p], names, session)[0])
    files = []
    for p in order.order:
        extraction = ctx.extract(p, sqls[p], pieces[p])
        files.append(FileRun(p, sqls[p], [replace(s.result, events=s.events) for s in extraction.statements]))
    rewritten = frozenset(t for t, n in writers.items() if n > 1)
    return Run(corpus, with_schema, files, skipped, ctx.extractor.catalog, order.cycle, catalog, rewritten)


class KnownColumns:
    """The tables whose columns are known for detector d: the project's (its DDL and the statements
    that wrote them, as they are after the last file), except a table a statement wrote with doubt (an
    event not COMPLETE: its columns may be partly unknown) or that several files create or write (a
    temporary table each report makes its own way), which only the schema file may answer."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.uncertain = {e.target.table for _, _, e in run.events if e.status != Status.COMPLETE}
        self.uncertain |= run.rewritten

    def table(self, ref: Any) -> Any:
        if ref in self.uncertain:
            return self.run.schema.table(ref) if self.run.schema is not None else None
        return self.run.catalog.table(ref)


# --- the report ----------------------------------------------------------------------------------

# the doubts a table of unknown columns makes: only its schema (from outside the corpus) would lift them
UNKNOWN_COLUMNS = frozenset(
    {("WARNING", "star_unknown_columns"), ("WARNING", "ambiguous_column"), ("WARNING", "unknown_column")}
)
FLOOR = "floor: tables the corpus does not define"


def cause(run: Run, event: LineageInfo) -> str:
    """Why an event is not COMPLETE: ``FLOOR`` when its only doubts are names or ``*`` over tables of
    unknown columns and it reads a table that neither the corpus (its DDL and the statements that write
    it, as complete) nor the schema file describes, or that the corpus made open (a ``*`` over such a
    table); else its doubts' codes (``no diagnostic``: a column left unresolved without one)."""
    doubts = sorted({(d.severity.value, d.code) for d in event.diagnostics if d.severity != Severity.INFO})
    if not doubts:
        return "no diagnostic"

    def unknown(ref: Any) -> bool:
        schema = run.schema.table(ref) if run.schema is not None else None
        # getattr: a tree from before open relations (TableSchema.open) measured with --before
        if schema is not None and schema.column_names and not getattr(schema, "open", False):
            return False
        own = run.catalog.table(ref)
        return own is None or not own.column_names or getattr(own, "open", False)

    if all(d in UNKNOWN_COLUMNS for d in doubts) and any(unknown(t) for t in event.sources):
        return FLOOR
    return ", ".join(code if sev == "WARNING" else f"{code} {sev}" for sev, code in doubts)


def has_error(event: LineageInfo) -> bool:
    return any(d.severity == Severity.ERROR for d in event.diagnostics)


@dataclass
class Figures:
    files: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    statements: int = 0
    parse_failures: int = 0
    other_failures: int = 0
    events: int = 0
    status: Counter[str] = field(default_factory=Counter)
    error_events: int = 0
    codes: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    hits: dict[str, list[Hit]] = field(default_factory=lambda: defaultdict(list))
    failures: list[str] = field(default_factory=list)
    causes: Counter[str] = field(default_factory=Counter)  # events not COMPLETE, by ``cause``
    cause_examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def figures(run: Run) -> Figures:
    f = Figures(files=len(run.files), skipped=run.skipped)
    for fr in run.files:
        for s in fr.statements:
            f.statements += 1
            if s.error is not None and s.error.severity == Severity.ERROR:
                if s.error.code == "parse_error":
                    f.parse_failures += 1
                else:
                    f.other_failures += 1
                f.failures.append(f"{fr.path}: {s.error.code}: {s.error.message[:100]}")
            for e in s.events:
                f.events += 1
                f.status[e.status.value] += 1
                f.error_events += has_error(e)
                if e.status != Status.COMPLETE:
                    why = cause(run, e)
                    f.causes[why] += 1
                    if len(f.cause_examples[why]) < 3:
                        f.cause_examples[why].append(f"{fr.path}:{s.line}")
                first = {}
                for d in e.diagnostics:
                    first.setdefault((d.severity.value, d.code), d)
                for code, d in sorted(first.items()):
                    f.codes[code] += 1
                    if len(f.examples[code]) < 5 and not any(x.startswith(fr.path) for x in f.examples[code]):
                        f.examples[code].append(f"{fr.path}:{d.line or s.line}: {d.message[:110]}")
    known = KnownColumns(run)
    for path, stmt, event in run.events:
        for hit in detect(stmt.sql, run.corpus.dialect, event, known, path):  # type: ignore[arg-type]
            f.hits[hit.detector].append(hit)
    return f


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} %" if d else "-"


def print_figures(run: Run, f: Figures, show: bool) -> None:
    label = f"{run.corpus.name} ({run.corpus.dialect}, {'with' if run.with_schema else 'without'} schema)"
    print(f"== {label}")
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(f.skipped.items())) or "none"
    print(f"files {f.files} (left out: {skipped}); statements {f.statements}; parse failures {f.parse_failures};")
    print(f"other failures {f.other_failures}; events {f.events}")
    if run.cycle:
        print(f"cycle: {len(run.cycle)} files run in name order")
    for s in (Status.COMPLETE, Status.PARTIAL, Status.UNAVAILABLE):
        print(f"  {s.value:<12}{f.status[s.value]:>6}  {pct(f.status[s.value], f.events):>8}")
    print(f"  events with an ERROR diagnostic: {f.error_events}  ({pct(f.error_events, f.events)})")
    floor = f.causes.get(FLOOR, 0)
    print(
        f"  COMPLETE attainable with the corpus's own knowledge: {pct(f.events - floor, f.events)}"
        f"  (the floor: {floor} events whose only doubts are tables the corpus does not define)"
    )
    print("  not COMPLETE, by cause (events):")
    for why, n in f.causes.most_common():
        print(f"    {why[:60]:<60}{n:>6}")
        if show and why != FLOOR:
            for p in f.cause_examples[why]:
                print(f"            {p}")
    print("  diagnostics by code (events carrying it):")
    for (sev, code), n in sorted(f.codes.items(), key=lambda kv: (kv[0][0] != "ERROR", -kv[1], kv[0][1])):
        print(f"    {sev:<8}{code:<32}{n:>6}")
        if show and sev == "ERROR":
            for p in f.examples[(sev, code)]:
                print(f"            {p}")
    print("  silent-wrong detectors: hits (on COMPLETE events)")
    for name, title in DETECTORS.items():
        hits = f.hits.get(name, [])
        complete = sum(h.complete for h in hits)
        print(f"    {name} {title:<48}{len(hits):>6}  ({complete})")
        if show:
            for h in hits[:8]:
                print(f"            {h.path}: {h.what}")
    if show and f.failures:
        print("  failed statements:")
        for line in f.failures[:20]:
            print(f"    {line}")
    print()


# --- the gold set ----------------------------------------------------------------------------------


@dataclass
class Label:
    corpus: str
    repo: str
    commit: str
    path: str
    target: str | None
    column: str
    direct: set[str]
    indirect: set[str]
    constructs: list[str]


def expand(ref: str, tables: dict[str, str]) -> str:
    """``alias.col`` / ``alias.(a.b)`` with ``alias`` from the label's ``tables`` → ``table.col`` /
    ``table.a.b``, lower case (as ``accuracy.column_name`` renders a ``ColumnRef``)."""
    if ref.endswith(")") and ".(" in ref:
        table, _, column = ref[:-1].partition(".(")
    else:
        table, _, column = ref.rpartition(".")
    return f"{tables.get(table, table)}.{column}".lower()


def load_gold(root: Path = GOLD) -> list[Label]:
    labels = []
    for path in sorted(root.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for entry in doc["columns"]:
            tables = {**(doc.get("tables") or {}), **(entry.get("tables") or {})}
            for column, spec in entry["targets"].items():
                spec = spec or {}
                labels.append(
                    Label(
                        doc["corpus"],
                        doc["repo"],
                        doc["commit"],
                        entry["path"],
                        entry.get("target"),
                        str(column).lower(),
                        {expand(r, tables) for r in spec.get("direct") or []},
                        {expand(r, tables) for r in spec.get("indirect") or []},
                        list(entry.get("constructs") or []),
                    )
                )
    return labels


@dataclass
class Got:
    found: bool = False
    complete: bool = False
    direct: set[str] = field(default_factory=set)
    indirect: set[str] = field(default_factory=set)
    codes: list[str] = field(default_factory=list)
    status: str = ""


def answer(run: Run, label: Label) -> Got:
    got = Got()
    for path, _stmt, event in run.events:
        if path != label.path:
            continue
        if label.target and table_name(event.target.table) != label.target.lower():
            continue
        if not any(d.target_column.lower() == label.column for d in event.direct):
            continue
        got.found = True
        got.complete = event.status == Status.COMPLETE
        got.status = event.status.value
        for d in event.direct:
            if d.target_column.lower() == label.column:
                got.direct.update(column_name(i.column) for i in d.inputs)
        for i in event.dataset_indirect:
            got.indirect.update(column_name(c) for c in i.sources)
        for i in event.output_indirect:
            if (i.target_column or "").lower() == label.column:
                got.indirect.update(column_name(c) for c in i.sources)
        got.codes = sorted({d.code for d in event.diagnostics})
        break
    return got


@dataclass
class GoldScore:
    columns: int = 0
    missing: int = 0
    direct: Score = field(default_factory=Score)
    indirect: Score = field(default_factory=Score)
    exact: int = 0
    wrong_complete: int = 0


def _add(score: Score, expected: set[str], got: set[str]) -> None:
    score.cases += 1
    score.exact += int(expected == got)
    score.tp += len(expected & got)
    score.fp += len(got - expected)
    score.fn += len(expected - got)


def prf(s: Score) -> tuple[float, float, float]:
    p = s.tp / (s.tp + s.fp) if s.tp + s.fp else 1.0
    r = s.tp / (s.tp + s.fn) if s.tp + s.fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score_gold(run: Run, labels: list[Label], show: bool) -> GoldScore:
    g = GoldScore()
    for label in labels:
        got = answer(run, label)
        g.columns += 1
        g.missing += not got.found
        _add(g.direct, label.direct, got.direct)
        _add(g.indirect, label.indirect, got.indirect)
        right = got.direct == label.direct and got.indirect == label.indirect
        g.exact += right
        wrong_complete = got.found and got.complete and not right
        g.wrong_complete += wrong_complete
        if show and not right:
            flag = " WRONG-BUT-COMPLETE" if wrong_complete else ""
            state = got.status if got.found else "(no such target column)"
            print(f"  - {label.path} :: {label.column} {state}{flag}")
            for kind, exp_, have in (("direct", label.direct, got.direct), ("indirect", label.indirect, got.indirect)):
                for x in sorted(have - exp_):
                    print(f"      {kind} false   {x}")
                for x in sorted(exp_ - have):
                    print(f"      {kind} missed  {x}")
            if got.codes:
                print(f"      diagnostics: {', '.join(got.codes)}")
    return g


def print_gold(name: str, g: GoldScore) -> None:
    dp, dr, df = prf(g.direct)
    ip, ir, i_f = prf(g.indirect)
    print(
        f"  gold {name}: {g.columns} columns ({g.missing} not found); direct P/R/F1 "
        f"{100 * dp:.1f}/{100 * dr:.1f}/{100 * df:.1f}; indirect P/R/F1 {100 * ip:.1f}/{100 * ir:.1f}/{100 * i_f:.1f}; "
        f"exact {g.exact}; wrong but COMPLETE {g.wrong_complete}"
    )


# --- main ------------------------------------------------------------------------------------------


def mirror_path(corpus: Corpus, mirrors: Path | None, named: dict[str, Path]) -> Path | None:
    if corpus.repo in named:
        return named[corpus.repo]
    if mirrors is not None:
        p = mirrors / corpus.repo.replace("/", "+") / "repo"
        if p.exists():
            return p
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, help="a directory of mirrors: DIR/<owner>+<name>/repo")
    ap.add_argument("--mirror", action="append", default=[], help="owner/name=PATH (a bare git dir or a directory)")
    ap.add_argument("--corpora", type=Path, default=CORPORA, help="the corpus descriptions")
    ap.add_argument("--gold", type=Path, default=GOLD, help="the directory of gold labels")
    ap.add_argument("--corpus", action="append", help="run only these corpora (by name)")
    ap.add_argument("--show", action="store_true", help="example files per ERROR code, detector hits, gold misses")
    ap.add_argument("--no-gold", action="store_true")
    ap.add_argument("--schema", choices=("both", "without", "with"), default="both")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON (one entry per corpus and schema)")
    args = ap.parse_args(argv)
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    named = {}
    for item in args.mirror:
        repo, _, path = item.partition("=")
        named[repo] = Path(path)
    labels = [] if args.no_gold or not args.gold.exists() else load_gold(args.gold)
    report: list[dict[str, Any]] = []
    for corpus in load_corpora(args.corpora):
        if args.corpus and corpus.name not in args.corpus:
            continue
        path = mirror_path(corpus, args.mirrors, named)
        if path is None:
            print(f"== {corpus.name}: no mirror of {corpus.repo} given (--mirror {corpus.repo}=PATH); skipped\n")
            continue
        mirror = Mirror(path, corpus.commit)
        runs = [False, True] if corpus.schema else [False]
        if args.schema != "both":
            runs = [r for r in runs if r == (args.schema == "with")]
        mine = [lb for lb in labels if lb.corpus == corpus.name]
        for with_schema in runs:
            run = run_corpus(corpus, mirror, with_schema)
            f = figures(run)
            print_figures(run, f, args.show)
            g = None
            if mine:
                g = score_gold(run, mine, args.show)
                print_gold(f"{corpus.name} {'with' if with_schema else 'without'} schema", g)
                print()
            report.append(as_json(run, f, g))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


def as_json(run: Run, f: Figures, g: GoldScore | None) -> dict[str, Any]:
    """One run's figures, for comparing two runs (before and after a change)."""
    out: dict[str, Any] = {
        "corpus": run.corpus.name,
        "commit": run.corpus.commit,
        "schema": run.with_schema,
        "files": f.files,
        "left_out": dict(f.skipped),
        "statements": f.statements,
        "parse_failures": f.parse_failures,
        "events": f.events,
        "status": dict(f.status),
        "error_events": f.error_events,
        "not_complete_causes": dict(f.causes.most_common()),
        "diagnostics": {f"{sev} {code}": n for (sev, code), n in sorted(f.codes.items())},
        "detectors": {
            k: {"hits": len(f.hits.get(k, [])), "complete": sum(h.complete for h in f.hits.get(k, []))}
            for k in DETECTORS
        },
    }
    if g is not None:
        dp, dr, df = prf(g.direct)
        ip, ir, i_f = prf(g.indirect)
        out["gold"] = {
            "columns": g.columns,
            "not_found": g.missing,
            "direct": {"p": round(100 * dp, 1), "r": round(100 * dr, 1), "f1": round(100 * df, 1)},
            "indirect": {"p": round(100 * ip, 1), "r": round(100 * ir, 1), "f1": round(100 * i_f, 1)},
            "exact": g.exact,
            "wrong_but_complete": g.wrong_complete,
        }
    return out


if __name__ == "__main__":
    sys.exit(main())
