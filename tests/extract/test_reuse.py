"""Statements that differ only in literals are extracted once, with exactly the events a fresh
extraction gives (``headwater.extract.reuse``)."""

from __future__ import annotations

from headwater.catalog import ColumnSchema, MemoryCatalog, TableSchema
from headwater.extract import ExtractOptions, Extractor, RunInfo
from headwater.extract.reuse import StatementReuse
from headwater.model import TableRef, event_to_dict

T0 = "2024-05-01T00:00:00Z"


def _catalog() -> MemoryCatalog:
    cat = MemoryCatalog()
    cols = tuple(ColumnSchema(c, "INT") for c in ("a", "b", "d", "k"))
    for name in ("s", "u", "t"):
        cat.put(TableRef("internal", "db", name), TableSchema(cols))
    return cat


def _both(statements: list[str], dialect: str = "doris") -> tuple[list, list, StatementReuse]:
    """The results of the statements in one session, without and with reuse (as event dicts)."""
    reuse = StatementReuse(size=50)
    out = [
        session_rows(Extractor(_catalog(), ExtractOptions(dialect=dialect), database="db", reuse=r), statements)
        for r in (None, reuse)
    ]
    return out[0], out[1], reuse


def session_rows(ex: Extractor, statements: list[str]) -> list[list[tuple]]:
    """Each statement run in ``ex``'s session (query ids q0, q1, …): every result's position, kind,
    skip, error and events (as dicts)."""
    rows = []
    for n, sql in enumerate(statements):
        res = ex.run(sql, RunInfo(query_id=f"q{n}", user="etl", timestamp=T0))
        rows.append(
            [
                (s.index, s.line, s.column, s.sql, s.kind, s.skip_reason, s.error, [event_to_dict(e) for e in s.events])
                for s in res.statements
            ]
        )
    return rows


def test_reruns_with_other_literals_give_the_events_of_a_fresh_extraction():
    sqls = [
        f"INSERT INTO t SELECT a, b + {n}, CASE WHEN d > {n} THEN 'x{n}' END, k FROM s WHERE d = '2024-01-0{n}'"
        for n in range(1, 8)
    ]
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    assert reuse.hits == 6  # the first sight is extracted, the others answered from the template
    filters = [r[0][7][0]["dataset_indirect"][0]["expression"] for r in reused]
    assert filters[-1] == "s.d = '2024-01-07'"


def test_diagnostics_move_to_the_statement_own_positions():
    # `nope` is unknown: its diagnostic has a position, which shifts with the literals before it
    sqls = [f"INSERT INTO t SELECT {'9' * n}, nope, a, b FROM s WHERE d = '{'x' * n}'" for n in range(1, 6)]
    sqls += ["  -- a comment first\n" + sqls[0]]
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    assert reuse.hits >= 1


def test_the_session_own_ddl_keeps_later_statements_from_an_older_template():
    sqls = [
        "INSERT INTO t SELECT a, b, d, k FROM u WHERE d = 1",
        "INSERT INTO t SELECT a, b, d, k FROM u WHERE d = 2",
        "INSERT INTO t SELECT a, b, d, k FROM u WHERE d = 3",
        "DROP TABLE u",
        "CREATE TABLE u (a INT, b INT, d INT, k INT, z INT)",
        "INSERT INTO t SELECT a, b, d, k FROM u WHERE d = 4",
        "CREATE VIEW v AS SELECT a, b, d, k FROM u",
        "INSERT INTO t SELECT a, b, d, k FROM v WHERE d = 5",
        "INSERT INTO t SELECT a, b, d, k FROM v WHERE d = 6",
        "INSERT INTO t SELECT a, b, d, k FROM v WHERE d = 7",
        "CREATE OR REPLACE VIEW v AS SELECT b AS a, a AS b, d, k FROM u",
        "INSERT INTO t SELECT a, b, d, k FROM v WHERE d = 8",
    ]
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    last = reused[-1][0][7][0]["direct"]
    assert [x["sources"][0]["column"] for x in last[:2]] == ["b", "a"]  # the replaced view, not the template
    assert reuse.hits >= 2


def test_ordinals_and_type_sizes_are_part_of_the_shape():
    sqls = [
        "INSERT INTO t SELECT a, SUM(b), 0, 0 FROM s GROUP BY 1",
        "INSERT INTO t SELECT a, SUM(b), 0, 0 FROM s GROUP BY 1",
        "INSERT INTO t SELECT a, SUM(b), 0, 0 FROM s GROUP BY 1",
        "INSERT INTO t SELECT d, SUM(b), 0, 0 FROM s GROUP BY 1",
        "INSERT INTO t SELECT CAST(a AS DECIMAL(10, 2)), b, d, k FROM s",
        "INSERT INTO t SELECT CAST(a AS DECIMAL(12, 4)), b, d, k FROM s",
    ]
    plain, reused, _ = _both(sqls)
    assert plain == reused


def test_a_literal_that_names_something_is_not_reused(tmp_path):
    # Doris S3() table function: the literal is where the data lives, not a value of a column
    sqls = [f"SELECT * FROM t WHERE a = {n}" for n in range(4)]
    sqls += [f"INSERT INTO t SELECT a, b, d, k FROM s LIMIT {n}" for n in range(4)]
    plain, reused, _ = _both(sqls)
    assert plain == reused


def test_other_dialects_and_escaped_literals():
    sqls = [
        f"INSERT INTO t SELECT 'v{n}' AS a, a - {n} AS b, a AS d, b AS k FROM s WHERE b <> 'it''s {n}'"
        for n in range(5)
    ]
    for dialect in ("doris", "postgres", "snowflake", "tsql"):
        plain, reused, reuse = _both(sqls, dialect)
        assert plain == reused, dialect
        assert reuse.hits == 4, dialect
    sqls = [
        f"INSERT INTO t SELECT 'v{n}' AS a, a - {n} AS b, a AS d, b AS k FROM s WHERE b <> 'x {n}'" for n in range(5)
    ]
    for dialect in ("bigquery", "spark", "trino", "mysql"):
        plain, reused, reuse = _both(sqls, dialect)
        assert plain == reused, dialect
        assert reuse.hits == 4, dialect


def test_a_name_made_from_a_literal_is_never_taken_from_the_template():
    # Snowflake folds to upper case: the catalog's lower-case `t` is unknown, so the target's columns
    # are the query's output names, one of them the literal's text.
    sqls = [f"INSERT INTO t SELECT 'v{n}', a FROM s" for n in range(5)]
    plain, reused, reuse = _both(sqls, "snowflake")
    assert plain == reused
    assert reuse.hits == 0
