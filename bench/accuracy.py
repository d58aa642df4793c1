"""Extraction accuracy over a labelled corpus: table exact match and column-edge P/R/F1.

    python bench/accuracy.py [--corpus DIR] [--by theme|dialect|both] [--show-misses] [--only TEXT]

The corpus (``bench/accuracy/*.yaml``) is one file per theme::

    theme: 1
    title: UPDATE with more than one table
    cases:
      - id: mysql-join
        dialects: [mysql, doris]          # one case per dialect
        statements: all                  # doris | all (default all)
        schema: {t1: [k, v], t2: [k, v]}  # optional; unqualified names are in database db
        sql: UPDATE t1 a JOIN t2 b ON a.k = b.k SET a.v = b.v
        read: [t1, t2]                    # every table the statement reads
        write: [t1]                       # every table it writes (a SELECT's result is no table)
        edges: [t1.v <- t2.v]             # target column <- every column its value expression reads
                                         # (a struct field: ``w.(asset.id)``)

Names without a database are in ``db`` (the session database); a SELECT's result is ``result``.
A case's table lineage matches when its read and write sets both equal the labels; column edges
are counted over all cases of a group (micro-averaged). A statement that fails with an internal
error counts as giving nothing, and is listed.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from headwater.catalog import ColumnSchema, MemoryCatalog, Names, TableSchema
from headwater.extract import ExtractOptions, Extractor
from headwater.extract.split import sqlglot_dialect
from headwater.model import ColumnRef, TableRef
from headwater.model.storage import is_storage, storage_uri

CORPUS = Path(__file__).resolve().parent / "accuracy"
DATABASE = "db"
RESULT_DATABASE = "__query_result"


@dataclass
class Case:
    theme: int
    id: str
    dialect: str
    sql: str
    statements: str
    schema: dict[str, list[str] | dict[str, str]]
    read: set[str]
    write: set[str]
    edges: set[str]


@dataclass
class Outcome:
    read: set[str] = field(default_factory=set)
    write: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)


def qualify_table(name: str) -> str:
    """``t`` → ``db.t``; a storage path (``s3://…``) or a qualified name stays."""
    if "://" in name or "." in name:
        return name
    return f"{DATABASE}.{name}"


def qualify_column(name: str) -> str:
    """``t.c`` → ``db.t.c``; ``result.c`` stays; a struct field is written ``t.(s.f)`` (``db.t.s.f``)."""
    if name.endswith(")") and ".(" in name:
        table, _, column = name[:-1].partition(".(")
    else:
        table, _, column = name.rpartition(".")
    if table == "result":
        return name
    return f"{qualify_table(table)}.{column}"


def parse_edge(text: str) -> str:
    target, _, source = (p.strip() for p in text.partition("<-"))
    return f"{qualify_column(target)} <- {qualify_column(source)}"


def load_corpus(root: Path) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(root.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        theme = int(doc["theme"])
        for raw in doc["cases"]:
            for dialect in raw["dialects"]:
                cases.append(
                    Case(
                        theme,
                        raw["id"],
                        dialect,
                        raw["sql"],
                        raw.get("statements", "all"),
                        raw.get("schema") or {},
                        {qualify_table(t) for t in raw.get("read") or []},
                        {qualify_table(t) for t in raw.get("write") or []},
                        {parse_edge(e) for e in raw.get("edges") or []},
                    )
                )
    return cases


def table_name(ref: TableRef) -> str:
    """The corpus's spelling of a table: lower case (dialects fold differently), ``internal`` left out."""
    if ref.database == RESULT_DATABASE:
        return "result"
    if is_storage(ref):  # a storage path: its URI
        return storage_uri(ref)
    parts = [p for p in (None if ref.catalog == "internal" else ref.catalog, ref.database, ref.name) if p]
    return ".".join(parts).lower()


def column_name(ref: ColumnRef) -> str:
    return f"{table_name(ref.table)}.{ref.column.lower()}"


def catalog_of(schema: dict[str, list[str] | dict[str, str]], dialect: str) -> MemoryCatalog:
    """The case's schema, its names folded as the dialect folds unquoted identifiers (a table's
    columns a list of names, or a mapping of each name to its type)."""
    names = Names.for_dialect(sqlglot_dialect(dialect))
    cat = MemoryCatalog()
    for name, cols in schema.items():
        db, _, t = qualify_table(name).rpartition(".")
        ref = TableRef("internal", names.table_ident(db), names.table_ident(t) or t)
        typed = cols.items() if isinstance(cols, dict) else ((c, None) for c in cols)
        columns = tuple(ColumnSchema(names.column_ident(str(c)) or str(c), typ) for c, typ in typed)
        cat.put(ref, TableSchema(columns))
    return cat


def run_case(case: Case) -> Outcome:
    out = Outcome()
    catalog = catalog_of(case.schema, case.dialect) if case.schema else None
    ex = Extractor(catalog, ExtractOptions(dialect=case.dialect, statements=case.statements), database=DATABASE)
    try:
        result = ex.run(case.sql)
    except Exception as err:  # extraction must never raise: count it as a failure
        out.errors.append(f"raised {type(err).__name__}: {err}")
        return out
    for stmt in result.statements:
        if stmt.error is not None and stmt.error.code == "internal_error":
            out.errors.append(stmt.error.message)
        for event in stmt.events:
            out.read.update(table_name(t) for t in event.sources)
            target = table_name(event.target.table)
            if target != "result":
                out.write.add(target)
            for d in event.direct:
                for ref in d.sources:
                    out.edges.add(f"{target}.{d.target_column.lower()} <- {column_name(ref)}")
    return out


@dataclass
class Score:
    cases: int = 0
    exact: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    errors: int = 0

    def add(self, case: Case, got: Outcome) -> None:
        self.cases += 1
        self.exact += int(got.read == case.read and got.write == case.write)
        self.tp += len(got.edges & case.edges)
        self.fp += len(got.edges - case.edges)
        self.fn += len(case.edges - got.edges)
        self.errors += int(bool(got.errors))

    def row(self, label: str) -> str:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return (
            f"{label:<28}{self.cases:>6}{100 * self.exact / max(self.cases, 1):>9.1f}"
            f"{100 * p:>8.1f}{100 * r:>8.1f}{100 * f1:>8.1f}{self.fp:>6}{self.errors:>6}"
        )


HEADER = f"{'group':<28}{'cases':>6}{'table%':>9}{'P%':>8}{'R%':>8}{'F1%':>8}{'FP':>6}{'err':>6}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--by", choices=("theme", "dialect", "both"), default="both")
    ap.add_argument("--show-misses", action="store_true", help="print every case that differs from its labels")
    ap.add_argument("--only", help="run only the cases whose id or theme number contains this text")
    args = ap.parse_args(argv)
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its fallback-to-Command warnings
    cases = load_corpus(args.corpus)
    if args.only:
        cases = [c for c in cases if args.only in c.id or args.only == str(c.theme)]
    titles = {
        int(d["theme"]): d.get("title", "")
        for d in (yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(args.corpus.glob("*.yaml")))
    }
    by_theme: dict[int, Score] = defaultdict(Score)
    by_dialect: dict[str, Score] = defaultdict(Score)
    total = Score()
    for case in cases:
        got = run_case(case)
        for score in (by_theme[case.theme], by_dialect[case.dialect], total):
            score.add(case, got)
        if args.show_misses and (got.read != case.read or got.write != case.write or got.edges != case.edges):
            print(f"--- theme {case.theme} {case.id} [{case.dialect}]")
            if got.read != case.read or got.write != case.write:
                print(f"  tables: got read {sorted(got.read)} write {sorted(got.write)}")
                print(f"        expected read {sorted(case.read)} write {sorted(case.write)}")
            for e in sorted(got.edges - case.edges):
                print(f"  false edge   {e}")
            for e in sorted(case.edges - got.edges):
                print(f"  missed edge  {e}")
            for err in got.errors:
                print(f"  error        {err}")
    if args.by in ("theme", "both"):
        print(HEADER)
        for theme in sorted(by_theme):
            print(by_theme[theme].row(f"{theme:>2} {titles.get(theme, '')}"[:27]))
        print()
    if args.by in ("dialect", "both"):
        print(HEADER)
        for dialect in sorted(by_dialect):
            print(by_dialect[dialect].row(dialect))
        print()
    print(total.row("all"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
