"""The artifact reader on its own (no dbt installed): hand-written manifests of other adapters, and
RunEvents shaped as openlineage-dbt sends them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from headwater.model import TableRef
from headwater.project.dbt import extract_dbt, load_artifacts
from headwater.store import open_store
from headwater.store.from_openlineage import run_event_facts


def _model(name: str, sql: str, deps: list[str], materialized: str = "table", **extra: Any) -> dict[str, Any]:
    return {
        "resource_type": "model",
        "name": name,
        "database": "Analytics",
        "schema": "Marts",
        "alias": name,
        "config": {"materialized": materialized},
        "compiled_code": sql,
        "depends_on": {"nodes": deps},
        "original_file_path": f"models/{name}.sql",
        "fqn": ["p", "marts", name],
        **extra,
    }


def _write(tmp: Path, adapter: str, nodes: dict[str, Any], sources: dict[str, Any]) -> Path:
    (tmp / "target").mkdir()
    manifest = {"metadata": {"project_name": "p", "adapter_type": adapter}, "nodes": nodes, "sources": sources}
    (tmp / "target" / "manifest.json").write_text(json.dumps(manifest))
    return tmp


def test_snowflake_manifest_with_ctes_not_injected(tmp_path: Path) -> None:
    """Snowflake folds unquoted names to upper case; an ephemeral model's CTE the code lacks is put in."""
    eph = _model("eph", "select ID, AMOUNT * 2 as DOUBLED from ANALYTICS.RAW.PAYMENTS", [], "ephemeral")
    cte = {
        "id": "model.p.eph",
        "sql": " __dbt__cte__eph as (select ID, AMOUNT * 2 as DOUBLED from ANALYTICS.RAW.PAYMENTS)",
    }
    fct = _model(
        "fct", "select e.ID, e.DOUBLED as TOTAL from __dbt__cte__eph e", ["model.p.eph"],
        extra_ctes=[cte], extra_ctes_injected=False,
    )  # fmt: skip
    src = {"resource_type": "source", "name": "payments", "database": "ANALYTICS", "schema": "RAW",
           "identifier": "PAYMENTS", "fqn": ["p", "raw", "payments"]}  # fmt: skip
    art = load_artifacts(
        _write(tmp_path, "snowflake", {"model.p.eph": eph, "model.p.fct": fct}, {"source.p.raw.payments": src})
    )
    x = extract_dbt(art)
    assert x.manifest.dialect == "snowflake"
    assert [m.node.unique_id for m in x.models] == ["model.p.fct"]  # the ephemeral model is no job
    (event,) = x.models[0].events
    assert event.target.table == TableRef("ANALYTICS", "MARTS", "FCT")
    by_column = {d.target_column: [(i.column.table.name, i.column.column) for i in d.inputs] for d in event.direct}
    assert by_column == {"ID": [("PAYMENTS", "ID")], "TOTAL": [("PAYMENTS", "AMOUNT")]}
    assert event.context.external_catalog_properties["headwater.job"] == "model.p.fct"


def test_duckdb_view_and_run_order(tmp_path: Path) -> None:
    nodes = {
        "model.p.b": _model("b", 'select x + 1 as y from "analytics"."marts"."a"', ["model.p.a"]),
        "model.p.a": _model("a", "select 1 as x", [], "view"),
    }
    x = extract_dbt(load_artifacts(_write(tmp_path, "duckdb", nodes, {})))
    assert [m.node.unique_id for m in x.models] == ["model.p.a", "model.p.b"]
    assert [e.source_command.value for m in x.models for e in m.events] == ["CreateViewCommand", "CreateTableCommand"]


def _dbt_ol_event(event_type: str = "COMPLETE") -> dict[str, Any]:
    """A RunEvent as openlineage-dbt 1.54 sends it for model ``fct`` (trimmed to what matters)."""
    ns = "postgres://127.0.0.1:5432"
    return {
        "eventType": event_type,
        "eventTime": "2026-12-01T10:00:00Z",
        "run": {"runId": "0193d7a4-0000-7000-8000-000000000001"},
        "job": {
            "namespace": "shop",
            "name": "test.marts.p.fct",
            "facets": {"dbt_node": {"unique_id": "model.p.fct", "database": "test", "schema": "marts", "alias": "fct"}},
        },
        "inputs": [
            {
                "namespace": ns,
                "name": "test.marts.eph",
                "facets": {"dbt_model": {"config": {"materialized": "ephemeral"}}},
            },
            {"namespace": ns, "name": "test.staging.orders"},
        ],
        "outputs": [
            {
                "namespace": ns,
                "name": "test.marts.fct",
                "facets": {
                    "columnLineage": {
                        "fields": {
                            "id": {"inputFields": [{"namespace": ns, "name": "test.staging.orders", "field": "id"}]},
                            "x": {"inputFields": [{"namespace": ns, "name": "source", "field": "x"}]},
                        }
                    }
                },
            }
        ],
    }


def test_a_dbt_ol_event_is_the_models_job_on_its_relations() -> None:
    facts = run_event_facts(_dbt_ol_event())
    assert facts.job == ("JOB", "job:model.p.fct")
    datasets = sorted(k[1] for k in facts.nodes if k[0] == "DATASET")
    assert datasets == ["test.marts.fct", "test.staging.orders"]  # no ephemeral model, no CTE `source`


def test_another_producers_run_keeps_headwaters_lineage(tmp_path: Path) -> None:
    nodes = {"model.p.fct": {**_model("fct", 'select id, id * 2 as x from "test"."staging"."orders"', []),
                             "database": "test", "schema": "marts"}}  # fmt: skip
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    x = extract_dbt(load_artifacts(_write(tmp_path, "postgres", nodes, {})))
    store.record_batch([e for m in x.models for e in m.events])
    store.record_openlineage([_dbt_ol_event("START"), _dbt_ol_event("COMPLETE")])
    origin = store.get_field_origin("test.marts.fct.x").origins
    assert [(o.field.name, o.types) for o in origin] == [("test.staging.orders.id", ["TRANSFORMATION"])]
    history = store.job_history("JOB:job:model.p.fct")
    assert [v.runs for v in history.versions] == [3]  # one version: the extracted one, run three times
