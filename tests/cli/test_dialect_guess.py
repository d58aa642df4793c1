"""Issue 36, item 2: the dialect is never a silent guess."""

from __future__ import annotations

import re

import pytest
from sqlglot import exp
from tests.cli.conftest import invoke

from headwater.cli import dialect_hint as dialect_hint_module
from headwater.cli.dialect_hint import _first_difference, dialect_hint

CONCAT = "INSERT INTO t SELECT first_name || ' ' || last_name AS full_name FROM s"


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_concatenation_under_the_default_dialect_says_it_was_assumed_and_what_changes():
    r = invoke("extract", "-", stdin=CONCAT)
    assert r.exit_code == 0, r.output
    assert one_line(r.stderr) == (
        "warning: standard input: no dialect given (--dialect or headwater.toml), doris assumed: statement 1 (line 1) uses ||, as postgres "
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
    ingest = invoke("ingest", "-", "--dialect", "postgresql", "--store", "sqlite:///:memory:", stdin="SELECT 1")
    assert ingest.exit_code == 2 and "did you mean postgres?" in ingest.stderr


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
    assert one_line(bad.stderr).startswith(
        f"error: {tmp_path / 'headwater.toml'}: dialect: unknown dialect 'postgresql'"
    )


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


def _project(tmp_path):
    (tmp_path / "a.sql").write_text("CREATE TABLE s (first_name TEXT, last_name TEXT, x TEXT);\n" + CONCAT + ";\n")
    (tmp_path / "b.sql").write_text(
        "INSERT INTO u SELECT x::int AS y FROM s;\nINSERT INTO v SELECT x || x AS c FROM s;\n"
    )
    return [str(tmp_path / "a.sql"), str(tmp_path / "b.sql")]


@pytest.mark.parametrize("command", ["ingest", "extract"])
def test_a_project_run_says_the_assumed_dialect_once(tmp_path, monkeypatch, command):
    """``ingest`` and ``extract --project``: one warning for the run (not one per file), naming the file,
    the assumed dialect, what would change and where a project states its dialect."""
    monkeypatch.chdir(tmp_path)
    files = _project(tmp_path)
    args = [command, *files] + (["--store", "x.db"] if command == "ingest" else ["--project"])
    r = invoke(*args, columns=400)
    assert r.exit_code == 0, r.output
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert warnings == [
        f"warning: {files[0]}: no dialect given (--dialect or headwater.toml), doris assumed: statement 2 (line 2) "
        "uses ||, as postgres writes it, and reads differently under doris: doris reads \"first_name OR ' ' OR "
        'last_name" where postgres reads "first_name || \' \' || last_name"; give --dialect postgres, or '
        'dialect = "postgres" in headwater.toml, if the project is postgres SQL'
    ]
    quiet = invoke(*args, "--dialect", "postgres", columns=400)  # given: read as PostgreSQL, nothing to say
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr, quiet.stderr
    (tmp_path / "headwater.toml").write_text('dialect = "postgres"\n')
    stated = invoke(*([command, *files] + (["--store", "z.db"] if command == "ingest" else ["--project"])))
    assert stated.exit_code == 0 and "warning" not in stated.stderr, stated.stderr


def test_no_warning_without_a_dialect_dependent_construct(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sql").write_text("INSERT INTO t SELECT a + 1 AS b FROM s;\n")
    for args in (("ingest", "a.sql", "--store", "x.db"), ("extract", "a.sql", "--project"), ("extract", "a.sql")):
        r = invoke(*args)
        assert r.exit_code == 0 and "warning" not in r.stderr, (args, r.stderr)


STATEMENTS = [
    "INSERT INTO t SELECT `a b` AS c FROM s",
    'INSERT INTO t SELECT "a" AS c, `b` AS d FROM s',
    "INSERT INTO t SELECT a::int AS c FROM s",
    "INSERT INTO t SELECT a FROM s WHERE b ILIKE 'x'",
    "INSERT OVERWRITE TABLE t SELECT `x`.a || 'y' FROM s x",
    "INSERT INTO t SELECT a || b AS c FROM `db`.s",
    'INSERT INTO t SELECT "x" || `y` FROM s',
    "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql",
]


@pytest.mark.parametrize("dialect", ["doris", "mysql", "spark", "hive", "postgres", "tsql", "snowflake", "duckdb"])
def test_no_warning_shows_two_identical_readings(dialect):
    for sql in STATEMENTS:
        hint = dialect_hint([(0, 1, sql)], dialect) or ""
        m = re.search(r"reads (.+) where \w+ reads (.+?); give", hint)
        assert not (m and m.group(1) == m.group(2)), hint


class _CountingPattern:
    """A compiled pattern that counts its searches (the signs' patterns, spied on)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.searches = pattern, 0

    def search(self, text: str) -> re.Match[str] | None:
        self.searches += 1
        return self.pattern.search(text)


def test_an_ascii_statement_without_the_word_is_not_searched_case_insensitively(monkeypatch):
    """Every statement of a file is checked: a case-insensitive ``\\b…`` pattern tries a match at every
    character (≈ 9 % of ``headwater extract``'s TPC-DS time), so it runs only where its word is."""
    spied = [(_CountingPattern(p), *rest) for p, *rest in dialect_hint_module._SIGNS]
    monkeypatch.setattr(dialect_hint_module, "_SIGNS", tuple(spied))
    sql = "INSERT INTO t SELECT a, b FROM s WHERE a LIKE 'x%' AND b = 'table'"
    for dialect in ("generic", "doris", "spark", "postgres"):
        dialect_hint_module._signs(sql, dialect)
    assert {s: p.searches for p, s, *_ in spied if s in ("INSERT OVERWRITE TABLE", "ILIKE")} == {
        "INSERT OVERWRITE TABLE": 0,
        "ILIKE": 0,
    }


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a FROM s WHERE a ilike 'x%'",
        "SELECT a FROM s WHERE a ILIKEx",  # the word without the boundary
        "SELECT a FROM s WHERE xilike",
        "insert  overwrite\n table t select 1",
        "INSERT OVERWRITE t SELECT 1",
        "SELECT a FROM s WHERE a IL\u0131KE 'x%'",  # dotless i: re.I matches it, str.lower() does not
        "SELECT a FROM s WHERE a ILI\u212aE 'x%'",  # Kelvin sign: the same for K
        "SELECT 'é' FROM s WHERE a ILIKE 'x%'",
    ],
)
def test_the_cheap_test_finds_what_the_patterns_find(sql):
    for dialect in ("generic", "doris", "spark", "postgres", "bigquery"):
        own = dialect_hint_module._FAMILY.get(dialect, {dialect})
        expected = [
            (sign, d)
            for p, sign, dialects, *_ in dialect_hint_module._SIGNS
            if dialect not in dialects
            and p.search(sql)
            and not (sign == "backticks" and own & {"mysql", "spark", "bigquery", "hive"})
            and not (sign in ("||", "double quotes") and not own & {"doris", "mysql", "starrocks"})
            for d in dialects
            if d not in own
        ]
        assert dialect_hint_module._signs(sql, dialect) == expected, dialect
