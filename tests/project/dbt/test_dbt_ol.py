"""Real OpenLineage producers into a live ``headwater serve``: ``dbt-ol run`` (openlineage-dbt, HTTP
transport) and openlineage-python's own client land on the nodes of ``headwater ingest --dbt``,
with their run states, and never make a second job of a model."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from headwater.store import open_store
from tests.explorer.helpers import free_port
from tests.project.dbt.conftest import DbtProject
from tests.project.dbt.helpers import Names, ingest, job_events, node_names, origins
from tests.project.dbt.test_dbt_ingest import JOBS, ORIGINS

JOB_NAMESPACE = "hw_shop_ci"
PARENT = f"ol:{JOB_NAMESPACE}/dbt-run-hw_shop"  # dbt-ol's job for the whole invocation
MODELS = sorted(j for j in JOBS if j.startswith("job:model."))
NAMING = """[openlineage.namespaces]
test = { namespace = "postgres://127.0.0.1:5432", prefix = "test" }
"""


@dataclass
class Served:
    url: str  # http://127.0.0.1:PORT
    store_url: str


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Served]:
    """``headwater serve`` as a subprocess on a free port, over a SQLite store in ``tmp_path``, with a
    headwater.toml placing catalog ``test`` at the PostgreSQL server's namespace."""
    (tmp_path / "headwater.toml").write_text(NAMING)
    store_url = f"sqlite:///{tmp_path / 'lineage.db'}"
    open_store(store_url).close()  # created with its schema before the server opens it
    port = free_port()
    exe = Path(sys.executable).parent / "headwater"
    proc = subprocess.Popen(
        [str(exe), "serve", "--store", store_url, "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise AssertionError(
                    f"headwater serve exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}"
                )
            try:
                if httpx.get(f"{url}/api/v1/stats", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        else:
            raise AssertionError("headwater serve did not answer within 30 s")
        yield Served(url, store_url)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def dbt_ol_run(project: DbtProject, served: Served) -> None:
    out = project.run(
        "dbt-ol",
        "run",
        OPENLINEAGE_URL=served.url,
        OPENLINEAGE_NAMESPACE=JOB_NAMESPACE,
        OPENLINEAGE__TRANSPORT__TIMEOUT="30",
    )
    assert "Emitted" in out.stdout + out.stderr, out.stdout + out.stderr


def test_dbt_ol_after_ingest_records_runs_on_the_same_nodes(built: DbtProject, serve: Served) -> None:
    n = Names(built.schema)
    ingest(serve.store_url, "--dbt", str(built.dir))
    store = open_store(serve.store_url)
    datasets, systems = node_names(store, "DATASET"), node_names(store, "SOURCE_SYSTEM")
    dbt_ol_run(built, serve)
    assert node_names(store, "JOB") == JOBS | {PARENT}  # no second job for any model
    assert node_names(store, "DATASET") == datasets  # the ephemeral model dbt-ol names as a table is no node
    assert node_names(store, "SOURCE_SYSTEM") == systems
    for job in MODELS:
        assert job_events(store, job) == [
            ("headwater", "COMPLETE"),
            ("openlineage", "START"),
            ("openlineage", "COMPLETE"),
        ]
    # dbt-ol's column lineage has no transformation types and no indirect lineage: headwater's stays
    for column, expected in ORIGINS.items():
        assert origins(store, n, column) == expected, column
    assert store.job_history("JOB:job:model.hw_shop.dim_customers").versions[-1].runs == 3


def test_dbt_ol_first_then_ingest_gives_the_same_nodes(built: DbtProject, serve: Served, tmp_path: Path) -> None:
    n = Names(built.schema)
    dbt_ol_run(built, serve)
    store = open_store(serve.store_url)
    from_dbt_ol = node_names(store, "DATASET")
    assert node_names(store, "JOB") == set(MODELS) | {PARENT}
    reference = f"sqlite:///{tmp_path / 'reference.db'}"
    ingest(reference, "--dbt", str(built.dir))
    assert from_dbt_ol <= node_names(open_store(reference), "DATASET")
    assert {n.short(d) for d in from_dbt_ol} >= {"marts.dim_customers", "staging.stg_orders", "raw.payments"}
    output = ingest(serve.store_url, "--dbt", str(built.dir))  # the artifacts of that `dbt-ol run`
    assert "snapshot.hw_shop.customers_snapshot: not compiled" in output  # `dbt run` runs no snapshot
    assert node_names(store, "JOB") == JOBS - {"job:snapshot.hw_shop.customers_snapshot"} | {PARENT}
    for column, expected in ORIGINS.items():  # headwater's extraction replaced dbt-ol's lineage
        if not column.startswith("snapshots."):
            assert origins(store, n, column) == expected, column


def test_openlineage_client_lands_on_the_dbt_datasets(built: DbtProject, serve: Served) -> None:
    from openlineage.client import OpenLineageClient
    from openlineage.client.event_v2 import Dataset, Job, Run, RunEvent, RunState
    from openlineage.client.transport.http import HttpConfig, HttpTransport
    from openlineage.client.uuid import generate_new_uuid

    ingest(serve.store_url, "--dbt", str(built.dir))
    store = open_store(serve.store_url)
    datasets = node_names(store, "DATASET")
    client = OpenLineageClient(transport=HttpTransport(HttpConfig(url=serve.url)))
    source = Dataset(namespace="postgres://127.0.0.1:5432", name=f"test.{built.schema}_marts.dim_customers")
    export = Dataset(namespace="s3://exports", name="customers.csv")
    run = Run(runId=str(generate_new_uuid()))
    job = Job(namespace="reverse_etl", name="export_customers")
    for state in (RunState.START, RunState.COMPLETE):
        client.emit(
            RunEvent(eventType=state, eventTime=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), run=run, job=job,
                     producer="https://example.org/reverse-etl", inputs=[source], outputs=[export])
        )  # fmt: skip
    assert node_names(store, "DATASET") == datasets | {"s3://exports.customers.csv"}
    downstream = store.get_downstream(f"test.{built.schema}_marts.dim_customers", max_depth=2)
    assert "ol:reverse_etl/export_customers" in {x.name for x in downstream.nodes}
    assert job_events(store, "ol:reverse_etl/export_customers") == [
        ("openlineage", "START"),
        ("openlineage", "COMPLETE"),
    ]
