"""Issue 38 item 2: a dataset and the names of its ``symlinks`` facet are one node, whichever name
reaches the store first: Spark writes ``hdfs://nn:8020`` ``/warehouse/sales.db/region_summary`` naming
the Hive table ``hive://metastore:9083`` ``sales.region_summary`` as a symlink, Trino reads the Hive
name, and the origin of Trino's output goes through to the Spark job's inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from headwater.store import open_store
from headwater.store.from_openlineage import ALIASES_PROPERTY

HDFS, PATH = "hdfs://nn:8020", "/warehouse/sales.db/region_summary"
HIVE, TABLE = "hive://metastore:9083", "sales.region_summary"
PG = "postgres://pg:5432"


def _identity(ns: str, name: str, field: str) -> dict[str, Any]:
    return {
        "namespace": ns,
        "name": name,
        "field": field,
        "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
    }


def spark() -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2025-01-01T01:00:00Z",
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/spark",
        "run": {"runId": "0195f2a4-0000-7000-8000-00000000a001"},
        "job": {"namespace": "spark", "name": "region_summary_job"},
        "inputs": [{"namespace": PG, "name": "shop.public.orders"}],
        "outputs": [
            {
                "namespace": HDFS,
                "name": PATH,
                "facets": {
                    "symlinks": {
                        "_producer": "spark",
                        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json",
                        "identifiers": [{"namespace": HIVE, "name": TABLE, "type": "TABLE"}],
                    },
                    "columnLineage": {
                        "_producer": "spark",
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
                        "fields": {"region": {"inputFields": [_identity(PG, "shop.public.orders", "region")]}},
                    },
                },
            }
        ],
    }


def trino() -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2025-01-01T02:00:00Z",
        "producer": "https://github.com/trinodb/trino",
        "run": {"runId": "0195f2a4-0000-7000-8000-00000000b001"},
        "job": {"namespace": "trino", "name": "report"},
        "inputs": [{"namespace": HIVE, "name": TABLE}],
        "outputs": [
            {
                "namespace": "trino://coordinator:8080",
                "name": "hive.reports.regions",
                "facets": {
                    "columnLineage": {
                        "_producer": "trino",
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
                        "fields": {"region": {"inputFields": [_identity(HIVE, TABLE, "region")]}},
                    }
                },
            }
        ],
    }


@pytest.mark.parametrize("order", ["spark first", "trino first", "one batch"])
def test_symlinked_names_are_one_dataset_whichever_arrives_first(tmp_path: Any, order: str) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    if order == "spark first":
        store.record_openlineage(spark())
        store.record_openlineage(trino())
    elif order == "trino first":
        store.record_openlineage(trino())
        store.record_openlineage(spark())
    else:
        store.record_openlineage([trino(), spark()])
    origin = store.get_field_origin("hive.reports.regions.region")
    assert [o.field.name for o in origin.origins] == [f"{PG}.shop.public.orders.region"]
    datasets = [n for n in store.get_lineage("hive.reports.regions", "UPSTREAM", None).nodes if n.type == "DATASET"]
    assert len(datasets) == 3  # the report, the one summary node, the orders
    [summary] = [n for n in datasets if n.depth == -1]
    assert [HIVE, TABLE] in summary.properties[ALIASES_PROPERTY]
    assert [HDFS, PATH] in summary.properties[ALIASES_PROPERTY]
    assert json.dumps(summary.properties[ALIASES_PROPERTY])  # kept on the node, as JSON
