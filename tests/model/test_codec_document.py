"""``event_to_json`` writes exactly the document it always wrote: the parts before and after the
lineage lists in ``json.dumps``'s spacing, the lists compact (the text the store keeps and the CLI
prints); the target, its columns and the tables are written without ``json.dumps``, each table's
text kept across events (``codec._TABLE_TEXT``)."""

from __future__ import annotations

import gc
import json
from typing import Any

from headwater.model import codec
from headwater.model.codec import event_to_dict, event_to_dict_head_and_tail, event_to_json
from headwater.model.event import (
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    QueryContext,
    Severity,
    SourceCommand,
    Status,
    TableRef,
    Target,
)


def reference(e: LineageInfo) -> str:
    """The document as ``json.dumps`` writes its parts."""
    head, tail = (json.dumps(part, ensure_ascii=False) for part in event_to_dict_head_and_tail(e))
    d = event_to_dict(e)

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    return (
        f'{head[:-1]},"direct":{compact(d["direct"])},"dataset_indirect":{compact(d["dataset_indirect"])},'
        f'"output_indirect":{compact(d["output_indirect"])},{tail[1:]}'
    )


def event(
    name: str = "t", database: str | None = "db", odd: str = 'é "q" \\ \n\t\x01 中', **changes: Any
) -> LineageInfo:
    t = TableRef("internal", database, name)
    s = TableRef("my-project", None, f"s{odd}")
    v = TableRef("internal", "db", "v")
    a, b = ColumnRef(s, "a"), ColumnRef(s, f"b{odd}")
    direct = (
        DirectLineage("x", "s.a", DirectType.IDENTITY, Origin.COLUMN, (a,), (DirectInput(a),)),
        DirectLineage(
            f"y{odd}",
            f"UPPER(s.b) || '{odd}'",
            DirectType.TRANSFORMATION,
            Origin.COLUMN,
            (a, b),
            (DirectInput(a, ("UPPER", "CONCAT")), DirectInput(b, (), True)),
            2,
        ),
        DirectLineage("z", "1", DirectType.TRANSFORMATION, Origin.CONSTANT, ()),
    )
    dataset = (IndirectLineage(IndirectType.JOIN, "s.a = v.a", (a, ColumnRef(v, "a"))),)
    output = (IndirectLineage(IndirectType.WINDOW, "s.b", (b,), f"y{odd}"),)
    ctx = QueryContext(
        SourceCommand.INSERT_INTO,
        "q1",
        f"INSERT INTO t SELECT … '{odd}'",
        user="u",
        timestamp="2024-01-01T00:00:00Z",
        duration_ms=12,
        external_catalog_properties={"headwater.job": "j", "k": odd},
    )
    fields = (Field("x", "INT"), Field(f"y{odd}"), Field("z", "VARCHAR(3)"))
    e = LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, fields), (s, v), direct, dataset, output, ctx, via=(v,))
    return e if not changes else LineageInfo(**{**{f: getattr(e, f) for f in e.__dataclass_fields__}, **changes})


def test_the_document_is_the_one_json_dumps_writes() -> None:
    cases = [
        event(),
        event(database=None, odd=""),
        event(direct=(), dataset_indirect=(), output_indirect=(), via=(), sources=()),
        event(status=Status.PARTIAL, diagnostics=(Diagnostic("c", Severity.WARNING, "m", 0, 1, 2, "x", None),)),
        event(version="headwater.event/1", event_id="e\u2028\"'"),
    ]
    for e in cases:
        assert event_to_json(e) == reference(e)
        assert event_to_json(e) == reference(e)  # again, with the texts kept


def test_a_name_that_is_not_text_is_written_as_json_dumps_writes_it() -> None:
    e = event()
    odd = event(target=Target(e.target.table, (Field("x", 5),)))  # type: ignore[arg-type]
    assert event_to_json(odd) == reference(odd)
    assert '"type": 5' in event_to_json(odd)


def test_table_text_kept_and_always_its_own() -> None:
    for k in range(200):  # new table objects, some of them at the ids of freed ones
        e = event(name=f"t{k}", odd=str(k))
        assert event_to_json(e) == reference(e)
        del e
        gc.collect()
    assert all(kept[0] is not None for kept in codec._TABLE_TEXT.values())


def test_table_text_emptied_when_full(monkeypatch: Any) -> None:
    monkeypatch.setattr(codec, "_TABLE_TEXT_SIZE", 2)
    for k in range(10):
        e = event(name=f"t{k}")
        assert event_to_json(e) == reference(e)
        assert len(codec._TABLE_TEXT) <= 3


def test_list_text_kept_for_a_rerun_and_always_its_own(monkeypatch: Any) -> None:
    first = event()
    rerun = event(event_id="again", direct=first.direct, output_indirect=first.output_indirect)
    assert event_to_json(first) == reference(first)
    assert any(kept[0] is first.direct for kept in codec._PART_TEXT.values())
    assert event_to_json(rerun) == reference(rerun)  # the lists' texts of the first event
    for k in range(100):  # new lists, some of them at the ids of freed ones
        e = event(odd=f"{k}")
        assert event_to_json(e) == reference(e)
        del e
        gc.collect()
    monkeypatch.setattr(codec, "_PART_TEXT_SIZE", 2)
    for k in range(5):
        e = event(odd=f"{k}")
        assert event_to_json(e) == reference(e)
        assert len(codec._PART_TEXT) <= 3
