"""Issue 17 items 5, 6 and 8: oversized statements, CTAS that does not parse, NUL bytes, empty names."""

from __future__ import annotations

from headwater.extract import ExtractOptions, Extractor, extract_script


def test_a_10_mb_statement_fails_alone_and_the_others_keep_their_lines() -> None:
    big = "INSERT INTO t SELECT a FROM s WHERE a IN (" + ", ".join(str(i) for i in range(1_500_000)) + ")"
    assert len(big) > 10_000_000
    sql = "INSERT INTO t1 SELECT a FROM s;\n" + big + ";\n\nINSERT INTO t2 SELECT b FROM s"
    res = extract_script(sql)
    first, second, third = res.statements
    assert second.error is not None and second.error.code == "statement_too_large"
    assert "HEADWATER_EXTRACT_MAX_STATEMENT_BYTES" in second.error.message and second.line == 2
    assert [e.target.table.name for e in first.events] == ["t1"]
    assert [e.target.table.name for e in third.events] == ["t2"] and third.line == 4
    assert [d.expression for d in third.events[0].direct] == ["s.b"]


def test_the_size_limit_is_configurable() -> None:
    from headwater.extract.guards import Limits

    ex = Extractor(options=ExtractOptions(limits=Limits(max_statement_bytes=100)))
    res = ex.run(
        "INSERT INTO t SELECT " + ", ".join(f"a{i}" for i in range(40)) + " FROM s;\nINSERT INTO u SELECT a FROM s"
    )
    assert [s.error.code if s.error else None for s in res.statements] == ["statement_too_large", None]


def test_a_ctas_that_does_not_parse_is_an_error_not_a_skip() -> None:
    res = extract_script("CREATE TABLE c1 AS SELECT a b c d FROM s;\nINSERT INTO t SELECT a FROM s")
    first, second = res.statements
    assert first.error is not None and first.error.code == "parse_error" and first.failed
    assert "CREATE TABLE … AS SELECT" in first.error.message
    assert second.events


def test_a_ctas_with_a_misspelt_select_is_an_error_not_a_silent_skip() -> None:
    # sqlglot keeps ``CREATE TABLE c1 AS SELEC …`` as an opaque command with no SELECT token in it
    res = extract_script(
        "CREATE TABLE c1 AS SELEC a FROM s;\nCREATE TABLE c2 (a INT AS (b + 1));\nINSERT INTO t SELECT a FROM s"
    )
    first, ddl, insert = res.statements
    assert (
        first.error is not None
        and first.error.code == "parse_error"
        and (first.error.line, first.error.column) == (1, 1)
    )
    assert ddl.error is None  # an AS inside the column list is not a CTAS
    assert insert.events


def test_postgres_on_commit_drop_and_mysql_ignore_replace_ctas_make_events() -> None:
    cases = [
        ("postgres", "CREATE TEMP TABLE t ON COMMIT DROP AS SELECT a FROM s"),
        ("mysql", "CREATE TABLE t IGNORE SELECT a FROM s"),
        ("mysql", "CREATE TABLE t REPLACE AS SELECT a FROM s"),
        ("mysql", "CREATE TABLE t (x INT) IGNORE SELECT a AS x FROM s"),
    ]
    for dialect, sql in cases:
        res = extract_script(sql, dialect=dialect)
        (e,) = res.events
        assert (e.target.table.name, [d.expression for d in e.direct]) == ("t", ["s.a"]), sql
        assert res.statements[0].sql == sql


def test_a_nul_byte_fails_only_its_statement() -> None:
    res = extract_script("INSERT INTO t SELECT a\x00b FROM s;\nINSERT INTO t2 SELECT a FROM s")
    first, second = res.statements
    assert first.error is not None and first.error.code == "nul_byte"
    assert (first.error.line, first.error.column) == (1, 23)
    assert not first.events
    assert [d.expression for d in second.events[0].direct] == ["s.a"]


def test_extract_cli_fails_only_the_statement_with_a_nul(tmp_path) -> None:
    from typer.testing import CliRunner

    from headwater.cli.main import app

    path = tmp_path / "nul.sql"
    path.write_bytes(b"INSERT INTO t SELECT a\x00b FROM s;\nINSERT INTO t2 SELECT a FROM s;\n")
    result = CliRunner().invoke(app, ["extract", str(path), "--format", "jsonl"])
    assert "binary data" not in result.output
    assert '"t2"' in result.output and "NUL byte at line 1, column 23" in result.output, result.output


def test_an_empty_quoted_name_fails_the_statement_with_empty_identifier() -> None:
    for sql in [
        "INSERT INTO t SELECT a FROM s, ``",
        "INSERT INTO t SELECT a FROM s WHERE a IN (SELECT b FROM ``)",
        "INSERT INTO t SELECT a FROM s WHERE EXISTS (SELECT 1 FROM `` WHERE x = 1)",
    ]:
        (st,) = extract_script(sql).statements
        assert st.error is not None and st.error.code == "empty_identifier", (sql, st.error)
        assert not st.events


def test_a_long_literal_in_list_keeps_its_lineage_and_is_shortened() -> None:
    values = ", ".join(str(i) for i in range(200_000))
    res = extract_script(f"INSERT INTO t SELECT a FROM s WHERE b IN ({values}) AND c = 1", database="db")
    (e,) = res.events
    assert [d.expression for d in e.direct] == ["s.a"]
    first, second = e.dataset_indirect
    assert first.expression == "s.b IN (" + ", ".join(str(i) for i in range(1000)) + ")"
    assert [str(c) for c in first.sources] == ["internal.db.s.b"]
    assert second.expression == "s.c = 1"
    (note,) = [d for d in e.diagnostics if d.code == "in_list_abbreviated"]
    assert "200,000 literals" in note.message and note.severity.value == "INFO"
    assert e.status.value == "COMPLETE"


def test_a_short_in_list_is_kept_whole() -> None:
    (e,) = extract_script("INSERT INTO t SELECT a FROM s WHERE b IN (1, -2, 'x')").events
    assert [i.expression for i in e.dataset_indirect] == ["s.b IN (1, -2, 'x')"]


def test_a_quoted_name_with_brackets_keeps_its_text_in_the_event_and_the_store(tmp_path) -> None:
    import sqlalchemy as sa

    from headwater.store import open_store

    (e,) = extract_script('INSERT INTO t SELECT "a[/b]" AS "x[/y]" FROM s', dialect="postgres").events
    assert [c.column for d in e.direct for c in d.sources] == ["a[/b]"]
    assert [f.name for f in e.target.columns] == ["x[/y]"]
    store = open_store(f"sqlite:///{tmp_path / 'lineage.db'}")
    store.record(e)
    with store.engine.connect() as conn:
        names = sorted(r[0] for r in conn.execute(sa.text("SELECT name FROM hw_nodes WHERE type = 'FIELD'")))
    assert names == ["internal.s.a[/b]", "internal.t.x[/y]"]
