"""The plugin SPI, shaped like Doris's ``LineagePlugin`` / ``LineagePluginFactory``.

Life cycle: discover factory → ``create(context)`` → ``initialize(context)`` →
``event_filter()`` / ``exec(event)`` (or ``exec_batch(events)``) … → ``close()``.

>>> class Hello(LineagePlugin):
...     def name(self) -> str: return "hello"
...     def event_filter(self) -> bool: return True
...     def exec(self, event: LineageInfo) -> None: pass
>>> Hello().event_filter()
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from headwater.model import LineageInfo


@dataclass(frozen=True, slots=True)
class FailedStatement:
    """A statement the database rejected, queued for the plugins that take failures."""

    event: LineageInfo
    error: str


@dataclass(frozen=True, slots=True)
class PluginContext:
    """What a factory and its plugin are given: the factory name, the plugin's directory and its settings.

    ``plugin_dir`` is the plugin's own directory (``<plugin_dir>/lineage/<dir>``) for a directory
    plugin, the directory of the factory's module for an installed one.
    """

    name: str
    plugin_dir: Path | None
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def setting(self, key: str, default: Any = None) -> Any:
        """One setting of this plugin, or ``default``."""
        return self.settings.get(key, default)


class PluginNotConfigured(ValueError):
    """Raised by ``create`` or ``initialize`` when a setting the plugin cannot work without is absent.

    With an empty ``activate_lineage_plugin`` (every discovered factory is tried) such a plugin is
    skipped with one log line naming the setting; when ``activate_lineage_plugin`` names it, it is a
    failure like any other. A present but invalid setting is a plain ``ValueError``, never this.

    >>> str(PluginNotConfigured("webhook", "url"))
    "lineage plugin webhook needs the setting 'url'"
    """

    def __init__(self, plugin: str, setting: str) -> None:
        super().__init__(f"lineage plugin {plugin} needs the setting {setting!r}")
        self.plugin = plugin
        self.setting = setting


class LineagePlugin(ABC):
    """A lineage sink. ``exec`` runs on the single dispatch worker; ``event_filter`` on any thread."""

    @abstractmethod
    def name(self) -> str:
        """The plugin's name; should equal its factory's name."""

    def initialize(self, context: PluginContext) -> None:  # noqa: B027 - optional hook
        """Prepare the plugin (open files, clients). An exception here means the plugin is not loaded.

        Raise ``PluginNotConfigured`` for a missing required setting.
        """

    @abstractmethod
    def event_filter(self) -> bool:
        """Whether the plugin wants events now: cheap, no arguments, thread-safe.

        Called on the producer's thread before extraction and on the worker before dispatch.
        An exception counts as false and is logged.
        """

    @abstractmethod
    def exec(self, event: LineageInfo) -> None:
        """Deliver one event. The return value is ignored; an exception is logged and counted."""

    def exec_batch(self, events: Sequence[LineageInfo]) -> None:
        """Optional: deliver several events at once (a headwater extension; Doris has ``exec`` only).

        A plugin that overrides it is handed what is queued when the worker takes an event, up to
        ``lineage_dispatch_batch`` events, in order, after one ``event_filter()`` call. It must be
        all-or-nothing or idempotent: when it raises, the worker delivers the same events again one
        by one with ``exec``, so that a bad event costs only itself. Plugins that do not override it
        get every event through ``exec``.
        """
        for event in events:
            self.exec(event)

    def exec_failure(self, event: LineageInfo, error: str) -> None:  # noqa: B027 - optional hook
        """Optional: a statement the hooks saw fail (a headwater extension). ``event`` is what extraction
        made of its text (for the job and the query context: the statement moved nothing), ``error``
        the database's message. Only plugins that override it are given failures, on the worker, in
        order with the events; an exception is logged."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources; called once, after the worker stopped dispatching."""


class LineagePluginFactory(ABC):
    """Creates a plugin. ``name()`` is what ``activate_lineage_plugin`` matches, case-sensitively."""

    @abstractmethod
    def name(self) -> str:
        """The globally unique factory name."""

    @abstractmethod
    def create(self, context: PluginContext) -> LineagePlugin:
        """A new, not yet initialised plugin."""
