"""The skeleton path of ``headwater.extract.reuse``: a statement answered without the tokenizer is
seen exactly as the tokenizer sees it, or not answered that way at all."""

from __future__ import annotations

import uuid

import pytest
from sqlglot.dialects.dialect import Dialect

from headwater.catalog import ColumnSchema, MemoryCatalog, TableSchema
from headwater.extract import ExtractOptions, Extractor, RunInfo
from headwater.extract.reuse import StatementReuse, event_id, sight_of
from headwater.model import TableRef, event_to_dict, make_event_id
from tests.extract.test_reuse import T0, _both

# Pairs of statements of one skeleton (the second differs in its candidates' text and length).
PAIRS = [
    ("SELECT a FROM s WHERE d = '2024-01-01' AND k > 7", "SELECT a FROM s WHERE d = '2024-12-31x' AND k > 70000"),
    ("SELECT a, 1 FROM s GROUP BY 1", "SELECT a, 22 FROM s GROUP BY 3"),  # kept numbers are in the key
    ("SELECT CAST(a AS DECIMAL(10, 2)) FROM s", "SELECT CAST(a AS DECIMAL(12, 4)) FROM s"),
    ("SELECT a FROM s -- it's 5\nWHERE d = '5'", "SELECT a FROM s -- it's 5\nWHERE d = '66'"),  # quote in a comment
    ("SELECT a FROM s /* '1' */ WHERE d = 1", "SELECT a FROM s /* '1' */ WHERE d = 22"),
    ("SELECT 'it''s' AS x, 1 FROM s", "SELECT 'it''s' AS x, 22 FROM s"),  # doubled quote: not a candidate
    ("SELECT N'x' AS x, E'y' AS y, 3 FROM s", "SELECT N'x' AS x, E'y' AS y, 44 FROM s"),
    ("SELECT a1, 1.5, 2e3, $1, :2, @3 FROM s WHERE d = 4", "SELECT a1, 1.5, 2e3, $1, :2, @3 FROM s WHERE d = 55"),
    ('SELECT "q 1" FROM s WHERE d = 1', 'SELECT "q 1" FROM s WHERE d = 22'),  # digits in a quoted name
    ("SELECT a FROM s WHERE d = 'a\\'b' OR d = 1", "SELECT a FROM s WHERE d = 'a\\'b' OR d = 22"),  # backslash
    (
        "  \n-- lead\nSELECT a FROM s\n WHERE d = '1'\r\n AND k = 2;  -- tail",
        "  \n-- lead\nSELECT a FROM s\n WHERE d = '111'\r\n AND k = 2222;  -- tail",
    ),
    ("SELECT x'0F', b'1', 0x1F, 07 FROM s", "SELECT x'0F', b'1', 0x1F, 0777 FROM s"),
    ("SELECT a FROM s WHERE d = '1' LIMIT 10", "SELECT a FROM s WHERE d = 'ünï' LIMIT 200"),
    ("SELECT a FROM s WHERE d = '1' -- 'c'", "SELECT a FROM s WHERE d = '22' -- 'zzz'"),  # a string in a comment
]


def _view(sight):
    return (sight.key, sight.names, sight.literals, sight.text, sight.first)


@pytest.mark.parametrize("dialect", ["doris", "mysql", "postgres", "snowflake", "bigquery", "tsql", "spark"])
@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_a_statement_answered_from_a_plan_is_what_its_tokens_say(dialect, first, second):
    d = Dialect.get_or_raise(dialect)
    plans: dict = {}
    if sight_of(first, d, plans) is None:  # not tokenizable in this dialect
        return
    fast, slow = sight_of(second, d, plans), sight_of(second, d)
    assert (fast is None) == (slow is None)
    if fast is None:
        return
    assert _view(fast) == _view(slow)
    tokens = slow.shape().tokens
    assert [fast.position(k) for k in range(len(tokens))] == [slow.position(k) for k in range(len(tokens))]
    assert fast.hinted() == slow.hinted()
    assert fast.spans() == slow.spans()


def test_the_plan_is_used_and_a_skeleton_the_tokens_disagree_with_is_not():
    d = Dialect.get_or_raise("doris")
    plans: dict = {}
    sight_of("SELECT a FROM s WHERE d = '1'", d, plans)
    sight_of("SELECT a FROM s -- not 'b'\nWHERE d = '1'", d, plans)
    kinds = sorted(type(p).__name__ for p in plans.values())
    assert kinds == ["_Plan", "str"]  # a string in a comment: a candidate the tokenizer does not see
    assert sight_of("SELECT a FROM s WHERE d = '22'", d, plans).tokenized is None  # answered without tokens


def test_event_ids_are_those_of_make_event_id():
    for qid in ("q1", "0f3c-77", "ünïcode", ""):
        for target in (TableRef("internal", "db", "t"), TableRef("c", None, "x y")):
            assert event_id(qid, f"\x1f{target}".encode()) == make_event_id(qid, target)
            uuid.UUID(event_id(qid, f"\x1f{target}".encode()))


