"""Bad input: clear diagnostics with statement, line and column; the good statements still give events."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model import Severity


def test_unparsable_statement_names_its_line_and_column_and_others_survive():
    sql = "INSERT INTO t SELECT a FROM s;\n\nINSERT INTO t SELEC a FROM s;\nINSERT INTO u SELECT b FROM s"
    res = extract_script(sql, database="db")
    assert [s.kind for s in res.statements] == ["insert", "unparsed", "insert"]
    bad = res.statements[1]
    assert bad.failed
    assert (bad.index, bad.line, bad.error.statement_index) == (1, 3, 1)
    assert bad.error.code == "parse_error"
    assert bad.error.line == 3 and bad.error.column is not None
    assert "statement 2" in bad.error.message
    assert [e.target.table.name for e in res.events] == ["t", "u"]


def test_unterminated_string_does_not_take_the_script_down():
    res = extract_script("INSERT INTO t SELECT a FROM s;\nINSERT INTO t SELECT 'oops FROM s;\n", database="db")
    assert len(res.events) == 1
    assert res.statements[1].failed
    assert res.statements[1].line == 2


def test_empty_and_comment_only_scripts_have_no_statements():
    assert extract_script("").statements == ()
    assert extract_script("  \n-- nothing here\n/* at all */\n").statements == ()
    assert extract_script(";;;").statements == ()


def test_garbage_text_is_an_error_not_an_exception():
    res = extract_script("\x7f\x01 ]]]] ((( SELECT FROM FROM ;; \ufffd\ufffd")
    assert res.events == []
    assert all(s.failed for s in res.statements)


def test_unknown_table_with_a_catalog_is_reported_as_info():
    from headwater.catalog import MemoryCatalog

    res = extract_script("INSERT INTO t SELECT a FROM nowhere", catalog=MemoryCatalog(), database="db")
    e = res.events[0]
    assert [(d.code, d.severity) for d in e.diagnostics if d.code == "unknown_table"] == [
        ("unknown_table", Severity.INFO)
    ]
    assert e.status.value == "COMPLETE"


def test_five_megabyte_script_with_a_few_broken_statements():
    good = (
        "INSERT INTO target_{i} WITH c AS (SELECT o.id, UPPER(o.region) AS r, SUM(o.amount) AS total "
        "FROM orders o JOIN customers k ON o.cust = k.id WHERE o.status = 'PAID' AND o.note <> '{pad}' "
        "GROUP BY o.id, UPPER(o.region)) SELECT id, r, total FROM c ORDER BY total"
    )
    broken = {17, 2500, 4999}
    parts = []
    for i in range(5000):
        parts.append("INSERT INTO t SELEC FROM WHERE" if i in broken else good.format(i=i, pad="x" * 760))
    sql = ";\n".join(parts)
    assert len(sql) > 5_000_000
    res = extract_script(sql, database="db")
    assert len(res.statements) == 5000
    assert [s.index for s in res.failures] == sorted(broken)
    assert [s.line for s in res.failures] == [i + 1 for i in sorted(broken)]
    assert len(res.events) == 4997
    assert {e.status.value for e in res.events} == {"COMPLETE"}


@pytest.mark.parametrize(
    ("sql", "dialect", "what"),
    [
        ("INSERT INTO `` SELECT a FROM s", "mysql", "the target table"),
        ("INSERT INTO t (``) SELECT a FROM s", "mysql", "a target column"),
        ('CREATE TABLE t AS SELECT a AS "" FROM s', "postgres", "a target column"),
        ('INSERT INTO t (x) SELECT "" FROM s', "postgres", "a source table or column"),
    ],
)
def test_an_empty_identifier_fails_its_statement_only(sql: str, dialect: str, what: str) -> None:
    res = extract_script(f"INSERT INTO t2 SELECT a FROM s;\n{sql};\nINSERT INTO t3 SELECT a FROM s", dialect=dialect)
    first, bad, last = res.statements
    assert len(first.events) == len(last.events) == 1 and bad.events == ()
    assert bad.error is not None and (bad.error.code, bad.error.line) == ("empty_identifier", 2)
    assert bad.error.message == f"an empty identifier names {what}: no lineage can be recorded"


@pytest.mark.parametrize("dialect", ["postgres", "bigquery", "spark", "duckdb"])
def test_a_derived_column_list_longer_than_its_query_is_an_honest_error(dialect):
    """``(SELECT 1 AS a) AS t(a, b)``: the database rejects it; a clear diagnostic, no internal error,
    and the columns that are there keep their lineage."""
    res = extract_script(
        "INSERT INTO db.o SELECT t.a, s.x FROM db.s, (SELECT y AS a FROM db.u) AS t(a, b)",
        dialect=dialect,
        database="db",
    )
    (e,) = res.events
    assert [(d.code, d.severity, d.message) for d in e.diagnostics if d.code != "target_bound_by_name"] == [
        ("column_count_mismatch", Severity.ERROR, "t has 1 columns but its alias lists 2")
    ]
    assert [(d.target_column, [str(c) for c in d.sources]) for d in e.direct] == [
        ("a", ["internal.db.u.y"]),
        ("x", ["internal.db.s.x"]),
    ]


def test_a_derived_column_list_over_unknown_columns_is_no_internal_error():
    res = extract_script("INSERT INTO db.o SELECT * FROM (SELECT * FROM db.s) AS t(a, b)", dialect="postgres")
    assert not res.failures and not [d for e in res.events for d in e.diagnostics if d.code == "internal_error"]
