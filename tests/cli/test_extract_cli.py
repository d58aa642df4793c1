"""``headwater extract`` and ``headwater demo``: formats, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.model import event_from_dict

runner = CliRunner()

GOOD = "INSERT INTO t SELECT UPPER(a) AS x FROM s WHERE b > 1"


def invoke(*args: str, stdin: str | bytes | None = None):
    return runner.invoke(app, list(args), input=stdin)


def test_jsonl_prints_one_event_per_line(tmp_path):
    f = tmp_path / "a.sql"
    f.write_text(GOOD + ";\n" + GOOD.replace("INTO t", "INTO u"))
    r = invoke("extract", str(f), "--format", "jsonl", "--default-db", "db")
    assert r.exit_code == 0, r.output
    events = [event_from_dict(json.loads(line)) for line in r.stdout.splitlines()]
    assert [e.target.table.qualified for e in events] == ["db.t", "db.u"]
    assert events[0].direct[0].expression == "UPPER(s.a)"


def test_json_is_a_list_and_reads_stdin():
    r = invoke("extract", "-", "--format", "json", "--default-db", "db", stdin=GOOD)
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert len(data) == 1 and data[0]["target"]["table"]["name"] == "t"


def test_table_format_verbose_prints_the_five_sections():
    r = invoke("extract", "-", "--verbose", stdin=GOOD)
    assert r.exit_code == 0
    for title in (
        "Table lineage",
        "Direct column lineage",
        "Dataset indirect lineage",
        "Output indirect lineage",
        "Query context",
    ):
        assert title in r.stdout


def test_parse_error_exits_1_and_still_prints_the_good_statements():
    r = invoke("extract", "-", "--format", "jsonl", stdin=GOOD + ";\nINSERT INTO x SELEC a FROM s;\n" + GOOD)
    assert r.exit_code == 1
    assert len(r.stdout.splitlines()) == 2
    assert (
        "error at line 2, column 15: cannot parse statement 2 (INSERT INTO x SELEC a FROM s): unexpected 'SELEC'"
        in r.stderr
    )


def test_unknown_column_with_schema_exits_1(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"db.s": {"a": "int", "b": "int"}}))
    r = invoke(
        "extract",
        "-",
        "--schema",
        str(schema),
        "--default-db",
        "db",
        "--format",
        "jsonl",
        stdin="INSERT INTO t SELECT nope FROM s",
    )
    assert r.exit_code == 1
    e = json.loads(r.stdout)
    assert e["diagnostics"][0]["code"] == "unknown_column"


def test_schema_file_resolves_star(tmp_path):
    schema = tmp_path / "schema.yaml"
    schema.write_text("db.s:\n  a: int\n  b: varchar\n")
    r = invoke(
        "extract",
        "-",
        "--schema",
        str(schema),
        "--default-db",
        "db",
        "--format",
        "jsonl",
        stdin="INSERT INTO t SELECT * FROM s",
    )
    assert r.exit_code == 0, r.output
    e = json.loads(r.stdout)
    assert [d["expression"] for d in e["direct"]] == ["s.a", "s.b"]
    assert e["status"] == "COMPLETE"


def test_explain_skips_names_each_rule():
    r = invoke("extract", "-", "--explain-skips", stdin="SELECT 1; INSERT INTO t VALUES (1); USE d; " + GOOD)
    assert r.exit_code == 0
    assert "select:" in r.stdout and "values-insert:" in r.stdout and "use:" in r.stdout


def test_binary_garbage_is_a_clear_error(tmp_path):
    f = tmp_path / "bin.sql"
    f.write_bytes(b"\x00\x01\x02garbage\xff\xfe")
    r = invoke("extract", str(f))
    assert r.exit_code == 2  # a bad input file is exit 2 in every command (issue 36)
    assert "binary data" in r.stderr
    assert "Traceback" not in r.output


def test_empty_file_exits_0_with_a_warning(tmp_path):
    f = tmp_path / "empty.sql"
    f.write_text("")
    r = invoke("extract", str(f))
    assert r.exit_code == 0
    assert "no SQL statement" in r.stderr


def test_usage_errors_exit_2(tmp_path):
    assert invoke("extract", "-", "--dialect", "nosuch", stdin=GOOD).exit_code == 2
    assert invoke("extract", "-", "--format", "xml", stdin=GOOD).exit_code == 2
    assert invoke("extract", str(tmp_path / "missing.sql")).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert invoke("extract", "-", "--schema", str(bad), stdin=GOOD).exit_code == 2


@pytest.mark.parametrize(
    "dialect", ["generic", "doris", "mysql", "hive", "spark", "postgres", "snowflake", "bigquery", "duckdb", "trino"]
)
def test_every_dialect_name_is_accepted(dialect):
    r = invoke("extract", "-", "--dialect", dialect, "--format", "jsonl", stdin="INSERT INTO t SELECT a FROM s")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["direct"][0]["expression"].lower() == "s.a"


def test_openlineage_format_gives_run_events():
    r = invoke("extract", "-", "--format", "openlineage", "--default-db", "db", stdin=GOOD)
    assert r.exit_code == 0, r.output
    start, ev = map(json.loads, r.stdout.splitlines())
    assert (start["eventType"], ev["eventType"]) == ("START", "COMPLETE")
    assert start["run"]["runId"] == ev["run"]["runId"]
    assert ev["outputs"][0]["name"] == "db.t"
    fields = ev["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert fields["x"]["inputFields"][0]["field"] == "a"


def test_demo_runs_as_a_real_command():
    out = subprocess.run(
        [sys.executable, "-m", "headwater.cli.main", "demo", "--format", "jsonl"],
        capture_output=True,
        text=True,
        check=True,
    )
    [line] = out.stdout.splitlines()
    e = json.loads(line)
    assert e["target"]["table"]["name"] == "lineage_customer_summary"
    assert "values-insert" in out.stderr


def test_payload_format_round_trips():
    from headwater.model.payload import loads

    r = invoke("extract", "-", "--format", "payload", "--default-db", "db", stdin=GOOD)
    assert r.exit_code == 0, r.output
    e = loads(r.stdout)
    assert e.direct[0].expression == "UPPER(s.a)"


def test_demo_stores_its_event_and_queries_the_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    r = invoke("demo", "--store", url)
    assert r.exit_code == 0, r.output
    assert "Stored 1 event" in r.stdout
    assert "origin of lineage_demo.lineage_customer_summary.region_group" in r.stdout
    assert "impact of lineage_demo.lineage_orders.amount" in r.stdout
    from headwater.store import open_store

    stats = open_store(url).get_lineage_stats()
    assert stats.events_recorded == 1
    again = invoke("demo", "--store", url)  # idempotent: the same event id
    assert again.exit_code == 0
    assert open_store(url).get_lineage_stats().events_recorded == 1


def test_a_postgres_namespace_takes_the_database_from_the_url_or_is_refused():
    """Issue 38 item 6: PostgreSQL names are {database}.{schema}.{table}."""
    sql = "INSERT INTO public.t SELECT a FROM public.s"
    args = ("extract", "-", "--dialect", "postgres", "--format", "openlineage", "--lifecycle", "complete")
    r = invoke(*args, "--namespace", "internal=postgres://pg:5432/shop", stdin=sql)
    assert r.exit_code == 0, r.output
    ev = json.loads(r.stdout)
    assert (ev["outputs"][0]["namespace"], ev["outputs"][0]["name"]) == ("postgres://pg:5432", "shop.public.t")
    assert ev["job"]["name"] == "public.t"  # the spec's SQL job naming: the output's schema.table
    r = invoke(*args, "--namespace", "internal=postgres://pg:5432", stdin=sql)
    assert r.exit_code == 2 and not r.stdout
    assert "postgres names are {database}.{schema}.{table}" in r.stderr
    assert "postgres://pg:5432/DATABASE" in r.stderr
