"""The re-run's own ways of making its parts (``model.event.event_id_of``, ``model.slots.frozen_maker``, the merge
flags of ``reuse._Event``, ``history.record.format_time``) against the plain ones."""

from __future__ import annotations

import random
import uuid
from dataclasses import FrozenInstanceError, fields
from datetime import UTC, datetime, timedelta, timezone

import pytest

from headwater.extract.result import RunInfo, ScriptResult, StatementResult
from headwater.extract.reuse import _may_merge, _merged, event_id
from headwater.history.record import LogRecord, format_time
from headwater.model import (
    ColumnRef,
    DirectLineage,
    DirectType,
    IndirectLineage,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
)
from headwater.model.codec import event_to_dict
from headwater.model.event import _EVENT_NAMESPACE, event_id_of, make_event_id
from headwater.model.slots import frozen_maker


def test_event_ids_are_the_uuid5_of_query_and_target() -> None:
    rng = random.Random(7)
    for n in range(2000):
        qid = "".join(rng.choice("abcXYZ0189-_\x1fé中") for _ in range(rng.randint(0, 40)))
        target = f"internal.db{n % 7}.t{n}"
        expected = str(uuid.uuid5(_EVENT_NAMESPACE, f"{qid}\x1f{target}"))
        assert event_id_of(f"{qid}\x1f{target}".encode()) == expected
        assert event_id(qid, f"\x1f{target}".encode()) == expected
        assert make_event_id(qid, TableRef("internal", f"db{n % 7}", f"t{n}")) == expected


def _event() -> LineageInfo:
    t = TableRef("internal", "db", "t")
    s = TableRef("internal", "db", "s")
    ctx = QueryContext(
        SourceCommand.INSERT_INTO,
        "q1",
        "INSERT …",
        "u",
        "1.2.3.4",
        "db",
        "internal",
        "OK",
        "2024-01-01T00:00:00.000Z",
        5,
        {"a": "b"},
    )
    direct = (DirectLineage("a", "s.a + 1", DirectType.TRANSFORMATION, Origin.COLUMN, (ColumnRef(s, "a"),)),)
    return LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, ()), (s,), direct, (), (), ctx)


def test_frozen_maker_makes_what_init_makes() -> None:
    e = _event()
    for x in (e, e.direct[0]):
        cls, values = type(x), [getattr(x, f.name) for f in fields(x)]
        made = frozen_maker(cls)(*values)
        assert type(made) is cls and made == cls(*values) == x
        with pytest.raises(FrozenInstanceError):
            setattr(made, fields(made)[0].name, "other")
    c = e.context
    values = [getattr(c, f.name) for f in fields(c)]
    assert frozen_maker(QueryContext, post_init=False)(*values) == c  # its properties already a proxy
    assert frozen_maker(QueryContext) is QueryContext  # it has a ``__post_init__``
    again = frozen_maker(LineageInfo)(*[getattr(e, f.name) for f in fields(e)])
    assert event_to_dict(again) == event_to_dict(e)
    r = StatementResult(0, 1, 1, "x", "insert", (e,))
    assert frozen_maker(StatementResult)(0, 1, 1, "x", "insert", (e,), None, None) == r
    assert frozen_maker(ScriptResult)((r,)) == ScriptResult((r,))
    run = RunInfo("q", "u", "c", "db", "internal", "t", 3)
    assert frozen_maker(RunInfo)("q", "u", "c", "db", "internal", "t", 3, {}) == run


def test_may_merge_only_where_merged_may_be() -> None:
    def entry(col: str | None, typ: str, expr: str) -> IndirectLineage:
        return IndirectLineage(typ, expr, (), col)

    rng = random.Random(3)
    for _ in range(3000):
        items = tuple(
            entry(rng.choice([None, "a"]), rng.choice(["FILTER", "JOIN"]), rng.choice("xyz"))
            for _ in range(rng.randint(0, 4))
        )
        slotted = [k for k in range(len(items)) if rng.random() < 0.5]
        slots = tuple((k, "", None, (), 1) for k in slotted)
        for expr in "xyz":  # the slotted entries' expressions with other literals
            patched = tuple(entry(x.target_column, x.type, expr) if k in slotted else x for k, x in enumerate(items))
            if _merged(patched) and slots:
                assert _may_merge(items, slots)  # type: ignore[arg-type]
        assert not _may_merge(items, ())


def test_format_time_as_isoformat() -> None:
    def plain(dt: datetime) -> str:
        return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    rng = random.Random(5)
    times = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]
    times += [datetime(2024, 5, 1, tzinfo=UTC) + timedelta(microseconds=rng.randrange(10**13)) for _ in range(3000)]
    times += [datetime(2024, 5, 1, 10, tzinfo=timezone(timedelta(hours=8))), datetime(2024, 5, 1, 10, 0, 0, 999)]
    for t in times:
        assert format_time(t) == plain(t)
    assert format_time(None) is None


@pytest.mark.parametrize(
    ("state", "code", "ok"),
    [
        (None, None, True),
        ("OK", "0", True),
        (" ok ", " none ", True),
        ("EOF", "", True),
        ("ERR", "0", False),
        ("OK", "1105", False),
        ("Finished", "null", True),
    ],
)
def test_succeeded(state: str | None, code: str | None, ok: bool) -> None:
    assert LogRecord("x", state=state, error_code=code).succeeded is ok
    r = LogRecord("x", "q", timestamp=datetime(2024, 5, 1, 10, 0, 0, 250000, tzinfo=UTC), catalog=None)
    assert r.run_info("cat") == RunInfo("q", None, None, None, "cat", "2024-05-01T10:00:00.250Z", -1)
