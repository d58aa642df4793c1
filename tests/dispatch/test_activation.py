"""Activation: exact case-sensitive names, the empty value, order, and the log lines operators grep for."""

from __future__ import annotations

import logging

import pytest

from headwater.dispatch import DispatchSettings
from headwater.dispatch.activation import ACTIVE, FAILED, NOT_ACTIVATED, NOT_CONFIGURED, activate
from headwater.dispatch.spi import LineagePlugin, PluginContext, PluginNotConfigured
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


class _NeedsUrl(RecordingPlugin):
    """Like a built-in sink with a required setting: ``url`` missing raises ``PluginNotConfigured``,
    a ``url`` that is not a string a plain ``ValueError``."""

    def initialize(self, context: PluginContext) -> None:
        super().initialize(context)
        if "url" not in context.settings:
            raise PluginNotConfigured(context.name, "url")
        if not isinstance(context.settings["url"], str):
            raise ValueError(f"lineage plugin {context.name}: setting 'url' must be a string")


def _records(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, bool]]:
    """(level, message, has a traceback) of the dispatch log records."""
    return [
        (r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records if r.name == "headwater.dispatch"
    ]


def test_empty_value_skips_a_plugin_that_is_not_configured(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "headwater.dispatch")
    calls: list = []
    discovery = discovery_of(
        StaticFactory("hook", lambda ctx: _NeedsUrl("hook", calls)),
        StaticFactory("half", lambda ctx: _NeedsUrl("half", calls)),
        *_factories(calls, "good"),
    )
    settings = DispatchSettings(plugin_settings={"half": {"timeout": 3}})
    result = activate(discovery, settings)
    assert [p.name for p in result.plugins] == ["good"]
    assert _records(caplog)[1:] == [
        ("INFO", "Skip lineage plugin not configured: hook (needs the setting 'url' in [lineage_plugins.hook])", False),
        (
            "WARNING",
            "Skip lineage plugin not configured: half (needs the setting 'url' in [lineage_plugins.half])",
            False,
        ),
        ("INFO", "Loaded lineage plugin: good, pluginPath=None", False),
    ]
    assert [(s.name, s.state, s.reason) for s in result.statuses] == [
        ("hook", NOT_CONFIGURED, "needs the setting 'url'"),
        ("half", NOT_CONFIGURED, "needs the setting 'url'"),
        ("good", ACTIVE, ""),
    ]
    assert [c for c in calls if c[0] == "hook"] == [("hook", "initialize", None), ("hook", "close", None)]


def test_a_named_plugin_that_is_not_configured_is_an_error(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "headwater.dispatch")
    discovery = discovery_of(StaticFactory("hook", lambda ctx: _NeedsUrl("hook", [])), *_factories([], "good"))
    result = activate(discovery, DispatchSettings(activate_lineage_plugin=("hook", "good")))
    assert [p.name for p in result.plugins] == ["good"]
    assert _records(caplog) == [
        ("ERROR", "Failed to create/initialize lineage plugin: hook", True),
        ("INFO", "Loaded lineage plugin: good, pluginPath=None", False),
    ]
    assert [(s.name, s.state, s.reason) for s in result.statuses] == [
        ("hook", FAILED, "PluginNotConfigured: lineage plugin hook needs the setting 'url'"),
        ("good", ACTIVE, ""),
    ]


def test_empty_value_still_reports_other_failures_as_errors(caplog: pytest.LogCaptureFixture) -> None:
    """Only a missing setting is "not configured": a bad value or a broken plugin is an error."""
    caplog.set_level(logging.INFO, "headwater.dispatch")
    discovery = discovery_of(
        StaticFactory("hook", lambda ctx: _NeedsUrl("hook", [])),
        StaticFactory("bad-init", lambda ctx: _BadInit([])),
    )
    result = activate(discovery, DispatchSettings(plugin_settings={"hook": {"url": 5}}))
    assert result.plugins == []
    assert _records(caplog)[1:] == [
        ("ERROR", "Failed to create/initialize lineage plugin: hook", True),
        ("ERROR", "Failed to create/initialize lineage plugin: bad-init", True),
    ]
    assert [(s.state, s.reason) for s in result.statuses] == [
        (FAILED, "ValueError: lineage plugin hook: setting 'url' must be a string"),
        (FAILED, "OSError: cannot open sink"),
    ]
