"""``normalised_sql`` (what ``sql_fingerprint`` digests) against the code it replaced: comments and
strings substituted only where the text holds them, numbers found digit first, blanks folded by
``str.split``. The reference is the earlier code, kept here."""

from __future__ import annotations

import random
import re

import pytest
from tests.shared_data import shared_path

from headwater.model.job import normalised_sql, sql_fingerprint

_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_STRINGS = re.compile(r"'(?:[^'\\]|\\.|'')*'")
_NUMBERS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b")
_SPACE = re.compile(r"\s+")


def _reference(sql: str) -> str:
    text = _COMMENTS.sub(" ", sql)
    text = _STRINGS.sub("?", text)
    text = _NUMBERS.sub("?", text)
    return _SPACE.sub(" ", text).strip().lower().rstrip(";").strip()


_ALPHABET = "aZ_1 09.eE+-'\\/*\n\t\r;x\u00a0\u2003\u1680\x1c\x85é٣"  # Unicode blanks and digits too


def test_the_same_text_on_random_statements() -> None:
    rnd = random.Random(14)
    checked = 0
    for length, count in ((8, 40_000), (40, 20_000), (200, 2_000)):
        for _ in range(count):
            text = "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randint(0, length)))
            assert normalised_sql(text) == _reference(text), repr(text)
            checked += 1
    assert checked == 62_000


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t SELECT a1, b.2, 3.5e-2, x3y FROM s WHERE d = 'it''s' AND n > 42 -- note\n;",
        "SELECT 1e5, 1.5, .5, 5., t1.c2 /* a\n b */ FROM t WHERE s = 'a\\'b'",
        "select\u00a0\u2003 12 ;;",
        "",
    ],
)
def test_the_same_text_on_written_statements(sql: str) -> None:
    assert normalised_sql(sql) == _reference(sql)


def test_the_same_text_on_the_corpus() -> None:
    files = sorted(shared_path("corpus").glob("*.sql"))
    assert files
    for f in files:
        for sql in f.read_text().split(";"):
            assert normalised_sql(sql) == _reference(sql)


def test_a_rerun_with_other_literals_has_the_same_fingerprint() -> None:
    a = sql_fingerprint("INSERT INTO t SELECT * FROM s WHERE d = '2024-01-01' AND n > 3 AND k1 = 7")
    b = sql_fingerprint("insert into T select *  from s where d = '2025-02-02' and n > 42 and k1 = 8 -- x")
    assert a == b
    assert a != sql_fingerprint("INSERT INTO t SELECT * FROM s WHERE d = '2024-01-01' AND n > 3 AND k2 = 7")
