"""The store's redaction pass (``secrets.redacted``): ``redact_event``'s answer without its mark,
the statement tested through ``redact_sql`` and the expressions joined; and ``may_hold_secret`` on text that is
not ASCII, answered from its lower case unless it holds one of the four letters that
``re.IGNORECASE`` takes for ASCII ones."""

from __future__ import annotations

import dataclasses
import itertools

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
from headwater.model.secrets import _HINT, is_redacted, may_hold_secret, redact_sql, redacted


def test_not_ascii_text_is_hinted_as_the_pattern_says() -> None:
    words = [
        "pass",
        "PwD",
        "\u017fecret",
        "to\u212aen",
        "KEY",
        "\u212aey",
        "h\u0131dden",
        "\u0130dentified",
        "://",
        "basic",
    ]
    around = ["", "é", "中文 ", "ß", "\u0130", "\u0131", "\u017f", "\u212a", "ﬅ", "µ", " x "]
    texts = [f"{a}{w}{b}" for w, a, b in itertools.product(words, around, around)]
    texts += [f"{a}{b}" for a, b in itertools.product(around, around)]
    texts += ["SELECT naïve FROM t", "SELECT k FROM t -- ключ", "x = 'p\u0410ss'", "sig", "\u017fig", "SIG中"]
    for text in texts:
        if not text.isascii():
            assert may_hold_secret(text) == (_HINT.search(text) is not None), text


def _event(sql: str, expressions: tuple[object, ...]) -> LineageInfo:
    t, s = TableRef("internal", "db", "t"), TableRef("internal", "db", "s")
    c = ColumnRef(s, "a")
    direct = tuple(
        DirectLineage(f"c{k}", x, DirectType.TRANSFORMATION, Origin.COLUMN, (c,), (DirectInput(c),))  # type: ignore[arg-type]
        for k, x in enumerate(expressions)
    )
    dataset = (IndirectLineage(IndirectType.FILTER, "s.a > 0", (c,)),)
    output = (IndirectLineage(IndirectType.WINDOW, "s.a", (c,), "c0"),)
    ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", sql)
    fields = tuple(Field(f"c{k}") for k in range(len(expressions)))
    return LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, fields), (s,), direct, dataset, output, ctx)


def _expected(e: LineageInfo) -> LineageInfo:
    """What redaction makes of ``e``: its statement and each expression that may hold one redacted."""

    def one(x: object) -> object:
        return redact_sql(x) if isinstance(x, str) and may_hold_secret(x) else x

    direct = tuple(dataclasses.replace(d, expression=one(d.expression)) for d in e.direct)
    return dataclasses.replace(e, direct=direct, context=dataclasses.replace(e.context, sql=redact_sql(e.context.sql)))


def test_redacted_is_redaction_without_the_mark() -> None:
    clean = "INSERT INTO t SELECT a FROM s"
    dirty = "INSERT INTO t SELECT a FROM s WHERE n = 'password=hunter2'"
    url = "s.a = 'postgresql://u:pw@h/db'"
    cases = [
        _event(clean, ("s.a", "UPPER(s.a)")),
        _event(dirty, ("s.a",)),
        _event(clean, ("s.a", url)),
        _event(f"{clean} -- é", (url,)),
        _event(dirty, (None, "s.a")),  # not text: each expression is looked at on its own
        _event(clean, (None, url)),
        _event(clean, ()),
    ]
    for e in cases:
        out = redacted(e)
        assert out == _expected(e)
        assert not is_redacted(out)
        if out == e:
            assert out is e  # nothing to mask: the event as it is
    assert "hunter2" not in redacted(cases[1]).context.sql
    assert "pw@" not in redacted(cases[2]).direct[1].expression
