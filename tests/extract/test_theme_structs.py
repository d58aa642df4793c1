"""Theme 16: a struct sub-field is a source of its own (``asset.id``), across BigQuery, Spark,
Snowflake paths and Trino row fields; the store keeps the parent column, OpenLineage nests it."""

from __future__ import annotations

import json

import pytest
from openlineage.client.serde import Serde

from headwater.model import DirectType, Status
from headwater.model.ol_naming import OpenLineageNaming
from headwater.model.openlineage import to_run_event
from headwater.store import open_store
from tests.extract.helpers import one_event


def reads(e) -> list[tuple[str, str, list[str]]]:
    return [(d.target_column.lower(), d.type.value, [c.column.lower() for c in d.sources]) for d in e.direct]


@pytest.mark.parametrize("dialect", ["bigquery", "spark", "databricks", "trino", "presto", "hive", "duckdb"])
def test_an_aliased_struct_field_is_its_field(dialect: str) -> None:
    e = one_event("INSERT INTO out SELECT w.asset.id AS asset_id, w.id FROM widgets w", {"db.widgets": ["id", "asset"]},
                  dialect=dialect)  # fmt: skip
    assert reads(e) == [("asset_id", "IDENTITY", ["asset.id"]), ("id", "IDENTITY", ["id"])]
    assert e.status is Status.COMPLETE
    assert e.direct[0].inputs[0].labels == ()


@pytest.mark.parametrize("dialect", ["bigquery", "trino", "spark"])
def test_unqualified_and_nested_fields(dialect: str) -> None:
    e = one_event(
        "INSERT INTO out SELECT asset.id AS aid, payload.user.id AS uid FROM widgets",
        {"db.widgets": ["asset", "payload"]},
        dialect=dialect,
    )
    assert reads(e) == [("aid", "IDENTITY", ["asset.id"]), ("uid", "IDENTITY", ["payload.user.id"])]


@pytest.mark.parametrize("dialect", ["spark", "bigquery", "trino"])
def test_fields_through_a_derived_table_and_in_filters(dialect: str) -> None:
    e = one_event(
        "INSERT INTO out SELECT UPPER(x.payload.kind) AS kind FROM (SELECT id, payload FROM events) x "
        "WHERE x.payload.active",
        {"db.events": ["id", "payload"]},
        dialect=dialect,
    )
    assert reads(e) == [("kind", "TRANSFORMATION", ["payload.kind"])]
    assert [[c.column for c in i.sources] for i in e.dataset_indirect] == [["payload.active"]]


def test_a_field_of_a_table_without_schema_is_certain() -> None:
    e = one_event("INSERT INTO out SELECT w.asset.id AS asset_id FROM widgets w", dialect="bigquery")
    assert reads(e) == [("asset_id", "IDENTITY", ["asset.id"])]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT w.asset:id AS aid FROM widgets w", [("aid", "IDENTITY", ["asset.id"])]),
        ("SELECT e.payload:user.id::number AS uid FROM widgets e", [("uid", "TRANSFORMATION", ["payload.user.id"])]),
        ("SELECT payload:Kind::string AS k FROM widgets", [("k", "TRANSFORMATION", ["payload.kind"])]),
        ("SELECT e.payload:items[0].sku AS sku FROM widgets e", [("sku", "TRANSFORMATION", ["payload"])]),
    ],
)
def test_snowflake_paths_are_fields(sql: str, expected: list) -> None:
    e = one_event(f"INSERT INTO out {sql}", {"db.widgets": ["id", "asset", "payload"]}, dialect="snowflake")
    assert reads(e) == expected


def test_snowflake_path_keys_keep_their_case() -> None:
    e = one_event(
        "INSERT INTO out SELECT payload:Kind AS k FROM widgets", {"db.widgets": ["payload"]}, dialect="snowflake"
    )
    assert e.direct[0].sources[0].column.endswith(".Kind")


def test_a_path_over_a_column_the_catalog_lacks_is_that_column_not_a_table() -> None:
    # issue 34 (9): ``w.nope`` names table w's column; a catalog without it is stale (a WARNING), and
    # the path is never read as a table ``w``
    e = one_event("INSERT INTO out SELECT w.nope:id AS x FROM widgets w", {"DB.WIDGETS": ["ID"]}, dialect="snowflake")
    assert "column_not_in_catalog" in [d.code for d in e.diagnostics]
    assert [(c.table.name, c.column) for c in e.direct[0].sources] == [("WIDGETS", "NOPE.id")]


def test_a_field_of_an_expression_stays_a_field_access() -> None:
    e = one_event(
        "INSERT INTO out SELECT named_struct('x', a, 'y', b).x AS x FROM t", {"db.t": ["a", "b"]}, dialect="spark"
    )
    assert e.direct[0].type is DirectType.TRANSFORMATION
    assert sorted(c.column for c in e.direct[0].sources) == ["a", "b"]


def test_openlineage_nests_the_field_in_its_column() -> None:
    e = one_event(
        "INSERT INTO out SELECT w.asset.id AS aid, w.asset.name AS n, w.id FROM widgets w",
        {"db.widgets": ["id", "asset"]},
        dialect="bigquery",
    )
    doc = json.loads(Serde.to_json(to_run_event(e, naming=OpenLineageNaming())))
    fields = doc["inputs"][0]["facets"]["schema"]["fields"]
    leaf = {"fields": []}  # the client writes an empty list for a field without fields
    assert fields == [
        {"name": "asset", "fields": [{"name": "id", **leaf}, {"name": "name", **leaf}]},
        {"name": "id", **leaf},
    ]
    lineage = doc["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert lineage["aid"]["inputFields"][0]["field"] == "asset.id"


def test_the_store_keeps_the_parent_column() -> None:
    store = open_store("sqlite://")
    store.record(one_event("INSERT INTO out SELECT w.asset.id AS aid FROM widgets w", dialect="bigquery"))
    assert [o.field.name for o in store.get_field_origin("db.out.aid").origins] == ["internal.db.widgets.asset"]
    impacted = {p.field.name for p in store.get_field_impact("db.widgets.asset").impacted}
    assert impacted == {"internal.db.widgets.asset.id", "internal.db.out.aid"}
