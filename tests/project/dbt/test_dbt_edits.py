"""A dbt project that changes: a model edited, a model whose run fails, a model removed; each time
``dbt build`` and ``headwater ingest --dbt`` again, as a dbt user works."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from headwater.store import open_store
from tests.project.dbt.conftest import DbtProject
from tests.project.dbt.helpers import Names, ingest, job_events, origins

D = "DIRECT"


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('store') / 'lineage.db'}"


def _between() -> datetime:
    """A time after what is recorded and before the next dbt run."""
    time.sleep(0.05)
    t = datetime.now(UTC)
    time.sleep(0.05)
    return t


def test_an_edited_model_closes_what_it_no_longer_produces(built: DbtProject, store_url: str) -> None:
    n = Names(built.schema)
    ingest(store_url, "--dbt", str(built.dir))
    before = _between()
    built.edit(
        "models/marts/dim_customers.sql", "c.first_name || ' ' || c.last_name as full_name", "c.last_name as full_name"
    )
    built.build()  # the second run of fct_orders is incremental: its SQL reads fct_orders itself
    output = ingest(store_url, "--dbt", str(built.dir))
    store = open_store(store_url)
    assert origins(store, n, "marts.dim_customers.full_name") == {"raw.customers.last_name": D}, output
    assert origins(store, n, "marts.dim_customers.full_name", as_of=before) == {
        "raw.customers.first_name": D,
        "raw.customers.last_name": D,
    }
    dim = store.job_history("JOB:job:model.hw_shop.dim_customers")
    assert [v.runs for v in dim.versions] == [1, 1] and dim.file == "hw_shop/models/marts/dim_customers.sql"
    assert "c.last_name as full_name" in (dim.versions[-1].sql or "")
    stg = store.job_history("JOB:job:model.hw_shop.stg_customers")  # unchanged: one version, run twice
    assert [v.runs for v in stg.versions] == [2]
    fct = store.job_history("JOB:job:model.hw_shop.fct_orders")
    assert (fct.versions[-1].sql or "").startswith(f'INSERT INTO "test"."{built.schema}_marts"')
    assert store.resolve("JOB:job:model.hw_shop.fct_orders").properties["dbt.is_incremental"] == "true"
    assert origins(store, n, "marts.fct_orders.amount") == {"raw.payments.amount": D}


def test_a_failed_model_makes_no_new_version(built: DbtProject, store_url: str) -> None:
    n = Names(built.schema)
    built.edit("models/marts/fct_orders.sql", "p.gift_card_amount", "p.no_such_column as gift_card_amount")
    assert built.dbt("build", ok=False).returncode != 0
    built.dbt("docs", "generate", "--no-compile")
    output = ingest(store_url, "--dbt", str(built.dir))
    assert "hw_shop/models/marts/fct_orders.sql: model.hw_shop.fct_orders: its run error: no new version" in output
    store = open_store(store_url)
    assert origins(store, n, "marts.fct_orders.gift_card_amount") == {
        "raw.payments.amount": D,
        "raw.payments.payment_method": "INDIRECT",
    }
    assert len(store.job_history("JOB:job:model.hw_shop.fct_orders").versions) == 2  # as before the failed run
    assert job_events(store, "job:model.hw_shop.fct_orders")[-1] == ("openlineage", "FAIL")
    props = store.resolve("JOB:job:model.hw_shop.fct_orders").properties
    assert props["dbt.status"] == "error" and props["dbt.last_run"].startswith("error in ")
    built.edit("models/marts/fct_orders.sql", "p.no_such_column as gift_card_amount", "p.gift_card_amount")


def test_a_removed_model_is_closed(built: DbtProject, store_url: str) -> None:
    n = Names(built.schema)
    (built.dir / "models/marts/country_revenue.sql").unlink()
    built.build()
    before = _between()
    output = ingest(store_url, "--dbt", str(built.dir))
    assert "jobs closed, their model no longer in the dbt project: 1 (model.hw_shop.country_revenue)" in output
    store = open_store(store_url)
    assert origins(store, n, "marts.country_revenue.revenue") == {}
    assert origins(store, n, "marts.country_revenue.revenue", as_of=before) == {"raw.payments.amount": D}
    assert store.job_history("JOB:job:model.hw_shop.country_revenue").closed is not None