def test_a_rerun_with_a_secret_in_a_literal_is_extracted_and_redacted():
    sqls = [f"INSERT INTO t SELECT a, b, d, k FROM s WHERE d = '{v}'" for v in ("x", "y", "z")]
    sqls.append("INSERT INTO t SELECT a, b, d, k FROM s WHERE d = 'postgresql://etl:hunter2@db/x'")
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    assert "hunter2" not in str(reused[-1])
    assert reuse.hits == 2


def test_reruns_whose_literals_change_length_before_a_positioned_diagnostic():
    # `nope` is unknown: its diagnostic's column moves with the literals before it, on every line
    sqls = [
        f"INSERT INTO t\nSELECT {'9' * n}, '{'x' * n}', a,\n  nope FROM s WHERE d = '{'y' * n}'" for n in range(1, 7)
    ]
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    assert reuse.hits == 5
    reuse_off = StatementReuse(size=50, skeletons=False)
    assert reuse_off._plans is None


def test_reruns_over_tables_with_properties_the_session_declared():
    # the context carries the properties of the tables read (Flink WITH): from the session's own DDL
    sqls = [
        "CREATE TABLE src (a INT, b INT) WITH ('connector' = 'kafka', 'topic' = 'in')",
        "CREATE TABLE snk (a INT, b INT) WITH ('connector' = 'jdbc', 'table-name' = 'out')",
    ]
    sqls += [f"INSERT INTO snk SELECT a, b + {n} FROM src WHERE a > {n}" for n in range(4)]
    sqls += ["DROP TABLE src", "CREATE TABLE src (a INT, b INT) WITH ('connector' = 'kafka', 'topic' = 'other')"]
    sqls += [f"INSERT INTO snk SELECT a, b + {n} FROM src WHERE a > {n}" for n in range(4)]
    plain, reused, reuse = _both(sqls, "flink")
    assert plain == reused
    props = [r[0][7][0]["context"]["external_catalog_properties"] for r in reused[2:6] + reused[8:]]
    assert [p["db.src.topic"] for p in props] == ["in"] * 4 + ["other"] * 4
    assert reuse.hits >= 4


def test_a_base_view_over_a_table_the_session_redeclares():
    # `v` is the base catalog's view over `u`; the session declares `u` again with other options:
    # the statements name `v` only, and the context carries what the session's `u` gives
    cat = MemoryCatalog()
    cols = (ColumnSchema("a", "INT"), ColumnSchema("b", "INT"))
    cat.put(TableRef("default_catalog", "db", "u"), TableSchema(cols, properties=(("topic", "one"),)))
    cat.put(TableRef("default_catalog", "db", "v"), TableSchema(cols, view_sql="SELECT a, b FROM u"))
    cat.put(TableRef("default_catalog", "db", "snk"), TableSchema(cols))
    sqls = [f"INSERT INTO snk SELECT a, b FROM v WHERE a > {n}" for n in range(3)]
    sqls += ["CREATE TABLE u (a INT, b INT) WITH ('topic' = 'two')"]
    sqls += [f"INSERT INTO snk SELECT a, b FROM v WHERE a > {n}" for n in range(3, 6)]
    out = []
    for r in (None, StatementReuse(size=50)):
        ex = Extractor(cat, ExtractOptions(dialect="flink"), database="db", catalog_name="default_catalog", reuse=r)
        out.append(
            [
                [event_to_dict(e) for e in ex.run(s, RunInfo(query_id=f"q{n}", timestamp=T0)).events]
                for n, s in enumerate(sqls)
            ]
        )
    assert out[0] == out[1]
    topics = [e[0]["context"]["external_catalog_properties"].get("db.u.topic") for e in out[1] if e]
    assert topics[:3] == ["one"] * 3 and topics[3:] != topics[:3]  # the session's `u`, not the template's


def test_the_ascii_scan_splits_as_the_regular_expression():
    """``_split_ascii`` (``bytes.find`` from quote to digit) gives exactly what ``_CANDIDATES.split``
    gives: on random texts of the characters that matter (quotes, digits, edges, escapes, line breaks)
    and on every statement of the golden corpus."""
    import random

    from headwater.extract.reuse import _CANDIDATES, _split_ascii
    from headwater.extract.split import split_script
    from tests.golden.harness import all_cases

    def by_regex(text: str) -> tuple:
        parts = _CANDIDATES.split(text)
        strings = parts[1::3]
        found = [s if s is not None else n for s, n in zip(strings, parts[2::3], strict=True)]
        return (tuple(parts[0::3]), tuple(s is None for s in strings)), found

    rnd = random.Random(14)
    alphabet = "a1'0 \\\n\r.$@#:\"`_x9-,()=\t"
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 16))) for _ in range(40_000)]
    texts += [f"{a} = '{b}' AND k{c} > {c}" for a, b, c in (("d", "2024-01-01", 7), ("x1", "a'", 12), (":p", "", 0))]
    for case in all_cases():
        texts += [p.sql for p in split_script(case.path.read_text(encoding="utf-8"), case.options()["dialect"])]
    checked = 0
    for text in texts:
        if text.isascii():
            assert _split_ascii(text) == by_regex(text), text
            checked += 1
    assert checked > 40_000
