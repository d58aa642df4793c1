"""A first sight extracted once (``StatementReuse._first_sight``): where the template's tree shows
every literal where its value cannot change the events, the template alone is extracted and the
statement answered from it. Each case compares every statement's result with reuse off."""

from __future__ import annotations

import re

import pytest

from headwater.extract import Extractor
from headwater.extract.reuse import StatementReuse
from headwater.extract.split import split_script
from tests.extract.test_reuse import _both, session_rows
from tests.golden.harness import all_cases, case_extractor

_ROWS = "INSERT INTO t SELECT a, b, d, k FROM s"

# Literals whose value the events may depend on, or that sit where the parser reads them: every
# sequence must give what extraction anew gives (most of them are extracted twice on first sight).
ADVERSARIAL = {
    "ordinal": [f"INSERT INTO t SELECT a, b, d, k FROM s ORDER BY {n}" for n in (1, 2, 9, 1)],
    "group_ordinal": [f"INSERT INTO t SELECT a, SUM(b), 0, 0 FROM s GROUP BY {n}" for n in (1, 2, 1)],
    "limit": [f"{_ROWS} LIMIT {n}" for n in (0, 1, 5, 0)],
    "limit_offset": [f"{_ROWS} LIMIT {n} OFFSET {n}" for n in (0, 3, 3)],
    "where_false": [f"{_ROWS} WHERE {n} = 0" for n in (1, 0, 0)],
    "where_literals": [f"{_ROWS} WHERE '{v}' = 'x'" for v in ("x", "y", "x")],
    "case_when": [f"INSERT INTO t SELECT CASE WHEN {n} = 1 THEN a ELSE b END, b, d, k FROM s" for n in (1, 2, 1)],
    "case_then": [f"INSERT INTO t SELECT CASE WHEN a > {n} THEN '{n}' ELSE 'z' END, b, d, k FROM s" for n in (1, 2)],
    "alias_of_literal": [f"INSERT INTO t SELECT '{v}' AS a, b, d, k FROM s WHERE d = '{v}'" for v in "xyx"],
    "unaliased_literal": [f"INSERT INTO t SELECT '{v}', b, d, k FROM s WHERE a = '{v}'" for v in "xyx"],
    "secret_like": [f"{_ROWS} WHERE d = '{v}'" for v in ("x", "password=hunter2", "y", "Bearer abc")],
    "secret_column": [f"{_ROWS} WHERE api_key = '{v}' AND d = '{v}'" for v in ("k1", "k2")],
    "union_same_filter": [
        f"{_ROWS} WHERE d = {x} UNION ALL SELECT a, b, d, k FROM s WHERE d = {y}" for x, y in ((5, 5), (1, 2), (3, 3))
    ],
    "or_same_filter": [f"{_ROWS} WHERE d = {x} OR d = {y}" for x, y in ((1, 2), (3, 3), (4, 5))],
    "join_same_filter": [
        f"INSERT INTO t SELECT s.a, s.b, u.d, u.k FROM s JOIN u ON s.a = u.a AND u.d = {x} WHERE s.d = {y}"
        for x, y in ((1, 2), (3, 3))
    ],
    "join_literals": [
        f"INSERT INTO t SELECT s.a, s.b, u.d, u.k FROM s JOIN u ON s.a = u.a AND {x} = {y}" for x, y in ((1, 1), (1, 2))
    ],
    "in_between_like": [
        f"{_ROWS} WHERE a IN ({x}, 7) AND b BETWEEN {x} AND {y} AND d LIKE '{x}%' AND k NOT IN ('{y}')"
        for x, y in ((1, 2), (3, 3), (0, 10))
    ],
    "having": [f"INSERT INTO t SELECT a, SUM(b), 0, 0 FROM s GROUP BY a HAVING SUM(b) > {n}" for n in (1, 2, 3)],
    "format_string": [f"INSERT INTO t SELECT a, b, DATE_FORMAT(d, '{f}'), k FROM s" for f in ("%Y", "%Y-%m", "%d")],
    "interval": [f"{_ROWS} WHERE d > NOW() - INTERVAL '{n}' DAY" for n in ("1", "2 3", "1")],
    "json_path": [f"INSERT INTO t SELECT JSON_EXTRACT(a, '$.{p}'), b, d, k FROM s" for p in ("x", "y[0]", "x")],
    "partition": [f"INSERT INTO t PARTITION (p = '{v}') SELECT a, b, d, k FROM s" for v in ("x", "y")],
    "table_function": [
        f"INSERT INTO t SELECT * FROM S3('uri' = 's3://b/{v}.csv', 'format' = 'csv')" for v in ("x", "y", "x")
    ],
    "arithmetic": [f"INSERT INTO t SELECT a + {n}, b * {n}, d, k FROM s" for n in (1, 0, 2)],
    "subquery_filter": [
        f"INSERT INTO t SELECT a, (SELECT MAX(b) FROM u WHERE u.d = {n}), d, k FROM s WHERE k < {n}" for n in (1, 2)
    ],
    "cte_filter": [f"INSERT INTO t WITH v AS (SELECT * FROM s WHERE d = '{v}') SELECT * FROM v" for v in "xyz"],
    "unknown_column": [f"{_ROWS} WHERE nope = '{v}' AND d = {n}" for n, v in ((1, "x"), (2, "yy"), (3, "x"))],
    "unknown_target": [f"INSERT INTO nowhere SELECT a, b FROM s WHERE d = {n}" for n in (1, 2)],
    "select": [f"SELECT a FROM s WHERE d = {n} LIMIT {n}" for n in (1, 2)],
    "select_into": [f"SELECT a INTO t2 FROM s WHERE d = {n}" for n in (1, 2)],
    "ctas": [f"CREATE TABLE c{n} AS SELECT a FROM s WHERE d = {n}" for n in (1, 2)],
    "no_literal": [_ROWS, _ROWS, "  " + _ROWS],
    "simple_case": [f"INSERT INTO t SELECT CASE a WHEN {n} THEN 'x' ELSE 'y' END, b, d, k FROM s" for n in (1, 2, 1)],
    "union_items": [f"INSERT INTO t SELECT '{v}', b, d, k FROM s UNION SELECT a, '{v}', d, k FROM u" for v in "xy"],
    "on_duplicate": [f"INSERT INTO t SELECT a, b, d, k FROM s ON DUPLICATE KEY UPDATE a = {n}" for n in (1, 2)],
    "window_frame": [
        f"INSERT INTO t SELECT a, SUM(b) OVER (ORDER BY d ROWS BETWEEN {n} PRECEDING AND CURRENT ROW), d, k FROM s"
        for n in (1, 2)
    ],
    "subquery_items": [
        f"INSERT INTO t SELECT x, b, d, k FROM (SELECT '{v}' AS x, 'a' AS a, b, d, k FROM s) q ORDER BY x" for v in "xy"
    ],
    "outer_name_of_a_literal": [f"INSERT INTO t SELECT w, 1, 2, 3 FROM (SELECT '{v}', a AS w FROM s) q" for v in "wv"],
    "equal_literals": [f"{_ROWS} WHERE d = {x} AND a = {y}" for x, y in ((7, 7), (1, 2), (3, 3))],
    "negative": [f"{_ROWS} WHERE d = -{n}" for n in (1, 2)],
    "cast_literal": [f"{_ROWS} WHERE d = CAST('{n}' AS INT)" for n in (1, 2)],
    "braces": [_ROWS + " WHERE d = '" + v + "' AND k > " + n for v, n in (("{0}", "1"), ("}{", "2"), ("{{1}}", "3"))],
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
@pytest.mark.parametrize("dialect", ["doris", "mysql", "postgres", "snowflake"])
def test_literals_whose_value_may_matter(name, dialect):
    plain, reused, _ = _both(ADVERSARIAL[name], dialect)
    assert plain == reused


def _extractions(statements: list[str]) -> tuple[int, list, list]:
    """How many times the reuse-on session ran the extractor, and both sessions' results."""
    counted = []

    class Counting(Extractor):
        def run_pieces(self, pieces, run=None):  # type: ignore[no-untyped-def]
            counted.append(1)
            return super().run_pieces(pieces, run)

    plain, reused, _ = _both(statements)
    from tests.extract import test_reuse

    saved = test_reuse.Extractor
    test_reuse.Extractor = Counting  # type: ignore[misc]
    try:
        again, _, _ = _both(statements)
    finally:
        test_reuse.Extractor = saved  # type: ignore[misc]
    assert again == plain
    return len(counted) - len(statements), plain, reused  # the reuse-off session extracts each once


def test_a_literal_compared_with_a_column_is_extracted_once():
    sqls = [f"{_ROWS} WHERE d = '2024-01-0{n}' AND k > {n} LIMIT {n}" for n in range(1, 6)]
    extractions, plain, reused = _extractions(sqls)
    assert plain == reused
    assert extractions == 1  # the template, for the first sight; the four re-runs from it


def test_a_literal_whose_place_is_not_proven_is_extracted_with_its_template():
    sqls = [f"INSERT INTO t SELECT a, b, DATE_FORMAT(d, '{f}'), k FROM s" for f in ("%Y", "%m", "%d")]
    extractions, plain, reused = _extractions(sqls)
    assert plain == reused
    assert extractions >= 2


def test_equal_literals_where_the_template_keeps_two_entries():
    # one filter text with the literals equal: the extraction keeps one entry, the template two
    sqls = [f"{_ROWS} WHERE d = {x} UNION ALL SELECT a, b, d, k FROM s WHERE d = {y}" for x, y in ((5, 5), (1, 2))]
    plain, reused, _ = _both(sqls)
    assert plain == reused
    assert len(reused[0][0][7][0]["dataset_indirect"]) == 1 and len(reused[1][0][7][0]["dataset_indirect"]) == 2


_CANDIDATE = re.compile(r"(?<![\w$@#.'\"`\\:])(?:'([^'\\\r\n]*)'|([0-9]+))(?![\w$@#.'\"`\\])")


def _other_literals(sql: str) -> str:
    """``sql`` with each quoted string and run of digits given another value of the same kind."""

    def other(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            return str(int(m.group(2)) + 3)
        return "'" + m.group(1) + "z'"

    return _CANDIDATE.sub(other, sql)


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_golden_statements_with_reuse_give_the_events_of_extraction_anew(case):
    """Each statement of each golden case, then the same with other literals, then the first again,
    in one session with and without reuse."""
    opts = case.options()
    pieces = split_script(case.path.read_text(encoding="utf-8"), opts["dialect"])
    sqls = []
    for p in pieces:
        sqls += [p.sql, _other_literals(p.sql), p.sql]
    out = []
    reuse = StatementReuse(size=100)
    for r in (None, reuse):
        out.append(session_rows(case_extractor(case, reuse=r), sqls))
    for sql, a, b in zip(sqls, out[0], out[1], strict=True):
        assert a == b, sql


def test_the_names_read_directly_are_those_of_the_generic_walk():
    from enum import Enum

    from headwater.extract.reuse import _MODEL_KNOWN, _names, _texts
    from tests.golden.harness import extract_case

    assert _MODEL_KNOWN  # the model is as ``_KNOWN_FIELDS`` says (else the generic walk is used)
    events = [e for case in all_cases() for s in extract_case(case).statements for e in s.events]
    assert len(events) > 200
    for e in events:
        generic: list[str] = []
        direct: list[str] = []
        _texts(e, generic, set())
        _names(e, direct)
        assert {x for x in generic if not isinstance(x, Enum)} <= set(direct)
