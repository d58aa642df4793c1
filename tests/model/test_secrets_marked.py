"""``secrets.is_redacted``: the objects ``redact_event`` returned, by identity, while they live."""

from __future__ import annotations

import dataclasses
import gc

from headwater.model import event_from_json, event_to_json
from headwater.model.event import LineageInfo, QueryContext, SourceCommand, TableRef, Target
from headwater.model.secrets import is_redacted, redact_event


def _event(sql: str) -> LineageInfo:
    ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", sql)
    return LineageInfo(
        "id", SourceCommand.INSERT_INTO, Target(TableRef("internal", "db", "t"), ()), (), (), (), (), ctx
    )


def test_the_returned_object_is_marked_and_nothing_else() -> None:
    clean = _event("INSERT INTO t SELECT a FROM s")
    dirty = _event("INSERT INTO t SELECT a FROM s WHERE n = 'password=hunter2'")
    assert not is_redacted(clean) and not is_redacted(dirty)
    assert redact_event(clean) is clean and is_redacted(clean)  # no secret: the same object, marked
    out = redact_event(dirty)
    assert is_redacted(out) and not is_redacted(dirty) and "hunter2" not in out.context.sql
    assert out == event_from_json(event_to_json(out))
    assert not is_redacted(event_from_json(event_to_json(out)))  # equal is not enough
    assert not is_redacted(dataclasses.replace(out))


def test_a_mark_goes_with_its_object() -> None:
    e = redact_event(_event("INSERT INTO t SELECT 1"))
    ident = id(e)
    del e
    gc.collect()
    fresh = [_event(f"INSERT INTO t SELECT {k}") for k in range(200)]  # may reuse the id
    assert not any(is_redacted(x) for x in fresh if id(x) == ident)
    assert not any(is_redacted(x) for x in fresh)
