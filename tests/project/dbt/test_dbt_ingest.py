"""``headwater ingest --dbt``: the test project built with dbt-core and dbt-postgres against the local
PostgreSQL, its artifacts ingested, every model answered as a reader of its SQL would answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from headwater.store import open_store
from tests.project.dbt.conftest import DbtProject
from tests.project.dbt.helpers import Names, impacts, ingest, job_events, node_names, origins

D, IND = "DIRECT", "INDIRECT"

ORIGINS = {  # a column of each model → its origin columns (level field), as the SQL says
    "staging.stg_customers.customer_id": {"raw.customers.id": D},
    "staging.stg_customers.email": {"raw.customers.email": D},
    # stg_orders is `with source as (select * from raw.orders) select id as order_id, …`: catalog.json binds *
    "staging.stg_orders.order_id": {"raw.orders.id": D},
    "staging.stg_orders.customer_id": {"raw.orders.user_id": D},
    "staging.stg_payments.amount": {"raw.payments.amount": D},  # the cents_to_dollars macro
    # through the ephemeral int_order_payments (a __dbt__cte__ CTE), never stopping at it
    "intermediate.int_customer_orders.lifetime_value": {"raw.payments.amount": D},
    "intermediate.int_customer_orders.first_order_date": {"raw.orders.order_date": D},
    "intermediate.int_customer_orders.order_count": {},  # count(*)
    "marts.dim_customers.customer_id": {"raw.customers.id": D},
    "marts.dim_customers.full_name": {"raw.customers.first_name": D, "raw.customers.last_name": D},
    "marts.dim_customers.country_name": {"seeds.country_codes.country_name": D},
    "marts.dim_customers.order_count": {"intermediate.int_customer_orders.order_count": D},
    "marts.dim_customers.lifetime_value": {"raw.payments.amount": D},
    "marts.fct_orders.order_id": {"raw.orders.id": D},
    "marts.fct_orders.amount": {"raw.payments.amount": D},
    "marts.fct_orders.gift_card_amount": {"raw.payments.amount": D, "raw.payments.payment_method": IND},
    "marts.country_revenue.revenue": {"raw.payments.amount": D},
    "marts.country_revenue.country_name": {"seeds.country_codes.country_name": D},
    "snapshots.customers_snapshot.email": {"raw.customers.email": D},
}

IMPACTS = {
    "raw.payments.amount": {
        "staging.stg_payments.amount": D,
        "intermediate.int_customer_orders.lifetime_value": D,
        "marts.fct_orders.amount": D,
        "marts.fct_orders.gift_card_amount": D,
        "marts.dim_customers.lifetime_value": D,
        "marts.country_revenue.revenue": D,
    },
    "raw.payments.payment_method": {"staging.stg_payments.payment_method": D, "marts.fct_orders.gift_card_amount": IND},
    "raw.customers.email": {"staging.stg_customers.email": D, "snapshots.customers_snapshot.email": D},
    "raw.orders.order_date": {
        "staging.stg_orders.order_date": D,
        "intermediate.int_customer_orders.first_order_date": D,
        "marts.dim_customers.first_order_date": D,
        "marts.fct_orders.order_date": D,
    },
}

JOBS = {
    "job:model.hw_shop.stg_customers",
    "job:model.hw_shop.stg_orders",
    "job:model.hw_shop.stg_payments",
    "job:model.hw_shop.int_customer_orders",
    "job:model.hw_shop.dim_customers",
    "job:model.hw_shop.fct_orders",
    "job:model.hw_shop.country_revenue",
    "job:snapshot.hw_shop.customers_snapshot",
    "job:seed.hw_shop.country_codes",
}


@pytest.fixture(scope="module")
def ingested(built: DbtProject, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'lineage.db'}"
    return url, ingest(url, "--dbt", str(built.dir))


def test_every_model_snapshot_and_seed_is_a_job_named_by_dbt(built: DbtProject, ingested: tuple[str, str]) -> None:
    url, output = ingested
    store = open_store(url)
    assert node_names(store, "JOB") == JOBS  # the ephemeral model is no job: its SQL is in its readers'
    n = Names(built.schema)
    datasets = {n.short(d) for d in node_names(store, "DATASET")}
    assert datasets == {
        "raw.customers", "raw.orders", "raw.payments", "seeds.country_codes",
        "staging.stg_customers", "staging.stg_orders", "staging.stg_payments",
        "intermediate.int_customer_orders", "marts.dim_customers", "marts.fct_orders", "marts.country_revenue",
        "snapshots.customers_snapshot",
    }  # fmt: skip
    views = {n.short(d) for d in datasets_of_type(store, "VIEW")}
    assert views == {"staging.stg_customers", "staging.stg_orders", "staging.stg_payments", "marts.country_revenue"}
    assert "failed" in output and "not COMPLETE" not in output, output


def datasets_of_type(store, kind: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {d for d in node_names(store, "DATASET") if (store.resolve(d).properties or {}).get("dataset_type") == kind}


@pytest.mark.parametrize("column", sorted(ORIGINS))
def test_origin_of_every_model_column(built: DbtProject, ingested: tuple[str, str], column: str) -> None:
    assert origins(open_store(ingested[0]), Names(built.schema), column) == ORIGINS[column]


@pytest.mark.parametrize("column", sorted(IMPACTS))
def test_impact_through_every_model(built: DbtProject, ingested: tuple[str, str], column: str) -> None:
    assert impacts(open_store(ingested[0]), Names(built.schema), column) == IMPACTS[column]


def test_descriptions_tags_owner_and_layer_are_node_properties(built: DbtProject, ingested: tuple[str, str]) -> None:
    store, n = open_store(ingested[0]), Names(built.schema)
    dim = store.resolve(n.full("marts.dim_customers")).properties
    assert {k: v for k, v in dim.items() if k.startswith("dbt.")} == {
        "dbt.unique_id": "model.hw_shop.dim_customers",
        "dbt.resource_type": "model",
        "dbt.layer": "marts",
        "dbt.description": "One row per customer, with what they bought.",
        "dbt.tags": "finance",
        "dbt.owner": "analytics@shop.example",
        "dbt.materialized": "table",
    }
    assert store.resolve(n.full("marts.dim_customers.full_name")).properties == {
        "dbt.description": "First and last name."
    }
    assert store.resolve(n.full("staging.stg_customers.email")).properties["dbt.tags"] == "pii"
    assert store.resolve(n.full("staging.stg_orders")).properties["dbt.layer"] == "staging"
    assert (
        store.resolve(n.full("raw.orders")).properties["dbt.description"] == "One row per order, as the shop writes it."
    )
    fct = store.resolve("JOB:job:model.hw_shop.fct_orders").properties
    assert fct["dbt.is_incremental"] == "true" and fct["dbt.file"] == "models/marts/fct_orders.sql"
    assert fct["dbt.last_run"].startswith("success in ") and fct["dbt.status"] == "success"


def test_runs_come_from_run_results(ingested: tuple[str, str]) -> None:
    store = open_store(ingested[0])
    history = store.job_history("job:model.hw_shop.dim_customers")
    assert len(history.versions) == 1
    assert job_events(store, "job:model.hw_shop.dim_customers") == [("headwater", "COMPLETE")]


def test_the_same_artifacts_again_record_nothing_twice(built: DbtProject, ingested: tuple[str, str]) -> None:
    output = ingest(ingested[0], "--dbt", str(built.dir / "target"))  # the target directory works too
    row = next(line for line in output.splitlines() if line.startswith("│"))
    assert [c.strip() for c in row.strip("│").split("│")] == ["1", "9", "9", "0", "9", "0", "0"], output


def test_catalog_json_binds_select_star_over_a_source(built: DbtProject, tmp_path: Path) -> None:
    target = tmp_path / "target"
    shutil.copytree(built.dir / "target", target)
    (target / "catalog.json").unlink()
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    output = ingest(url, "--dbt", str(target))
    partial = [line for line in output.splitlines() if "PARTIAL" in line and ".sql:" not in line[:3]]
    assert any(line.startswith("hw_shop/models/staging/stg_orders.sql: ") for line in partial), output


def test_missing_artifacts_are_one_line(tmp_path: Path) -> None:
    output = ingest(f"sqlite:///{tmp_path / 'l.db'}", "--dbt", str(tmp_path), code=2)
    assert (
        output.strip()
        == f"error: --dbt {tmp_path}: no target/manifest.json there or in it: run `dbt build` (or `dbt compile`) in the project first"
    )
