"""The split's block check (``split._may_hold_a_block``) answers as the regular expressions it replaced."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError

from headwater.extract.blocks import ROUTINE_WORDS, UNCOUNTED_CLOSE
from headwater.extract.split import _closes_uncounted, _may_hold_a_block, sqlglot_dialect

# the former check: the statement's words joined by NUL, searched by two regular expressions
_ROUTINE_WORD = re.compile("(?:^|\x00)(?:" + "|".join(sorted(ROUTINE_WORDS)) + ")(?:\x00|$)")
_UNCOUNTED_END = re.compile("(?:^|\x00)END\x00(?:" + "|".join(sorted(UNCOUNTED_CLOSE)) + ")(?:\x00|$)")


def _reference(chunk) -> bool:
    if not chunk:
        return False
    first = chunk[0].text.upper()
    if first in ("BEGIN", "DECLARE"):
        return True
    words = "\x00".join(t.text for t in chunk).upper()
    if first == "CREATE" and _ROUTINE_WORD.search(words):
        return True
    return _UNCOUNTED_END.search(words) is not None


_ROOT = Path(__file__).resolve().parents[2]
_SCRIPTS = sorted(_ROOT.glob("tests/**/*.sql"))
_EXTRA = [
    "CREATE PROCEDURE p() BEGIN IF a THEN SELECT 1; END IF; END",
    "CREATE FUNCTION f() RETURNS INT BEGIN RETURN 1; END",
    "SELECT 'END' , 'IF' FROM t",
    'SELECT x AS "end", y AS "if" FROM t',
    "SELECT 'a\\'END IF' FROM t",
    "SELECT CASE WHEN a THEN 1 END AS weekend_if FROM t",
    "WHILE x DO SELECT 1; END WHILE",
    "SELECT é, END FOR FROM t",
    "CREATE TABLE procedure_log (a INT)",
    "LOOP SELECT 1; END LOOP",
]


def _statements(sql: str, dialect: str):
    """Each statement's tokens (cut at every semicolon: every cut is a statement the check may see)."""
    try:
        tokens = Dialect.get_or_raise(sqlglot_dialect(dialect)).tokenize(sql)
    except (TokenError, ValueError):
        return
    chunk = []
    for t in tokens:
        if t.token_type.name == "SEMICOLON":
            yield chunk
            chunk = []
        else:
            chunk.append(t)
    yield chunk


@pytest.mark.parametrize("dialect", ["generic", "mysql", "doris", "postgres", "tsql", "bigquery", "spark"])
def test_the_block_check_answers_as_before(dialect: str) -> None:
    texts = [p.read_text(encoding="utf-8") for p in _SCRIPTS] + _EXTRA
    seen = 0
    for sql in texts:
        for chunk in _statements(sql, dialect):
            assert _may_hold_a_block(chunk, sql) == _reference(chunk), sql[:200]
            assert _may_hold_a_block(chunk) == _reference(chunk)
            seen += 1
    assert seen > 300


def test_an_end_before_a_word_it_closes() -> None:
    assert [
        _closes_uncounted(w) for w in ("END\x00IF", "X\x00END\x00END\x00LOOP", "END\x00IFX", "XEND\x00IF", "END")
    ] == [
        True,
        True,
        False,
        False,
        False,
    ]
