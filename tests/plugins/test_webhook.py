"""webhook: a real local HTTP server that fails the first attempts; retries, backoff, idempotency key."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import pytest

from headwater.dispatch import DispatchSettings, LineageDispatch, start_dispatch
from headwater.dispatch.sample import guide_event
from headwater.dispatch.testing import ListExtract, StaticFactory, discovery_of
from headwater.extract import RunInfo
from headwater.model import event_from_json, event_to_json
from headwater.plugins.webhook import WebhookPlugin, WebhookPluginFactory

SQL = "INSERT INTO lineage_customer_summary SELECT ..."


def webhook_dispatch(settings: dict, sleeps: list[float], activate: tuple[str, ...] = ()) -> LineageDispatch:
    """The built-in factory's plugin, with its sleep recorded instead of waited."""

    def make(ctx: object) -> WebhookPlugin:
        plugin = WebhookPluginFactory().create(ctx)  # type: ignore[arg-type]
        assert isinstance(plugin, WebhookPlugin)
        plugin.sleep = sleeps.append
        return plugin

    return start_dispatch(
        DispatchSettings(plugin_dir=None, activate_lineage_plugin=activate, plugin_settings={"webhook": settings}),  # type: ignore[arg-type]
        extract=ListExtract({SQL: [guide_event("q-web")]}),
        discovery=discovery_of(StaticFactory("webhook", make)),
    )


def test_retries_with_backoff_then_delivers_with_the_idempotency_key(server: Any) -> None:
    server.statuses = [503, 502]
    sleeps: list[float] = []
    with webhook_dispatch({"url": server.url, "headers": {"X-Team": "data"}}, sleeps) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-web"))
    event = guide_event("q-web")
    assert len(server.requests) == 3
    assert sleeps == [0.5, 1.0]
    for r in server.requests:
        assert r.path == "/lineage"
        assert r.headers["Idempotency-Key"] == event.event_id
        assert r.headers["Content-Type"] == "application/json"
        assert r.headers["X-Team"] == "data"
        assert r.body == event_to_json(event).encode()
    assert event_from_json(server.requests[-1].body.decode()) == event
    counts = d.snapshot().plugins["webhook"]
    assert (counts.dispatched, counts.failed) == (1, 0)


def test_gives_up_after_max_attempts_and_the_worker_logs_it(server: Any, caplog: pytest.LogCaptureFixture) -> None:
    server.statuses = [500] * 10
    sleeps: list[float] = []
    settings = {"url": server.url, "max_attempts": 4, "backoff_initial": 1.0, "backoff_max": 3.0}
    with webhook_dispatch(settings, sleeps) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-web"))
    event_id = guide_event("q-web").event_id
    assert len(server.requests) == 4 and sleeps == [1.0, 2.0, 3.0]
    failure = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "headwater.dispatch"]
    assert [r.getMessage() for r in failure] == [f"Lineage plugin webhook failed on event {event_id}"]
    assert failure[0].exc_info is not None
    assert str(failure[0].exc_info[1]) == (
        f"{server.url} did not accept event {event_id} after 4 attempts: " + "; ".join(["HTTP 500"] * 4)
    )
    assert d.snapshot().plugins["webhook"].failed == 1


def test_client_errors_are_not_retried(server: Any) -> None:
    server.statuses = [422]
    sleeps: list[float] = []
    with webhook_dispatch({"url": server.url}, sleeps) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-web"))
    assert len(server.requests) == 1 and sleeps == []
    assert d.snapshot().plugins["webhook"].failed == 1


def test_connection_errors_are_retried() -> None:
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleeps: list[float] = []
    with webhook_dispatch({"url": f"http://127.0.0.1:{port}/x", "max_attempts": 2}, sleeps) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-web"))
    assert sleeps == [0.5]
    assert d.snapshot().plugins["webhook"].failed == 1


def test_missing_url_fails_initialize_when_named(caplog: pytest.LogCaptureFixture) -> None:
    d = webhook_dispatch({}, [], activate=("webhook",))
    d.close()
    assert d.plugins == []
    assert [(s.name, s.state, s.reason) for s in d.activation.statuses] == [
        (
            "webhook",
            "failed to create/initialize",
            "PluginNotConfigured: lineage plugin webhook needs the setting 'url'",
        )
    ]
    [record] = [r for r in caplog.records if r.getMessage() == "Failed to create/initialize lineage plugin: webhook"]
    assert record.levelname == "ERROR" and record.exc_info is not None


def test_missing_url_is_skipped_without_a_traceback_when_every_plugin_is_tried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "headwater.dispatch")
    d = webhook_dispatch({}, [])
    d.close()
    assert d.plugins == []
    assert [(s.name, s.state, s.reason) for s in d.activation.statuses] == [
        ("webhook", "not configured", "needs the setting 'url'")
    ]
    records = [r for r in caplog.records if r.name == "headwater.dispatch" and "Skip" in r.getMessage()]
    assert [(r.levelname, r.getMessage(), r.exc_info) for r in records] == [
        (
            # a [lineage_plugins.webhook] table exists (empty here): someone meant to configure it
            "WARNING",
            "Skip lineage plugin not configured: webhook (needs the setting 'url' in [lineage_plugins.webhook])",
            None,
        )
    ]


def test_body_is_the_event_json(server: Any) -> None:
    with webhook_dispatch({"url": server.url}, []) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-web"))
    doc = json.loads(server.requests[0].body)
    assert doc["event_id"] == guide_event("q-web").event_id and doc["context"]["query_id"] == "q-web"
