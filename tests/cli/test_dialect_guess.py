"""Issue 36, item 2: the dialect is never a silent guess."""

from __future__ import annotations

from sqlglot import exp
from tests.cli.conftest import invoke

from headwater.cli.dialect_hint import _first_difference

CONCAT = "INSERT INTO t SELECT first_name || ' ' || last_name AS full_name FROM s"


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_concatenation_under_the_default_dialect_says_it_was_assumed_and_what_changes():
    r = invoke("extract", "-", stdin=CONCAT)
    assert r.exit_code == 0, r.output
    assert one_line(r.stderr) == (
        "warning: standard input: no --dialect given, doris assumed: statement 1 (line 1) uses ||, as postgres "
        "writes it, and reads differently under doris: doris reads \"first_name OR ' ' OR last_name\" where "
        "postgres reads \"first_name || ' ' || last_name\"; give --dialect postgres if the script is postgres SQL"
    )
    given = invoke("extract", "-", "--dialect", "doris", stdin=CONCAT)
    assert "assumed" not in given.stderr and "uses ||" in given.stderr  # given: still warned, not "assumed"
    assert invoke("extract", "-", "--dialect", "postgres", stdin=CONCAT).stderr == ""


def test_a_mistyped_dialect_gets_a_close_match():
    r = invoke("extract", "-", "--dialect", "postgresql", stdin="SELECT 1")
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(
        "error: --dialect: unknown dialect 'postgresql'; did you mean postgres? one of:"
    )
    assert "did you mean spark?" in one_line(invoke("extract", "-", "--dialect", "sprak", stdin="SELECT 1").stderr)


def test_two_readings_shown_never_read_the_same():
    assert _first_difference(exp.Var(this="a"), exp.column("a"), "doris", "postgres") == ""
    assert (
        _first_difference(
            exp.Or(this=exp.column("a"), expression=exp.column("b")),
            exp.DPipe(this=exp.column("a"), expression=exp.column("b")),
            "doris",
            "postgres",
        )
        == ": doris reads 'a OR b' where postgres reads 'a || b'"
    )


def test_headwater_toml_states_the_projects_dialect_once(tmp_path, monkeypatch):
    (tmp_path / "headwater.toml").write_text('dialect = "postgres"\n')
    monkeypatch.chdir(tmp_path)
    r = invoke("extract", "-", "--format", "jsonl", stdin=CONCAT)
    assert r.exit_code == 0 and r.stderr == ""  # read as PostgreSQL: || concatenates, no warning
    assert '"CONCAT' in r.stdout.upper() or "||" in r.stdout
    assert " OR " not in r.stdout
    (tmp_path / "headwater.toml").write_text('dialect = "postgresql"\n')
    bad = invoke("extract", "-", stdin=CONCAT)
    assert bad.exit_code == 2 and "did you mean postgres?" in bad.stderr


def test_ingest_reads_the_dialect_headwater_toml_states(tmp_path, monkeypatch):
    (tmp_path / "headwater.toml").write_text('dialect = "postgres"\n')
    (tmp_path / "etl.sql").write_text(CONCAT + ";\n")
    monkeypatch.chdir(tmp_path)
    r = invoke("ingest", "etl.sql", "--store", "lineage.db")
    assert r.exit_code == 0, r.output
    j = invoke("query", "path", "t.full_name", "--store", "lineage.db", "--format", "json")
    hops = __import__("json").loads(j.stdout)["inputs"]
    assert [(h["field"], h["expression"]) for h in hops] == [
        ("internal.s.first_name", "s.first_name || ' ' || s.last_name"),  # concatenated, not OR-ed (doris)
        ("internal.s.last_name", "s.first_name || ' ' || s.last_name"),
    ]
