"""Choosing and starting plugins: ``activate_lineage_plugin`` against the discovered factory names.

Names match exactly and case-sensitively; an empty setting instantiates every discovered factory
(as in the Doris guide) and says so in a start-up warning. Plugins run in activation order: the
order of the setting, or discovery order when it is empty.

When the setting is empty, a plugin that raises ``PluginNotConfigured`` (a required setting is
missing) is skipped with one log line, no traceback: trying every factory is not a request to run
unconfigured ones. A plugin the setting names explicitly and that fails is an error either way.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from headwater.dispatch.discovery import DiscoveredFactory, Discovery
from headwater.dispatch.settings import DispatchSettings
from headwater.dispatch.spi import LineagePlugin, PluginContext, PluginNotConfigured

log = logging.getLogger("headwater.dispatch")

ACTIVE = "active"
SELECTED = "selected"
NOT_ACTIVATED = "not in activate_lineage_plugin"
FAILED = "failed to create/initialize"
NOT_CONFIGURED = "not configured"


@dataclass(frozen=True, slots=True)
class LoadedPlugin:
    """A created and initialised plugin, under its factory's name."""

    name: str
    plugin: LineagePlugin
    plugin_path: Path | None
    context: PluginContext


@dataclass(frozen=True, slots=True)
class FactoryStatus:
    """What became of one discovered factory, and why."""

    name: str
    origin: str
    plugin_path: Path | None
    state: str
    reason: str = ""


@dataclass(slots=True)
class Activation:
    plugins: list[LoadedPlugin] = field(default_factory=list)
    statuses: list[FactoryStatus] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def select(discovery: Discovery, settings: DispatchSettings) -> tuple[list[DiscoveredFactory], Activation]:
    """The factories to instantiate, in activation order, logging the start-up warnings and skips."""
    result = Activation()
    by_name = {f.name: f for f in discovery.factories}
    wanted = settings.activate_lineage_plugin
    if not wanted:
        log.warning(
            "activate_lineage_plugin is empty: every discovered lineage plugin factory is instantiated (%s)",
            ", ".join(by_name) or "none discovered",
        )
        return list(discovery.factories), result
    for name in wanted:
        if name not in by_name:
            log.warning("activate_lineage_plugin names a lineage plugin that was not discovered: %s", name)
            result.unknown.append(name)
    for f in discovery.factories:
        if f.name not in wanted:
            log.info("Skip lineage plugin not in activate_lineage_plugin: %s", f.name)
            result.statuses.append(FactoryStatus(f.name, f.origin, f.plugin_path, NOT_ACTIVATED))
    return [by_name[n] for n in wanted if n in by_name], result


def _start(found: DiscoveredFactory, settings: DispatchSettings) -> LoadedPlugin:
    context = PluginContext(found.name, found.plugin_path, settings.settings_for(found.name))
    plugin = found.factory.create(context)
    try:
        plugin.initialize(context)
    except BaseException:
        try:
            plugin.close()
        except Exception:
            log.debug("close() after failed initialize raised for %s", found.name, exc_info=True)
        raise
    return LoadedPlugin(found.name, plugin, found.plugin_path, context)


def _failed(result: Activation, found: DiscoveredFactory, exc: Exception) -> None:
    log.error("Failed to create/initialize lineage plugin: %s", found.name, exc_info=exc)
    reason = f"{type(exc).__name__}: {exc}"
    result.statuses.append(FactoryStatus(found.name, found.origin, found.plugin_path, FAILED, reason))


def _not_configured(
    result: Activation, found: DiscoveredFactory, exc: PluginNotConfigured, settings: DispatchSettings
) -> None:
    """Skip a plugin tried only because the setting is empty; louder when it has a settings table (so
    someone meant to configure it) than when it has none."""
    level = logging.WARNING if found.name in settings.plugin_settings else logging.INFO
    log.log(
        level,
        "Skip lineage plugin not configured: %s (needs the setting %r in [lineage_plugins.%s])",
        found.name,
        exc.setting,
        found.name,
    )
    reason = f"needs the setting {exc.setting!r}"
    result.statuses.append(FactoryStatus(found.name, found.origin, found.plugin_path, NOT_CONFIGURED, reason))


def activate(discovery: Discovery, settings: DispatchSettings) -> Activation:
    """Create and initialise the selected factories; a failure is logged and leaves the others running."""
    chosen, result = select(discovery, settings)
    implicit = not settings.activate_lineage_plugin
    for found in chosen:
        try:
            loaded = _start(found, settings)
        except PluginNotConfigured as exc:
            if implicit:
                _not_configured(result, found, exc, settings)
            else:
                _failed(result, found, exc)
            continue
        except Exception as exc:
            _failed(result, found, exc)
            continue
        log.info("Loaded lineage plugin: %s, pluginPath=%s", found.name, found.plugin_path)
        result.plugins.append(loaded)
        result.statuses.append(FactoryStatus(found.name, found.origin, found.plugin_path, ACTIVE))
    return result
