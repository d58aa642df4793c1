"""Conformance: every RunEvent type headwater produces (COMPLETE, START, FAIL) validates against the
OpenLineage JSON Schemas of the versions it names (``../shared/openlineage-spec``, never copied here,
nothing fetched), each facet against the schema its ``_schemaURL`` names (the headwater facet against
the schema shipped in the package), and openlineage-python's models rebuild each event exactly.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from headwater.extract import Extractor, RunInfo
from headwater.model import LineageInfo
from headwater.model.ol_naming import OpenLineageNaming, Place
from headwater.model.openlineage import (
    HEADWATER_FACET_SCHEMA_URL,
    HeadwaterRunFacet,
    failed_run_event,
    headwater_facet_schema,
    run_event_json,
    to_run_events,
)

# ``../shared`` beside the repository (``$HEADWATER_SHARED`` elsewhere, e.g. from a git worktree)
SHARED = Path(os.environ.get("HEADWATER_SHARED") or Path(__file__).resolve().parents[3] / "shared")
SPEC = SHARED / "openlineage-spec"
jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")

pytestmark = pytest.mark.skipif(
    not (SPEC / "OpenLineage.json").is_file(),
    reason=f"the OpenLineage spec files are not at {SPEC} (conformance tests need ../shared/openlineage-spec)",
)

SQL = """
CREATE TABLE sales.orders (id BIGINT, customer_id BIGINT, amount DECIMAL(18, 2), email VARCHAR(64), region VARCHAR(8));
CREATE TABLE sales.customers (id BIGINT, segment VARCHAR(8));
CREATE TABLE sales.summary AS
SELECT o.customer_id, SUM(o.amount) AS total, MD5(o.email) AS email_hash,
       CASE WHEN c.segment = 'VIP' THEN 1 ELSE 0 END AS vip,
       ROW_NUMBER() OVER (PARTITION BY o.region ORDER BY SUM(o.amount)) AS rn
FROM sales.orders o JOIN sales.customers c ON o.customer_id = c.id
WHERE o.amount > 0 GROUP BY o.customer_id, o.email, c.segment, o.region;
INSERT INTO sales.summary SELECT customer_id, amount, email, 0, 0 FROM sales.orders WHERE region = 'EU';
"""


def events() -> list[LineageInfo]:
    result = Extractor().run(SQL, RunInfo(query_id="conf", user="etl", timestamp="2025-03-01T08:00:00Z"))
    assert len(result.events) == 2
    return list(result.events)


def produced() -> list[dict[str, Any]]:
    """One of each event type, with a mapped namespace, as JSON text parsed back."""
    naming = OpenLineageNaming({"internal": Place("doris://fe:9030")}, job_namespace="etl")
    out = []
    for e in events():
        out.extend(json.loads(run_event_json(r)) for r in to_run_events(e, naming=naming, lifecycle="start"))
    out.append(json.loads(run_event_json(failed_run_event(events()[1], "ERROR 1105: table is locked", naming=naming))))
    assert [d["eventType"] for d in out] == ["START", "COMPLETE", "START", "COMPLETE", "FAIL"]
    return out


def _registry() -> Any:
    resources = []
    for path in [SPEC / "OpenLineage.json", *sorted((SPEC / "facets").glob("*.json"))]:
        doc = json.loads(path.read_text())
        resources.append((doc["$id"], referencing.Resource.from_contents(doc)))
    ours = json.loads(headwater_facet_schema())
    resources.append((ours["$id"], referencing.Resource.from_contents(ours)))
    return referencing.Registry().with_resources(resources)


def _validate(instance: Any, url: str, registry: Any) -> None:
    base, _, fragment = url.partition("#")
    try:
        resolved = registry.resolver().lookup(url)
    except referencing.exceptions.Unresolvable:
        pytest.fail(f"{url}: no such schema version in {SPEC} (base {base})")
    validator_cls = jsonschema.validators.validator_for(resolved.contents, default=jsonschema.Draft202012Validator)
    validator = validator_cls(resolved.contents, registry=registry, _resolver=resolved.resolver)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, f"{url}#{fragment}: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def _facets(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = [(f"run.{k}", v) for k, v in doc["run"].get("facets", {}).items()]
    out += [(f"job.{k}", v) for k, v in doc["job"].get("facets", {}).items()]
    for side in ("inputs", "outputs"):
        for d in doc.get(side, []):
            out += [(f"{side}.{d['name']}.{k}", v) for k, v in d.get("facets", {}).items()]
    return out


@pytest.mark.parametrize("index", range(5), ids=["start", "complete", "start-insert", "complete-insert", "fail"])
def test_every_event_and_facet_validates_against_the_version_it_names(index: int) -> None:
    registry = _registry()
    doc = produced()[index]
    _validate(doc, "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent", registry)
    facets = _facets(doc)
    assert facets, "an event without facets proves nothing"
    for where, facet in facets:
        url = facet["_schemaURL"]
        if url == HEADWATER_FACET_SCHEMA_URL:
            _validate(facet, url, registry)
            continue
        assert url.startswith("https://openlineage.io/spec/"), where
        _validate(facet, url, registry)
    names = {w.split(".")[-1] for w, _ in facets}
    assert {"headwater", "externalQuery", "processing_engine", "sql", "jobType"} <= names
    if doc["eventType"] != "FAIL":
        assert "schema" in names
    if doc["eventType"] == "COMPLETE":
        assert "columnLineage" in names
    if doc["eventType"] == "FAIL":
        assert "errorMessage" in names and not doc["inputs"] and not doc["outputs"]


def test_a_facet_breaking_its_schema_is_caught() -> None:
    """The check can fail: a jobType facet without its required ``integration`` does not validate."""
    registry = _registry()
    facet = dict(produced()[1]["job"]["facets"]["jobType"])
    del facet["integration"]
    with pytest.raises(AssertionError, match="integration"):
        _validate(facet, facet["_schemaURL"], registry)


# ------------------------------------------------------------------ openlineage-python parses them back


def _model(doc: dict[str, Any]) -> Any:
    """The event rebuilt from its JSON with openlineage-python's own model classes."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.facet_v2 import (
        column_lineage_dataset as cl,
    )
    from openlineage.client.facet_v2 import (
        error_message_run,
        external_query_run,
        job_type_job,
        processing_engine_run,
        schema_dataset,
        sql_job,
    )

    def base(f: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in f.items() if not k.startswith("_")}

    def input_field(d: dict[str, Any]) -> Any:
        ts = [cl.Transformation(**t) for t in d.get("transformations", [])]
        return cl.InputField(d["namespace"], d["name"], d["field"], transformations=ts)

    def facet(key: str, f: dict[str, Any]) -> Any:
        p, b = f["_producer"], base(f)
        if key == "schema":
            return schema_dataset.SchemaDatasetFacet(
                fields=[schema_dataset.SchemaDatasetFacetFields(**x) for x in b["fields"]], producer=p
            )
        if key == "columnLineage":
            fields = {
                k: cl.Fields(inputFields=[input_field(i) for i in v["inputFields"]]) for k, v in b["fields"].items()
            }
            return cl.ColumnLineageDatasetFacet(
                fields=fields, dataset=[input_field(i) for i in b.get("dataset", [])], producer=p
            )
        classes = {
            "sql": sql_job.SQLJobFacet,
            "jobType": job_type_job.JobTypeJobFacet,
            "externalQuery": external_query_run.ExternalQueryRunFacet,
            "processing_engine": processing_engine_run.ProcessingEngineRunFacet,
            "errorMessage": error_message_run.ErrorMessageRunFacet,
            "headwater": HeadwaterRunFacet,
        }
        return classes[key](**b, producer=p)

    def facets(d: dict[str, Any]) -> dict[str, Any]:
        return {k: facet(k, v) for k, v in d.get("facets", {}).items()}

    return RunEvent(
        eventType=RunState(doc["eventType"]),
        eventTime=doc["eventTime"],
        run=Run(runId=doc["run"]["runId"], facets=facets(doc["run"])),
        job=Job(namespace=doc["job"]["namespace"], name=doc["job"]["name"], facets=facets(doc["job"])),
        producer=doc["producer"],
        inputs=[InputDataset(d["namespace"], d["name"], facets=facets(d)) for d in doc["inputs"]],
        outputs=[OutputDataset(d["namespace"], d["name"], facets=facets(d)) for d in doc["outputs"]],
    )


