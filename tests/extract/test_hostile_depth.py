"""Issue 17 items 1 and 4: deep and long generated SQL neither crashes the process nor fails.

The statements that overflowed the compiled parser's C stack (exit 139, nothing recorded) are run in
a child process, the crash canary: it must exit normally with the diagnostic, and the statement after
each must still make its event. Below the limit, generated SQL of the sizes BI tools write resolves
to the exact lineage a reader of the SQL gives.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from headwater.extract import ExtractOptions, Extractor, extract_script
from tests.extract.helpers import catalog_of


def derived(n: int) -> str:
    s = "s"
    for i in range(n):
        s = f"(SELECT a FROM {s}) q{i}"
    return f"INSERT INTO t SELECT a FROM {s}"


def nested_subqueries(n: int) -> str:
    s = "SELECT a FROM s"
    for i in range(n):
        s = f"SELECT a FROM ({s}) q{i}"
    return "INSERT INTO t " + s


DANGEROUS = {
    "derived tables 8,000 deep": derived(8000),
    "parentheses 30,000 deep": "INSERT INTO t SELECT a FROM " + "(" * 30000 + "s" + ")" * 30000,
    "parenthesised UNION 30,000 deep": "INSERT INTO t "
    + "(" * 30000
    + "SELECT a FROM s UNION SELECT a FROM s"
    + ")" * 30000,
    "CASE 30,000 deep": "INSERT INTO t SELECT " + "CASE WHEN a = 1 THEN " * 30000 + "a" + " END" * 30000 + " FROM s",
    "NOT 30,000 times": "INSERT INTO t SELECT a FROM s WHERE " + "NOT " * 30000 + "a",
}

CANARY = textwrap.dedent(
    """
    import json, sys
    from headwater.extract import extract_script
    res = extract_script(sys.stdin.read())
    print(json.dumps([[s.error.code if s.error else None, [e.target.table.name for e in s.events]]
                      for s in res.statements]))
    """
)


def test_crash_canary_deep_statements_fail_alone_with_a_diagnostic() -> None:
    script = "".join(f"{sql};\nINSERT INTO ok{k} SELECT a FROM s;\n" for k, sql in enumerate(DANGEROUS.values()))
    proc = subprocess.run(
        [sys.executable, "-c", CANARY], input=script, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    outcome = json.loads(proc.stdout)
    expected = []
    for k in range(len(DANGEROUS)):
        expected += [["nesting_too_deep", []], [None, [f"ok{k}"]]]
    assert outcome == expected, list(DANGEROUS)


def test_the_nesting_limit_is_configurable_and_named_in_the_message() -> None:
    from headwater.extract.guards import Limits

    ex = Extractor(options=ExtractOptions(limits=Limits(max_nesting=50)))
    res = ex.run(derived(60) + ";\n" + derived(40))
    first, second = res.statements
    assert first.error is not None and first.error.code == "nesting_too_deep"
    assert "60 levels" in first.error.message and "HEADWATER_EXTRACT_MAX_NESTING" in first.error.message
    assert (first.error.line, second.line) == (1, 2)
    assert [d.expression for d in second.events[0].direct] == ["s.a"]


def test_history_ingest_moves_past_a_deep_row(tmp_path: Path) -> None:
    """The row that crashed every later run fails alone; the watermark moves past it."""
    from datetime import timedelta

    from headwater.history.synthetic import write_jsonl
    from tests.history.conftest import T0, row

    rows = [
        row("deep", derived(8000), T0),
        row("good", "INSERT INTO t2 SELECT a FROM s", T0 + timedelta(seconds=1)),
    ]
    write_jsonl(rows, tmp_path / "log.jsonl")
    code = textwrap.dedent(
        f"""
        import json
        from headwater.history import FileWatermarks, IngestOptions, ingest_history, open_source
        from headwater.store import open_store
        store = open_store("sqlite:///{tmp_path / "lineage.db"}")
        marks = FileWatermarks("{tmp_path / "state.json"}")
        out = []
        for _ in range(2):
            source = open_source("jsonl", ["{tmp_path / "log.jsonl"}"])
            s = ingest_history(source, store, IngestOptions(), marks)
            out.append([s.counters.rows_read, s.counters.recorded, [p.where + ": " + p.message for p in s.problems]])
        print(json.dumps(out))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    first, second = json.loads(proc.stdout)
    assert first[:2] == [2, 1]
    assert [d.split(":")[0] for d in first[2]] == ["query deep"]
    assert "nests 8,000 levels deep" in first[2][0]
    assert second == [0, 0, []]  # the watermark moved past both rows
    assert (tmp_path / "state.json").exists()


