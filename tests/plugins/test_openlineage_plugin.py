"""openlineage: RunEvents delivered through openlineage-python's own transports (file, http, console)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.discovery import discover
from headwater.dispatch.sample import guide_event
from headwater.dispatch.testing import ListExtract
from headwater.extract import RunInfo
from headwater.model.ol_naming import OpenLineageNaming
from headwater.model.openlineage import run_event_json

SQL = "INSERT INTO lineage_customer_summary WITH ..."
TS = "2025-01-01T00:00:00+00:00"


def ol_dispatch(settings: dict) -> LineageDispatch:
    return start_dispatch(
        DispatchSettings(  # type: ignore[arg-type]
            plugin_dir=None,
            activate_lineage_plugin=("openlineage",),
            plugin_settings={"openlineage": settings},
        ),
        extract=ListExtract({SQL: [guide_event("q-ol", timestamp=TS)]}),
        discovery=discover(None),
    )


def expected(namespace: str = "headwater", job_namespace: str = "headwater") -> dict:
    naming = OpenLineageNaming(default_namespace=namespace, job_namespace=job_namespace)
    return json.loads(run_event_json(guide_event("q-ol", timestamp=TS), naming=naming))


def test_file_transport(tmp_path: Path) -> None:
    out = tmp_path / "ol.jsonl"
    settings = {"namespace": "wh", "transport": {"type": "file", "log_file_path": str(out), "append": True}}
    with ol_dispatch(settings) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-ol"))
    start, got = map(json.loads, out.read_text().splitlines())  # the default lifecycle: START then COMPLETE
    want = expected("wh")
    assert start["eventType"] == "START" and start["run"]["runId"] == got["run"]["runId"]
    assert got["run"]["runId"] == guide_event("q-ol").event_id
    assert (got["eventType"], got["job"], got["inputs"], got["outputs"]) == (
        "COMPLETE",
        want["job"],
        want["inputs"],
        want["outputs"],
    )
    assert d.snapshot().plugins["openlineage"].dispatched == 1


def test_http_transport_to_a_local_server(server: Any) -> None:
    url = server.url.rsplit("/", 1)[0]
    transport = {"type": "http", "url": url, "endpoint": "api/v1/lineage"}
    with ol_dispatch({"lifecycle": "complete", "transport": transport}) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-ol"))
    [request] = server.requests
    assert request.path == "/api/v1/lineage"
    got = json.loads(request.body)
    assert got["outputs"] == expected()["outputs"]
    assert got["outputs"][0]["facets"]["columnLineage"]["fields"]["total_amount"]["inputFields"][0]["field"] == "amount"


def test_console_transport_logs_the_event(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "openlineage.client.transport.console")
    with ol_dispatch({"lifecycle": "complete", "transport": {"type": "console"}}) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-ol"))
    [record] = [r for r in caplog.records if r.name == "openlineage.client.transport.console"]
    assert json.loads(record.getMessage())["outputs"] == expected()["outputs"]


def test_without_transport_the_client_reads_its_own_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "env.jsonl"
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "file")
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__LOG_FILE_PATH", str(out))
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__APPEND", "true")
    with ol_dispatch({"lifecycle": "complete"}) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-ol"))
    [line] = out.read_text().splitlines()
    assert json.loads(line)["outputs"] == expected()["outputs"]


def test_bad_transport_fails_initialize() -> None:
    d = ol_dispatch({"transport": {"type": "file"}})
    d.close()
    assert [(s.name, s.state) for s in d.activation.statuses if s.name == "openlineage"] == [
        ("openlineage", "failed to create/initialize")
    ]
