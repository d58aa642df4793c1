"""Issue 34, "confidence that means something": each target column that is not known to be complete
carries the codes of the diagnostics that touch it, in the event, its JSON, the payload (1.1; a 1.0
payload still reads) and the OpenLineage ``headwater`` run facet."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from openlineage.client.serde import Serde

from headwater.extract import extract_script
from headwater.model import IncompleteColumn, Status, event_from_dict, event_from_json, event_to_dict, event_to_json
from headwater.model.ol_restore import restore_event
from headwater.model.openlineage import to_run_event
from headwater.model.payload import decode, encode, loads
from headwater.model.schema import event_json_schema

FACET_SCHEMA = Path(__file__).parents[2] / "src" / "headwater" / "model" / "HeadwaterRunFacet.json"

# ``amount`` may come from either table (no schema); ``total`` reads ``o.x`` and ``c.y`` by their tables
SQL = "INSERT INTO db.t SELECT o.id, amount, o.x + c.y AS total FROM db.orders o JOIN db.customers c ON o.k = c.k"


def _find(node: object, key: str) -> dict:
    """The first schema node under ``key`` in a JSON schema document."""
    if isinstance(node, dict):
        if key in node.get("properties", {}):
            return node["properties"][key]
        for value in node.values():
            if (found := _find(value, key)) is not None:
                return found
    if isinstance(node, list):
        for value in node:
            if (found := _find(value, key)) is not None:
                return found
    return None  # type: ignore[return-value]


def one(sql: str, dialect: str = "bigquery"):
    (e,) = extract_script(sql, dialect=dialect, database="db").events
    return e


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "spark", "doris"])
def test_the_column_an_ambiguous_name_gives_is_the_only_one_in_doubt(dialect: str) -> None:
    e = one(SQL, dialect)
    assert e.status is Status.PARTIAL
    assert e.incomplete_columns == (IncompleteColumn("amount", ("ambiguous_column",)),)


def test_a_doubt_in_a_filter_touches_every_column() -> None:
    e = one("INSERT INTO db.t SELECT o.id, o.amount FROM db.orders o JOIN db.customers c ON o.k = c.k WHERE flag = 1")
    assert [(i.target_column, i.codes) for i in e.incomplete_columns] == [
        ("id", ("ambiguous_column",)),
        ("amount", ("ambiguous_column",)),
    ]


def test_each_branch_of_a_union_places_its_doubt_on_its_column() -> None:
    e = one(
        "INSERT INTO db.t SELECT a, b FROM db.s UNION ALL "
        "SELECT o.id, amount FROM db.orders o JOIN db.customers c ON o.k = c.k"
    )
    assert e.incomplete_columns == (IncompleteColumn("b", ("ambiguous_column",)),)


def test_a_complete_event_has_none_and_writes_no_key() -> None:
    e = one("INSERT INTO db.t SELECT o.id FROM db.orders o")
    assert e.status is Status.COMPLETE and e.incomplete_columns == ()
    assert "incomplete_columns" not in event_to_dict(e)
    assert "incomplete_columns" not in encode(e)["event"]


def test_json_both_writers_and_the_schema() -> None:
    e = one(SQL)
    d = event_to_dict(e)
    assert d["incomplete_columns"] == [{"target_column": "amount", "codes": ["ambiguous_column"]}]
    assert json.loads(event_to_json(e)) == d
    assert event_from_dict(d) == e and event_from_json(event_to_json(e)) == e
    jsonschema.Draft202012Validator(event_json_schema()).validate(d)
    bad = {**d, "incomplete_columns": [{"target_column": "nope", "codes": ["x"]}]}
    with pytest.raises(ValueError, match="incomplete_columns"):
        event_from_dict(bad)


def test_payload_1_1_carries_it_and_1_0_still_reads() -> None:
    e = one(SQL)
    p = encode(e)
    assert p["format"] == "headwater.payload/1.1"
    assert p["event"]["incomplete_columns"] == [[1, ["ambiguous_column"]]]
    assert decode(p) == e
    old = json.loads(json.dumps(p))
    old["format"] = "headwater.payload/1.0"
    del old["event"]["incomplete_columns"]
    assert loads(json.dumps(old)).incomplete_columns == ()


def test_the_openlineage_facet_carries_it_and_restores_it() -> None:
    e = one(SQL)
    doc = json.loads(Serde.to_json(to_run_event(e)))
    facet = doc["run"]["facets"]["headwater"]
    assert facet["event"]["incomplete_columns"] == [{"target_column": "amount", "codes": ["ambiguous_column"]}]
    jsonschema.Draft202012Validator(_find(json.loads(FACET_SCHEMA.read_text()), "incomplete_columns")).validate(
        facet["event"]["incomplete_columns"]
    )
    restored = restore_event(doc)
    assert restored is not None and restored.incomplete_columns == e.incomplete_columns
