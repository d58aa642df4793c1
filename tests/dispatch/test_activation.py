"""Activation: exact case-sensitive names, the empty value, order, and the log lines operators grep for."""

from __future__ import annotations

import logging

import pytest

from headwater.dispatch import DispatchSettings
from headwater.dispatch.activation import ACTIVE, FAILED, NOT_ACTIVATED, activate
from headwater.dispatch.spi import LineagePlugin, PluginContext
from headwater.dispatch.testing import RecordingPlugin, StaticFactory, discovery_of


def _factories(calls: list, *names: str) -> list[StaticFactory]:
    return [StaticFactory(n, lambda ctx, n=n: RecordingPlugin(n, calls)) for n in names]


def messages(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "headwater.dispatch"]


def test_empty_value_instantiates_every_factory_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "headwater.dispatch")
    calls: list = []
    result = activate(discovery_of(*_factories(calls, "b", "a")), DispatchSettings())
    assert [p.name for p in result.plugins] == ["b", "a"]
    assert messages(caplog) == [
        (
            "WARNING",
            "activate_lineage_plugin is empty: every discovered lineage plugin factory is instantiated (b, a)",
        ),
        ("INFO", "Loaded lineage plugin: b, pluginPath=None"),
        ("INFO", "Loaded lineage plugin: a, pluginPath=None"),
    ]
    assert calls == [("b", "initialize", None), ("a", "initialize", None)]


def test_names_match_exactly_in_configured_order(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "headwater.dispatch")
    calls: list = []
    settings = DispatchSettings(activate_lineage_plugin=("gamma", "Alpha", "alpha"))
    result = activate(discovery_of(*_factories(calls, "alpha", "beta", "gamma")), settings)
    assert [p.name for p in result.plugins] == ["gamma", "alpha"]
    assert result.unknown == ["Alpha"]
    assert messages(caplog) == [
        ("WARNING", "activate_lineage_plugin names a lineage plugin that was not discovered: Alpha"),
        ("INFO", "Skip lineage plugin not in activate_lineage_plugin: beta"),
        ("INFO", "Loaded lineage plugin: gamma, pluginPath=None"),
        ("INFO", "Loaded lineage plugin: alpha, pluginPath=None"),
    ]
    assert [(s.name, s.state) for s in result.statuses] == [
        ("beta", NOT_ACTIVATED),
        ("gamma", ACTIVE),
        ("alpha", ACTIVE),
    ]


class _BadInit(LineagePlugin):
    def __init__(self, calls: list) -> None:
        self.calls = calls

    def name(self) -> str:
        return "bad-init"

    def initialize(self, context: PluginContext) -> None:
        raise OSError("cannot open sink")

    def event_filter(self) -> bool:
        return True

    def exec(self, event: object) -> None:
        raise AssertionError("never called")

    def close(self) -> None:
        self.calls.append(("bad-init", "close", None))


def _explode(ctx: PluginContext) -> LineagePlugin:
    raise RuntimeError("no such thing")


def test_create_or_initialize_failure_is_logged_and_the_others_load(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "headwater.dispatch")
    calls: list = []
    discovery = discovery_of(
        StaticFactory("bad-create", _explode),
        StaticFactory("bad-init", lambda ctx: _BadInit(calls)),
        *_factories(calls, "good"),
    )
    settings = DispatchSettings(activate_lineage_plugin=("bad-create", "bad-init", "good"))
    result = activate(discovery, settings)
    assert [p.name for p in result.plugins] == ["good"]
    assert messages(caplog) == [
        ("ERROR", "Failed to create/initialize lineage plugin: bad-create"),
        ("ERROR", "Failed to create/initialize lineage plugin: bad-init"),
        ("INFO", "Loaded lineage plugin: good, pluginPath=None"),
    ]
    assert [(s.name, s.state, s.reason) for s in result.statuses] == [
        ("bad-create", FAILED, "RuntimeError: no such thing"),
        ("bad-init", FAILED, "OSError: cannot open sink"),
        ("good", ACTIVE, ""),
    ]
    assert calls == [("bad-init", "close", None), ("good", "initialize", None)]


def test_context_carries_name_directory_and_own_settings() -> None:
    seen: list[PluginContext] = []

    def make(ctx: PluginContext) -> LineagePlugin:
        seen.append(ctx)
        return RecordingPlugin("p", [])

    settings = DispatchSettings(plugin_settings={"p": {"k": 1}, "q": {"k": 2}})
    activate(discovery_of(StaticFactory("p", make)), settings)
    assert [(c.name, c.plugin_dir, dict(c.settings), c.setting("k")) for c in seen] == [("p", None, {"k": 1}, 1)]
