"""Cheaper parts of a re-run and a first sight, each against the plain computation: the skeleton's scan by
character classes (``reuse._CLASSES``: the digits of a name passed over in C), an expression of one
placeholder put together by concatenation, a first sight's event id taken from its template."""

from __future__ import annotations

import random

from headwater.extract import Extractor, RunInfo, reuse
from headwater.extract.reuse import _CANDIDATES, _CLASSES, _EDGE_BEFORE, _EDGE_CHARS, _patched, _slot, _split_ascii
from headwater.model import make_event_id
from headwater.model.codec import event_to_dict
from tests.extract.test_reuse import T0, _catalog


def _by_regex(text: str) -> tuple:
    parts = _CANDIDATES.split(text)
    strings = parts[1::3]
    found = [s if s is not None else n for s, n in zip(strings, parts[2::3], strict=True)]
    return (tuple(parts[0::3]), tuple(s is None for s in strings)), found


def test_the_classes_are_those_of_the_edges() -> None:
    for code in range(128):
        c = chr(code)
        want = (
            "0" if c.isdigit() else "'" if c == "'" else "a" if c in _EDGE_CHARS else ":" if c in _EDGE_BEFORE else " "
        )
        assert chr(_CLASSES[code]) == want, repr(c)


def test_the_scan_by_classes_splits_as_the_regular_expression() -> None:
    """Random texts of every ASCII character, and of the characters that matter (quotes, digits in and after
    names, edges, escapes, line breaks, colons), short and long."""
    rnd = random.Random(10)
    matter = "a1'0 \\\n\r.$@#:\"`_x9-,()=\t'''00 k7"
    every = [chr(i) for i in range(128)]
    checked = 0
    for length, count in ((6, 30_000), (24, 30_000), (80, 6_000), (300, 1_000)):
        for _ in range(count):
            pool = every if rnd.random() < 0.25 else matter
            text = "".join(rnd.choice(pool) for _ in range(rnd.randint(0, length)))
            assert _split_ascii(text) == _by_regex(text), repr(text)
            checked += 1
    names = [f"SELECT a{n}, b_{n} AS k{n}x FROM t{n} WHERE x = {n} AND y = '{n}' AND z = v.{n}" for n in range(200)]
    for text in names:
        assert _split_ascii(text) == _by_regex(text), text
    assert checked == 67_000


def test_an_expression_of_one_placeholder_is_cut_once_and_filled_as_the_format() -> None:
    ex = Extractor(database="db")
    entry = (
        ex.run("INSERT INTO t SELECT a, b, d, k FROM s WHERE d = 'x'", RunInfo(query_id="q"))
        .events[0]
        .dataset_indirect[0]
    )
    one = _slot(0, entry, ("s.d = {", 1, "} '"))
    two = _slot(0, entry, ("s.d = ", 0, " OR s.d = ", 1, ""))
    assert one[1] == ("s.d = {", 1, "} '")  # pieces, not a format
    assert two[1] == "s.d = {0} OR s.d = {1}"
    news = ["'a{b}'", "'7'"]
    made = _patched((entry,), (one, two), news)
    assert made[0].expression == f"s.d = {news[0]} OR s.d = {news[1]}"
    assert _patched((entry,), (one,), news)[0].expression == "s.d = {" + news[1] + "} '"


def test_a_first_sights_event_id_is_its_templates_and_the_plain_one() -> None:
    r = reuse.StatementReuse(size=10)
    ex = Extractor(_catalog(), database="db", reuse=r)
    res = ex.run("INSERT INTO t SELECT a, b, d, k FROM s WHERE d = '2024-01-01'", RunInfo(query_id="q1"))
    template = next(t for t in r._entries.values() if isinstance(t, reuse._Template))
    e = res.events[0]
    assert e.event_id is template.events[0].event.event_id  # taken, not hashed again
    assert e.event_id == make_event_id("q1", e.target.table)
    again = ex.run("INSERT INTO t SELECT a, b, d, k FROM s WHERE d = '2024-01-02'", RunInfo(query_id="q2")).events[0]
    assert again.event_id == make_event_id("q2", again.target.table)
    untimed = ex.run("INSERT INTO t SELECT a, b, d, k FROM s WHERE d = '2024-01-03'", RunInfo()).events[0]
    assert untimed.event_id == make_event_id(untimed.context.query_id, untimed.target.table)


def test_the_events_are_reuse_offs_with_generated_query_ids() -> None:
    """No query id: a first sight's is made of its own text, not the template's (its event id is hashed)."""
    sqls = [
        f"INSERT INTO t SELECT a, b, d, k FROM s WHERE d = '{d}' AND k > {k}" for d, k in (("a", 1), ("b", 2), ("a", 1))
    ]
    out = []
    for r in (None, reuse.StatementReuse(size=10)):
        ex = Extractor(_catalog(), database="db", reuse=r)
        out.append([[event_to_dict(e) for e in ex.run(sql, RunInfo(timestamp=T0)).events] for sql in sqls])
    assert out[0] == out[1] and all(out[0])
