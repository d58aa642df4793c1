"""A first sight's template made cheaper (``reuse._make_template``): against the plain code it
replaced (kept here as the reference), on the templates a session really makes —
the adversarial statements, the generated re-run log and every golden statement with other literals."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from headwater.extract import reuse
from headwater.extract.reuse import _PARTS, _Event, _slot, _start_of, _Template
from headwater.extract.split import split_script
from tests.extract.test_reuse import _both, session_rows
from tests.extract.test_reuse_first_sight import ADVERSARIAL, _other_literals
from tests.golden.harness import all_cases, case_extractor


def _reference_template(result, sql, shape, renders, run, layered, fixed=()):  # type: ignore[no-untyped-def]
    """``_make_template`` as it was: the pattern compiled and searched in every text, ``replace``."""
    properties = None if layered else dict(run.external_catalog_properties)
    live = [r for n, r in enumerate(renders) if n not in dict(fixed)]
    pattern = re.compile("|".join(re.escape(r) for r in sorted(live, key=len, reverse=True)) or r"(?!)")
    t = _Template(result, sql, shape, renders, pattern, (), properties, fixed)

    tokens = shape.tokens if shape is not None else ()
    token_at = {_start_of(tok, sql)[1:]: k for k, tok in enumerate(tokens)}
    events = []
    for e in result.events:
        slots = tuple(
            tuple(
                _slot(k, x, t.pieces(x.expression))
                for k, x in enumerate(getattr(e, part))
                if pattern.search(x.expression)
            )
            for part in _PARTS
        )
        diagnostics = tuple(
            (d, t.pieces(d.message), None if d.line is None else token_at.get((d.line, d.column or 0), -1))
            for d in e.diagnostics
        )
        parts = tuple(getattr(e, part) for part in _PARTS)
        events.append(_Event(e, slots, parts, diagnostics, f"\x1f{e.target.table}".encode()))
    return replace(t, events=tuple(events))


class _Compared:
    """``_make_template`` of a session checked against the reference at each call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.templates = 0
        made = reuse._make_template

        def make(*args: Any, **kw: Any) -> Any:
            got = made(*args, **kw)
            want = _reference_template(*args, **kw)
            assert got == want
            assert type(got) is _Template and all(type(e) is _Event for e in got.events)
            assert got.pattern.pattern == want.pattern.pattern
            assert [e.merging for e in got.events] == [e.merging for e in want.events]
            self.templates += 1
            return got

        monkeypatch.setattr(reuse, "_make_template", make)


@pytest.mark.parametrize("dialect", ["doris", "mysql", "postgres", "snowflake"])
def test_adversarial_templates_are_those_of_the_plain_code(monkeypatch, dialect):
    seen = _Compared(monkeypatch)
    for statements in ADVERSARIAL.values():
        plain, reused, _ = _both(statements, dialect)
        assert plain == reused
    assert seen.templates > 20


def test_rerun_log_templates_are_those_of_the_plain_code(monkeypatch):
    from headwater.history.synthetic import generate_rerun_log

    seen = _Compared(monkeypatch)
    sqls = [r["stmt"] for r in generate_rerun_log(200, distinct=40, seed=3)]
    plain, reused, _ = _both(sqls)
    assert plain == reused
    assert seen.templates >= 40


def test_golden_templates_are_those_of_the_plain_code(monkeypatch):
    seen = _Compared(monkeypatch)
    for case in all_cases():
        opts = case.options()
        pieces = split_script(case.path.read_text(encoding="utf-8"), opts["dialect"])
        sqls = []
        for p in pieces:
            sqls += [p.sql, _other_literals(p.sql), p.sql]
        out = [session_rows(case_extractor(case, reuse=r), sqls) for r in (None, reuse.StatementReuse(size=100))]
        assert out[0] == out[1], case.id
    assert seen.templates > 100


def test_renders_without_the_marks_are_searched_in_every_text(monkeypatch):
    """A dialect whose placeholder renders hold neither mark: every expression is searched (the
    shortcut only skips texts where no render can be)."""
    from headwater.extract import ExtractOptions, Extractor, RunInfo
    from tests.extract.test_reuse import _catalog

    ex = Extractor(_catalog(), ExtractOptions(dialect="doris"), database="db")
    res = ex.run("INSERT INTO t SELECT a, b, d, k FROM s WHERE d = 'zq0' AND k > 7", RunInfo(query_id="q"))
    s = res.statements[0]
    renders = ("'zq0'", "7")
    got = reuse._make_template(s, "x", None, renders, RunInfo(), False)
    want = _reference_template(s, "x", None, renders, RunInfo(), False)
    assert got == want
    assert any(slots for e in got.events for slots in e.slots)


def test_the_pattern_of_renders_is_kept_and_matches_the_longest_first():
    from headwater.extract.reuse import _pattern_of, _pieces

    live = ("909000001", "9090000010", "'hw@lit2@'")
    p = _pattern_of(live)
    assert _pattern_of(tuple(live)) is p
    number = {r: n for n, r in enumerate(("909000001", "9090000010", "'hw@lit2@'"))}
    assert _pieces(p, number, "a + 9090000010 - 909000001 || 'hw@lit2@'") == ("a + ", 1, " - ", 0, " || ", 2, "")
    assert _pieces(p, number, "no placeholder") == ("no placeholder",)
    assert _pieces(_pattern_of(()), {}, "x = 909000001") == ("x = 909000001",)
