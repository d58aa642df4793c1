"""``event_to_json`` keeps each column object's text across events (``codec._COLUMN_TEXT``): the
text is always the column's own, for a column object seen before, a new one with another's old id,
and after the cache is emptied."""

from __future__ import annotations

import json

from headwater.model import codec
from headwater.model.codec import event_to_dict, event_to_json
from headwater.model.event import (
    ColumnRef,
    DirectLineage,
    DirectType,
    Field,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
)


def event(*columns: ColumnRef) -> LineageInfo:
    t = TableRef("internal", "db", "t")
    ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", "INSERT INTO t SELECT a FROM s")
    direct = tuple(DirectLineage("a", "s.a", DirectType.IDENTITY, Origin.COLUMN, (c,)) for c in columns)
    return LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, (Field("a"),)), (), direct, (), (), ctx)


def same_document(e: LineageInfo) -> None:
    text = event_to_json(e)
    assert json.loads(text) == json.loads(json.dumps(event_to_dict(e)))
    kept = dict(codec._COLUMN_TEXT)
    codec._COLUMN_TEXT.clear()
    assert event_to_json(e) == text  # as written with nothing kept
    codec._COLUMN_TEXT.update(kept)


def test_column_text_kept_and_always_its_own() -> None:
    s = TableRef("internal", None, "s")
    a = ColumnRef(s, "a")
    same_document(event(a, a))
    assert any(kept[0] is a for kept in codec._COLUMN_TEXT.values())
    same_document(event(a, ColumnRef(s, "b")))  # a seen before, b new
    for k in range(200):  # new objects, some of them at the ids of freed ones
        same_document(event(ColumnRef(TableRef("internal", "db", f"t{k}"), f"c{k}")))


def test_cache_emptied_when_full(monkeypatch: object) -> None:
    monkeypatch.setattr(codec, "_COLUMN_TEXT_SIZE", 2)  # type: ignore[attr-defined]
    s = TableRef("internal", None, "s")
    for k in range(10):
        same_document(event(*(ColumnRef(s, f"c{k}_{j}") for j in range(3))))
        assert len(codec._COLUMN_TEXT) <= 3