def test_openlineage_python_parses_every_event_back() -> None:
    from openlineage.client.serde import Serde

    for doc in produced():
        model = _model(doc)
        assert Serde.to_dict(model) == doc, doc["eventType"]


# ------------------------------------------------------------------ the run lifecycle (issue 38 item 1)

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def _cli_lines(*args: str, sql: str = SQL) -> list[dict[str, Any]]:
    from typer.testing import CliRunner

    from headwater.cli.main import app

    r = CliRunner().invoke(app, ["extract", "-", "--format", "openlineage", *args], input=sql)
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_extract_emits_start_then_complete_per_run_and_each_validates() -> None:
    registry = _registry()
    docs = _cli_lines()
    assert [d["eventType"] for d in docs] == ["START", "COMPLETE", "START", "COMPLETE"]
    for start, complete in (docs[0:2], docs[2:4]):
        assert start["run"]["runId"] == complete["run"]["runId"]
        assert start["job"] == complete["job"]
        assert start["eventTime"] <= complete["eventTime"]
    assert docs[0]["run"]["runId"] != docs[2]["run"]["runId"]
    for doc in docs:
        _validate(doc, RUN_EVENT, registry)
        for _, facet in _facets(doc):
            _validate(facet, facet["_schemaURL"], registry)


def test_extract_lifecycle_complete_keeps_one_event_per_run() -> None:
    assert [d["eventType"] for d in _cli_lines("--lifecycle", "complete")] == ["COMPLETE", "COMPLETE"]


def test_start_time_is_the_statements_start_and_a_failed_statement_ends_in_fail() -> None:
    registry = _registry()
    run = RunInfo(query_id="life", timestamp="2025-03-01T08:00:05+00:00", duration_ms=4500)
    [_, insert] = Extractor().run(SQL, run).events
    start, complete = to_run_events(insert, lifecycle="start")
    assert (start.eventTime, complete.eventTime) == ("2025-03-01T08:00:00.500000+00:00", "2025-03-01T08:00:05+00:00")
    failed = replace(insert, context=replace(insert.context, state="ERR"))
    docs = [json.loads(run_event_json(r)) for r in to_run_events(failed, lifecycle="start")]
    assert [d["eventType"] for d in docs] == ["START", "FAIL"]
    assert docs[0]["run"]["runId"] == docs[1]["run"]["runId"] == complete.run.runId
    assert docs[1]["run"]["facets"]["errorMessage"]["message"] == "the statement failed (state ERR)"
    for doc in docs:
        _validate(doc, RUN_EVENT, registry)
        for _, facet in _facets(doc):
            _validate(facet, facet["_schemaURL"], registry)
