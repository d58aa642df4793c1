"""Issue 38 item 7: every Marquez-compatible answer validates against the response schema Marquez's
OpenAPI document (``spec/openapi.yml`` of its repository) gives the path.

The document is read at test time: ``$HEADWATER_MARQUEZ_SPEC`` (a file), else the mirror of Marquez's
repository (``git show HEAD:spec/openapi.yml``). OpenAPI 3.0 schemas become JSON Schema here: an empty
``type:`` is dropped, ``nullable`` admits null, ``format: date-time`` is checked. Where the document
cannot describe Marquez's own answers the test says so and checks what it can:

- a lineage node's ``data`` is ``oneOf: [Dataset, Job]`` with a discriminator; both schemas accept any
  object (nothing required), so the discriminator decides: ``data`` is checked against ``Dataset``
  for a ``DATASET`` node and ``Job`` for a ``JOB`` node;
- ``/column-lineage`` answers ``DATASET_FIELD`` nodes, a type Marquez's ``NodeType`` has but the
  document's enum lacks, with data the document has no schema for: the nodes are checked as
  ``GraphNode`` with that one type added, and their data against ``COLUMN_NODE`` below, written from
  Marquez's ``ColumnLineageNodeData`` / ``InputFieldNodeData`` models.
"""

from __future__ import annotations

import copy
import os
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from jsonschema import Draft7Validator, FormatChecker

MIRROR = Path("/work/.mirror/MarquezProject+marquez/repo")
REVENUE = "datasetField:internal:sales.customer_revenue:revenue"

_STR = {"type": "string"}
_INPUT = {
    "type": "object",
    "required": ["namespace", "dataset", "field"],
    "properties": {"namespace": _STR, "dataset": _STR, "field": _STR, "transformationType": _STR},
}
COLUMN_NODE = {
    "type": "object",
    "required": ["namespace", "dataset", "field", "inputFields"],
    "properties": {
        "namespace": _STR,
        "dataset": _STR,
        "field": _STR,
        "fieldType": _STR,
        "transformationDescription": _STR,
        "transformationType": _STR,
        "inputFields": {"type": "array", "items": _INPUT},
    },
}


def _spec_text() -> str | None:
    path = os.environ.get("HEADWATER_MARQUEZ_SPEC")
    if path:
        return Path(path).read_text()
    if not MIRROR.is_dir():
        return None
    done = subprocess.run(
        ["git", "-C", str(MIRROR), "show", "HEAD:spec/openapi.yml"], capture_output=True, text=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def _json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema (tree) as JSON Schema."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k not in ("discriminator", "example", "nullable")}
    if "type" in out and out["type"] is None:
        del out["type"]
    if node.get("nullable") and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    text = _spec_text()
    if text is None:
        pytest.skip(f"Marquez's OpenAPI document is absent: set HEADWATER_MARQUEZ_SPEC or mirror it at {MIRROR}")
    return yaml.safe_load(text)  # type: ignore[no-any-return]


_FORMATS = FormatChecker()


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if isinstance(value, str):
        datetime.fromisoformat(value.replace("Z", "+00:00"))
        if "T" not in value:
            raise ValueError(f"{value!r} has no time")
    return True


def _check(spec: dict[str, Any], schema: dict[str, Any], value: Any) -> None:
    doc = {**schema, "components": _json_schema(spec["components"])}
    errors = sorted(Draft7Validator(doc, format_checker=_FORMATS).iter_errors(value), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def _response_schema(spec: dict[str, Any], path: str) -> dict[str, Any]:
    op = spec["paths"][path]["get"]
    return op["responses"]["200"]["content"]["application/json"]["schema"]  # type: ignore[no-any-return]


def _graph_checks(spec: dict[str, Any], answer: dict[str, Any], column: bool = False) -> None:
    node = copy.deepcopy(spec["components"]["schemas"]["GraphNode"])
    node["properties"]["data"] = {"type": "object"}  # chosen below, by the node's type (the discriminator)
    if column:
        node["properties"]["type"] = {"type": "string", "enum": ["JOB", "DATASET", "DATASET_FIELD"]}
    graph = {"type": "object", "properties": {"graph": {"type": "array", "items": _json_schema(node)}}}
    _check(spec, graph, answer)
    for n in answer["graph"]:
        kind = {"DATASET": "Dataset", "JOB": "Job"}.get(n["type"])
        schema = COLUMN_NODE if kind is None else {"$ref": f"#/components/schemas/{kind}"}
        _check(spec, schema, n["data"])


CALLS = [
    ("/namespaces", "/api/v1/namespaces", {}),
    ("/namespaces/{namespace}", "/api/v1/namespaces/internal", {}),
    ("/namespaces/{namespace}/datasets", "/api/v1/namespaces/internal/datasets", {}),
    (
        "/namespaces/{namespace}/datasets/{dataset}",
        "/api/v1/namespaces/internal/datasets/lineage_demo.lineage_customer_summary",
        {},
    ),
    ("/namespaces/{namespace}/jobs", "/api/v1/namespaces/headwater/jobs", {}),
    ("/namespaces/{namespace}/jobs/{job}", "/api/v1/namespaces/headwater/jobs/customer_revenue", {}),
    ("/search", "/api/v1/search", {"q": "revenue"}),
    ("/tags", "/api/v1/tags", {}),
    ("/events/lineage", "/api/v1/events/lineage", {}),
    ("/lineage", "/api/v1/lineage", {"nodeId": "dataset:internal:sales.customer_revenue"}),
    ("/lineage", "/api/v1/lineage", {"nodeId": "job:headwater:etl.sql#3", "depth": 1}),
    ("/column-lineage", "/api/v1/column-lineage", {"nodeId": REVENUE, "withDownstream": "true"}),
]


@pytest.mark.parametrize(("template", "url", "params"), CALLS, ids=[c[1] + str(c[2]) for c in CALLS])
def test_answers_validate_against_marquezs_openapi_document(
    spec: dict[str, Any], marquez: TestClient, template: str, url: str, params: dict[str, str]
) -> None:
    r = marquez.get(url, params=params)
    assert r.status_code == 200, r.text
    schema = _response_schema(spec, template)
    assert schema == {"$ref": "#/components/schemas/LineageGraph"} or template not in ("/lineage", "/column-lineage")
    if template in ("/lineage", "/column-lineage"):
        _graph_checks(spec, r.json(), column=template == "/column-lineage")
    else:
        _check(spec, schema, r.json())


def test_the_check_fails_an_answer_the_document_refuses(spec: dict[str, Any]) -> None:
    """The validation is not vacuous: a dataset field without a type, a time that is no time fail."""
    dataset = {"$ref": "#/components/schemas/Dataset"}
    with pytest.raises(AssertionError, match="'type' is a required property"):
        _check(spec, dataset, {"name": "x", "fields": [{"name": "a"}]})
    with pytest.raises(AssertionError, match="date-time"):
        _check(spec, dataset, {"name": "x", "createdAt": "yesterday"})
    with pytest.raises(AssertionError, match="is not one of"):
        _graph_checks(spec, {"graph": [{"id": "x", "type": "DATASET_FIELD", "data": {}}]})
