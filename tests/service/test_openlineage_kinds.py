"""Issue 38 item 3: the spec's three event kinds, as openlineage-python's client models serialise
them, posted to ``POST /api/v1/lineage``: a JobEvent records the job's static lineage (a version of
the job, no run), a DatasetEvent a dataset's schema and facets; a RunEvent of the same job meets them
on the same nodes."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from openlineage.client.event_v2 import (
    DatasetEvent,
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
    StaticDataset,
)
from openlineage.client.facet_v2 import column_lineage_dataset as cl
from openlineage.client.facet_v2 import documentation_dataset, schema_dataset, sql_job
from openlineage.client.serde import Serde

NS = "postgres://pg:5432"
PRODUCER = "https://example.com/etl"


def _schema(*names: str) -> schema_dataset.SchemaDatasetFacet:
    return schema_dataset.SchemaDatasetFacet(fields=[schema_dataset.SchemaDatasetFacetFields(n, "INT") for n in names])


def _lineage(src: str, pairs: dict[str, str]) -> cl.ColumnLineageDatasetFacet:
    fields = {
        out: cl.Fields(
            inputFields=[cl.InputField(NS, src, inp, transformations=[cl.Transformation("DIRECT", "IDENTITY")])]
        )
        for out, inp in pairs.items()
    }
    return cl.ColumnLineageDatasetFacet(fields=fields)


def _post(client: TestClient, event: Any) -> Any:
    body = json.loads(Serde.to_json(event))
    r = client.post("/api/v1/lineage", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def job_event(src_col: str = "id", time: str = "2025-01-01T00:00:00Z") -> JobEvent:
    return JobEvent(
        eventTime=time,
        producer=PRODUCER,
        job=Job("etl", "load_dim", facets={"sql": sql_job.SQLJobFacet(query="INSERT INTO shop.public.dim …")}),
        inputs=[InputDataset(NS, "shop.public.customers", facets={"schema": _schema("id", "key")})],
        outputs=[
            OutputDataset(
                NS,
                "shop.public.dim",
                facets={"schema": _schema("cid"), "columnLineage": _lineage("shop.public.customers", {"cid": src_col})},
            )
        ],
    )


def test_a_job_event_records_the_jobs_static_lineage(client: TestClient) -> None:
    assert "run" not in json.loads(Serde.to_json(job_event()))  # what the client sends: no run
    assert _post(client, job_event())["recorded"] == 1
    r = client.get("/api/v1/field-origin", params={"field": "shop.public.dim.cid"})
    assert r.status_code == 200, r.text
    assert [o["field"]["short"] for o in r.json()["origins"]] == ["customers.id"]
    assert _post(client, job_event())["duplicates"] == 1  # the same event again
    # a later version of the job replaces what the job asserted
    assert _post(client, job_event("key", "2025-02-01T00:00:00Z"))["recorded"] == 1
    r = client.get("/api/v1/field-origin", params={"field": "shop.public.dim.cid"})
    assert [o["field"]["short"] for o in r.json()["origins"]] == ["customers.key"]
    old = client.get("/api/v1/field-origin", params={"field": "shop.public.dim.cid", "as_of": "2025-01-15T00:00:00Z"})
    assert [o["field"]["short"] for o in old.json()["origins"]] == ["customers.id"]
    jobs = client.get("/api/v1/lineage", params={"node": "shop.public.dim", "direction": "UPSTREAM", "max_depth": 1})
    assert [n["name"] for n in jobs.json()["nodes"] if n["type"] == "JOB"] == ["ol:etl/load_dim"]


def test_a_dataset_event_records_a_datasets_schema_and_facets(client: TestClient) -> None:
    doc = documentation_dataset.DocumentationDatasetFacet(description="one row per customer")
    event = DatasetEvent(
        eventTime="2025-01-01T00:00:00Z",
        producer=PRODUCER,
        dataset=StaticDataset(
            NS, "shop.public.customers", facets={"schema": _schema("id", "email"), "documentation": doc}
        ),
    )
    assert _post(client, event)["recorded"] == 1
    r = client.get("/api/v1/nodes/resolve", params={"node": "shop.public.customers.email"})
    assert r.status_code == 200, r.text
    assert r.json()["type"] == "FIELD"
    ds = client.get("/api/v1/nodes/resolve", params={"node": "shop.public.customers"}).json()
    assert ds["properties"]["openlineage_dataset_event"].startswith("ol:")
    assert _post(client, event)["duplicates"] == 1
    # a RunEvent reading the dataset meets it on the same node
    run = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime="2025-01-02T00:00:00Z",
        producer=PRODUCER,
        run=Run("0195f2a4-0000-7000-8000-000000000001"),
        job=Job("etl", "export"),
        inputs=[InputDataset(NS, "shop.public.customers")],
        outputs=[
            OutputDataset(
                NS,
                "shop.public.export",
                facets={"columnLineage": _lineage("shop.public.customers", {"mail": "email"})},
            )
        ],
    )
    assert _post(client, run)["recorded"] == 1
    r = client.get("/api/v1/field-impact", params={"field": "shop.public.customers.email"})
    assert [i["field"]["short"] for i in r.json()["impacted"]] == ["export.mail"]


def test_a_run_event_without_its_run_is_still_refused(client: TestClient) -> None:
    """An event with an ``eventType`` is a RunEvent: without ``run`` it is refused as before."""
    body = {"eventTime": "2025-01-01T00:00:00Z", "eventType": "COMPLETE", "job": {"namespace": "etl", "name": "x"}}
    r = client.post("/api/v1/lineage", json=body)
    assert (r.status_code, r.json()["error"]) == (400, {"field": "body.run", "message": "missing"})
