"""Issue 36, item 6: one bad-input contract for every command; durations for every time; a fast help
that says what to run first; an unknown column of a known table lists the table's columns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from tests.cli.conftest import invoke

from headwater.cli import main

BAD = {
    "missing.sql": None,
    "binary.sql": b"\x00\x01\x02garbage\xff\xfe" * 10,
    "latin1.sql": b"INSERT INTO t SELECT a FROM s;\n-- caf\xe9\n",
}
EXPECTED = {
    "missing.sql": "no such file or directory",
    "binary.sql": "binary data (NUL byte at byte 0), not SQL text",
    "latin1.sql": "not UTF-8 text (byte 37)",
}


def one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("command", ["extract", "ingest"])
def test_a_bad_file_is_the_same_line_and_exit_2_and_creates_nothing(tmp_path: Path, name: str, command: str):
    path = tmp_path / name
    if BAD[name] is not None:
        path.write_bytes(BAD[name])
    store = tmp_path / "lineage.db"
    args = [command, str(path)] + (["--store", str(store)] if command == "ingest" else [])
    r = invoke(*args)
    assert r.exit_code == 2, r.output
    assert one_line(r.stderr) == f"error: {path}: {EXPECTED[name]}"
    assert not store.exists()


@pytest.mark.parametrize("command", ["extract", "ingest"])
def test_an_empty_file_is_the_same_warning(tmp_path: Path, command: str):
    path = tmp_path / "empty.sql"
    path.write_text("-- nothing yet\n")
    args = [command, str(path)] + (["--store", str(tmp_path / "s.db")] if command == "ingest" else [])
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    assert f"warning: {path}: no SQL statement" in one_line(r.stderr)


def test_a_connection_error_exits_2_in_catalog_dump_as_in_extract():
    url = "mysql+pymysql://root@127.0.0.1:1/x"
    dump = invoke("catalog", "dump", "--catalog-url", url)
    extract = invoke("extract", "-", "--catalog-url", url, stdin="INSERT INTO t SELECT a FROM s")
    assert (dump.exit_code, extract.exit_code) == (2, 2)
    assert one_line(dump.stderr).startswith("error: cannot connect to")
    assert one_line(extract.stderr).startswith("error: cannot connect to")


def test_as_of_takes_a_duration(warehouse):
    r = invoke("query", "upstream", "rpt.exec_summary", "--as-of", "7d", "--store", warehouse)
    assert r.exit_code == 0, r.stderr
    assert "0 nodes, 0 edges" in r.stdout  # a week ago the store held nothing yet: an empty graph (issue 38)
    now = invoke("query", "upstream", "rpt.exec_summary", "--as-of", "0s", "--store", warehouse)
    assert "sales.orders" in now.stdout
    bad = invoke("query", "upstream", "rpt.exec_summary", "--as-of", "7 days", "--store", warehouse)
    assert bad.exit_code == 2 and "duration back from now: 7d" in one_line(bad.stderr)


def test_an_unknown_column_of_a_known_table_lists_its_columns(warehouse):
    r = invoke("query", "origin", "sales.orders.revenu", "--store", warehouse)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        "error: no node matches 'sales.orders.revenu': did you mean sales.orders.revenue? the table "
        "internal.sales.orders has no column 'revenu'; its columns: region_id, revenue, status"
    )


def test_origin_help_lists_indirect():
    assert "--indirect" in invoke("query", "origin", "--help").stdout


def test_help_opens_with_the_commands_to_run_first_and_loads_no_command_module():
    code = (
        "import sys\nfrom headwater.cli.main import app\nsys.argv = ['headwater', '--help']\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('headwater.cli.') or m.split('.')[0] in "
        "('sqlalchemy', 'fastapi', 'sqlglot')), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env())
    assert run.stderr.strip().splitlines()[-1] == "['headwater.cli.main']"
    start = run.stdout.split("Options")[0]
    assert start.index("headwater demo") < start.index("headwater ingest") < start.index("headwater query origin")


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "COLUMNS": "100", "TERM": "dumb"}


def test_the_help_summaries_are_the_commands_own():
    for name, module in main.COMMANDS.items():
        cmd = typer.main.get_group(main._module_app(module)).commands[name]
        assert cmd.get_short_help_str(limit=1000) == main.SUMMARIES[name], name
    assert set(main.SUMMARIES) == set(main.COMMANDS)


def test_ingest_log_of_a_missing_audit_table_is_one_line_and_creates_no_store(tmp_path: Path):
    store = tmp_path / "lineage.db"
    url = "mysql+pymysql://root@127.0.0.1:3306/test"  # the MariaDB of the test machine: no audit table
    r = invoke("ingest-log", url, "--source", "doris-audit-table", "--store", str(store))
    assert r.exit_code == 2, r.output
    assert one_line(r.stderr) == (
        f"error: cannot read the audit table __internal_schema.audit_log at {url}: "
        "Table '__internal_schema.audit_log' doesn't exist"
    )
    assert "Traceback" not in r.output and not store.exists()


def test_ingest_log_of_a_missing_file_is_the_common_line(tmp_path: Path):
    store = tmp_path / "lineage.db"
    r = invoke("ingest-log", str(tmp_path / "queries.jsonl"), "--store", str(store))
    assert r.exit_code == 2
    assert one_line(r.stderr) == f"error: {tmp_path / 'queries.jsonl'}: no such file or directory"
    assert not store.exists()