# ---------------------------------------------------------------- item 4: generated SQL


def one(sql: str, schema: dict[str, list[str]] | None = None):
    res = extract_script(sql, catalog=catalog_of(schema) if schema else None, database="db")
    failures = [(s.index, s.error) for s in res.statements if s.error is not None]
    assert not failures, failures
    assert len(res.events) == 1
    return res.events[0]


def test_a_10000_term_expression() -> None:
    e = one("INSERT INTO t SELECT " + " + ".join(["a"] * 10000) + " AS x FROM s")
    (d,) = e.direct
    assert d.expression == " + ".join(["s.a"] * 10000)
    assert (d.type.value, [str(c) for c in d.sources], d.inputs[0].labels) == (
        "TRANSFORMATION",
        ["internal.db.s.a"],
        ("ARITHMETIC",),
    )
    assert e.status.value == "COMPLETE"


def test_2000_and_conjuncts_and_2000_or_terms() -> None:
    e = one("INSERT INTO t SELECT a FROM s WHERE " + " AND ".join(f"b = {i}" for i in range(2000)))
    assert [i.expression for i in e.dataset_indirect] == [f"s.b = {i}" for i in range(2000)]
    e = one("INSERT INTO t SELECT a FROM s WHERE " + " OR ".join(f"b = {i}" for i in range(2000)))
    (f,) = e.dataset_indirect
    assert f.expression == " OR ".join(f"s.b = {i}" for i in range(2000))


def test_a_2000_branch_union_all() -> None:
    e = one("INSERT INTO t " + " UNION ALL ".join(f"SELECT a FROM src{i}" for i in range(2000)))
    assert [d.expression for d in e.direct] == [f"src{i}.a" for i in range(2000)]
    assert [d.branch for d in e.direct] == list(range(2000))
    assert len(e.sources) == 2000


def test_1000_chained_ctes() -> None:
    parts = ["c0 AS (SELECT a + 1 AS a FROM s)"] + [f"c{i} AS (SELECT a FROM c{i - 1})" for i in range(1, 1000)]
    e = one("INSERT INTO t WITH " + ", ".join(parts) + " SELECT a FROM c999")
    assert [(d.expression, d.type.value) for d in e.direct] == [("s.a + 1", "TRANSFORMATION")]


def test_500_nested_subqueries_and_derived_tables() -> None:
    e = one(nested_subqueries(500))
    assert [(d.expression, d.type.value) for d in e.direct] == [("s.a", "IDENTITY")]
    e = one(derived(500))
    assert [d.expression for d in e.direct] == ["s.a"]


def test_200_chained_views() -> None:
    views = ["CREATE VIEW v0 AS SELECT UPPER(a) AS a FROM s"]
    views += [f"CREATE VIEW v{i} AS SELECT a FROM v{i - 1}" for i in range(1, 200)]
    res = extract_script(";\n".join([*views, "INSERT INTO t SELECT a FROM v199"]), database="db")
    assert not res.failures
    (e,) = res.events
    assert [d.expression for d in e.direct] == ["UPPER(s.a)"]
    assert len(e.via) == 200


def test_a_self_referencing_view_is_reported_as_a_cycle() -> None:
    res = extract_script(
        "CREATE VIEW v AS SELECT a FROM s;\n"
        "CREATE OR REPLACE VIEW v AS SELECT a FROM v;\n"
        "INSERT INTO t SELECT a FROM v;\n"
        "INSERT INTO t2 SELECT a FROM s",
        database="db",
    )
    third, fourth = res.statements[2], res.statements[3]
    assert third.error is None, third.error
    (e,) = third.events
    assert "view_cycle" in [d.code for d in e.diagnostics]
    assert e.status.value != "COMPLETE"
    assert [d.expression for d in fourth.events[0].direct] == ["s.a"]
