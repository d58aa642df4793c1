"""The template's tokens made from the statement's (``reuse._retoken``): exactly what the tokenizer
makes of the template's text, for every statement of the golden corpus with a skeleton plan, with
all its literals as placeholders and with some of them put back (``_draft``'s second pass)."""

from __future__ import annotations

import pytest
from sqlglot.dialects.dialect import Dialect

from headwater.catalog.dialects import sqlglot_dialect
from headwater.extract.reuse import _placeholder, _retoken, shape_of, sight_of, template_sql
from headwater.extract.split import split_script
from tests.extract.test_reuse_first_sight import _other_literals
from tests.extract.test_reuse_skeleton import PAIRS
from tests.golden.harness import all_cases


def _form(tokens) -> list[tuple]:
    return [(t.token_type, t.text, t.line, t.col, t.start, t.end, t.comments) for t in tokens]


def _check(sql: str, dialect: Dialect) -> bool:
    """Whether ``sql`` has a plan; asserts the made tokens equal the tokenizer's for two templates."""
    sight = sight_of(sql, dialect, {})
    if sight is None or sight.plan is None or sight.found is None or not sight.literals:
        return False
    plan, found = sight.plan, sight.found
    spans = sight.spans()
    assert spans is not None
    types = [tt for tt, _ in sight.literals]
    tokens = shape_of(sql, dialect).tokens  # type: ignore[union-attr]
    every = frozenset(range(len(types)))
    for kept in (frozenset(), frozenset(range(0, len(types), 2)), frozenset(), every):  # one after the other
        text = template_sql(sql, spans[1], types, kept)
        edits = {
            i: found[plan.literals[n]] if n in kept else _placeholder(tt, n).strip("'")
            for n, (i, tt) in enumerate(zip(plan.literal_tokens, types, strict=True))
        }
        _retoken(tokens, edits, plan.numbers, plan.literals, plan.literal_tokens)
        expected = shape_of(text, dialect)
        assert expected is not None, text
        assert _form(tokens) == _form(expected.tokens), text
    return True


def test_made_tokens_are_the_tokenizers_on_the_skeleton_pairs():
    d = Dialect.get_or_raise("doris")
    checked = sum(_check(sql, d) for pair in PAIRS for sql in pair)
    assert checked >= 6


def test_made_tokens_on_several_lines_and_literals_of_other_widths():
    d = Dialect.get_or_raise("mysql")
    sqls = [
        "INSERT INTO t SELECT a, 'x', 'yy'\n  FROM s WHERE d = '2024-01-01' AND k IN (1, 22, 333)\n"
        "  AND b = 'ü' -- a note\n  /* and another */ AND a > 123456789012 LIMIT 5",
        "SELECT 'a' AS x,'b' AS y FROM s WHERE d='' AND k=0\r\nAND a = '1'",
        "\n\n   SELECT\n'x'\n,\n1\nFROM s;\n;",
    ]
    assert all(_check(sql, d) for sql in sqls)


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_made_tokens_are_the_tokenizers_on_the_golden_statements(case):
    dialect = case.options()["dialect"]
    d = Dialect.get_or_raise(sqlglot_dialect(dialect))
    for piece in split_script(case.path.read_text(encoding="utf-8"), dialect):
        for sql in (piece.sql, _other_literals(piece.sql)):
            _check(sql, d)


@pytest.mark.parametrize(
    ("dialect", "sql", "expected"),
    [
        ("mysql", "SELECT a AS 'x', b FROM s WHERE d = 1", None),  # a string made an alias: no template
        ("duckdb", "SELECT a FROM s WHERE d > NOW() - INTERVAL '60z' day", {0: False}),  # the parser reads it
        ("doris", "SELECT a FROM s WHERE d = 'x' AND k > 3 LIMIT 5", {0: True, 1: True, 2: True}),
    ],
)
def test_neutral_places_of_a_template(dialect, sql, expected):
    import sqlglot

    from headwater.extract.reuse import _neutral

    d = Dialect.get_or_raise(sqlglot_dialect(dialect))
    sight = sight_of(sql, d, None)
    spans = sight.spans()
    types = [tt for tt, _ in sight.literals]
    text = template_sql(sql, spans[1], types)
    tree = sqlglot.parse_one(text, read=d)
    assert _neutral(tree, types, frozenset()) == expected, text
