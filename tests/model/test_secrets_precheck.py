"""The cheaper secrets pre-check against the one it replaced, kept here as a reference: the same
``may_hold_secret`` answer for any text, and the same ``redacted`` event now that the statement is
no longer tested joined with the expressions first, over random text made of the hint words in any
case, separators, and letters that are not ASCII (the four that ``re.IGNORECASE`` takes for ASCII
ones among them)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headwater.model.event import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
)
from headwater.model.secrets import (
    _HINT,
    _cred_hinted,
    _expressions_hinted,
    _key_hinted,
    _redacted_expressions,
    may_hold_secret,
    redact_sql,
    redacted,
)

_OLD_WORDS = ("pass", "secret", "token", "hidden", "private", "keytab", "jaas", "auth", "sas", "sig")
_OLD_WORDS += ("pw", "identified", "://", "bearer", "basic")


def old_may_hold_secret(text: str) -> bool:
    """``may_hold_secret`` as it was before the guarded searches."""
    if text.isascii():
        low = text.lower()
        for w in _OLD_WORDS:
            if w in low:
                return True
        return ("key" in low and _key_hinted(low)) or ("cred" in low and ("key" in low or _cred_hinted(low)))
    if "\u0130" in text or "\u0131" in text or "\u017f" in text or "\u212a" in text:
        return _HINT.search(text) is not None
    low = text.lower()
    for w in _OLD_WORDS:
        if w in low:
            return True
    return "key" in low or "cred" in low


def old_redacted(event: LineageInfo, dialect: str = "") -> LineageInfo:
    """``redacted`` as it was: one test of the statement and every expression joined first."""
    ctx = event.context
    try:
        parts = (event.direct, event.dataset_indirect, event.output_indirect)
        joined = "\x00".join([ctx.sql, *[x.expression for items in parts for x in items]])
    except (TypeError, AttributeError):
        joined = None
    if joined is not None and not old_may_hold_secret(joined):
        return event
    sql = redact_sql(ctx.sql, dialect) if isinstance(ctx.sql, str) else ctx.sql
    changed: dict[str, Any] = {}
    if _expressions_hinted(event):
        lists = {
            name: _redacted_expressions(getattr(event, name), dialect)
            for name in ("direct", "dataset_indirect", "output_indirect")
        }
        changed = {name: items for name, items in lists.items() if items is not getattr(event, name)}
    if sql != ctx.sql:
        changed["context"] = dataclasses.replace(ctx, sql=sql)
    return dataclasses.replace(event, **changed) if changed else event  # type: ignore[arg-type]


_PIECES = [
    *_OLD_WORDS,
    *("key", "keys", "cred", "creds", "credit", "credential", "api", "access", "order", "customer", "monkey"),
    *("o_orderkey", "apiKey", "password", "Bearer abcdefgh12", "Basic ZXRsOmh1bnRlcjI=", "u:pw@h", "pwd"),
    *("_", ".", "-", " ", "=", "'", '"', "`", "\x00", ":", "/", "@", "?", "&", ";", "(", ")", "7", "256"),
    *("\u0130", "\u0131", "\u017f", "\u212a", "é", "ß", "ﬅ", "µ", "中文", "\u041a", "SELECT a FROM s WHERE ", "x"),
]
_CASES = (str, str.upper, str.title, str.swapcase, lambda w: w[:1].upper() + w[1:])


@st.composite
def _texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_CASES)), max_size=12))
    return "".join(case(piece) for piece, case in parts)


@settings(max_examples=3000, deadline=None)
@given(_texts())
def test_may_hold_secret_answers_as_before(text: str) -> None:
    assert may_hold_secret(text) == old_may_hold_secret(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aAbcdeijkKlnoprsStuvwyY:/_.-= '\"\x00\u0130\u0131\u017f\u212aé", max_size=40))
def test_may_hold_secret_answers_as_before_on_any_text(text: str) -> None:
    assert may_hold_secret(text) == old_may_hold_secret(text)


def _event(sql: str, expressions: list[str], dataset: list[str]) -> LineageInfo:
    t, s = TableRef("internal", "db", "t"), TableRef("internal", "db", "s")
    c = ColumnRef(s, "a")
    direct = tuple(
        DirectLineage(f"c{k}", x, DirectType.TRANSFORMATION, Origin.COLUMN, (c,), (DirectInput(c),))
        for k, x in enumerate(expressions)
    )
    indirect = tuple(IndirectLineage(IndirectType.FILTER, x, (c,)) for x in dataset)
    output = (IndirectLineage(IndirectType.WINDOW, "s.a", (c,), "c0"),)
    ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", sql)
    fields = tuple(Field(f"c{k}") for k in range(len(expressions)))
    return LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, fields), (s,), direct, indirect, output, ctx)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts(), st.lists(_texts(), max_size=3), st.lists(_texts(), max_size=2), st.sampled_from(["", "hive"]))
def test_redacted_answers_as_before(sql: str, expressions: list[str], dataset: list[str], dialect: str) -> None:
    e = _event(sql, expressions, dataset)
    new, old = redacted(e, dialect), old_redacted(e, dialect)
    assert new == old
    assert (new is e) == (old is e)
