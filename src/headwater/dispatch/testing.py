"""Helpers for testing plugins and dispatch without packaging or extraction.

>>> calls: list = []
>>> d = discovery_of(StaticFactory("rec", lambda ctx: RecordingPlugin("rec", calls)))
>>> d.names()
['rec']
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from headwater.dispatch.discovery import DiscoveredFactory, Discovery
from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.extract import RunInfo
from headwater.model import LineageInfo


class RecordingPlugin(LineagePlugin):
    """Appends ``(name, method, detail)`` to a shared list for every SPI call.

    ``wants`` is the ``event_filter()`` answer (or a callable giving it); ``on_exec`` runs inside ``exec``.
    ``detail`` is the thread name for ``event_filter``, the event id for ``exec``, None otherwise.
    """

    def __init__(
        self,
        name: str,
        calls: list[tuple[str, str, Any]],
        wants: bool | Callable[[], bool] = True,
        on_exec: Callable[[LineageInfo], None] | None = None,
    ) -> None:
        self._name = name
        self.calls = calls
        self.wants = wants
        self.on_exec = on_exec
        self.events: list[LineageInfo] = []
        self._lock = threading.Lock()

    def _record(self, method: str, detail: Any = None) -> None:
        with self._lock:
            self.calls.append((self._name, method, detail))

    def name(self) -> str:
        return self._name

    def initialize(self, context: PluginContext) -> None:
        self._record("initialize")

    def event_filter(self) -> bool:
        self._record("event_filter", threading.current_thread().name)
        return self.wants() if callable(self.wants) else self.wants

    def exec(self, event: LineageInfo) -> None:
        self._record("exec", event.event_id)
        self.events.append(event)
        if self.on_exec is not None:
            self.on_exec(event)

    def close(self) -> None:
        self._record("close")


class StaticFactory(LineagePluginFactory):
    """A factory whose ``create`` calls ``make(context)``."""

    def __init__(self, name: str, make: Callable[[PluginContext], LineagePlugin]) -> None:
        self._name = name
        self._make = make

    def name(self) -> str:
        return self._name

    def create(self, context: PluginContext) -> LineagePlugin:
        return self._make(context)


def discovery_of(*factories: LineagePluginFactory) -> Discovery:
    """A ``Discovery`` holding these factories, in this order (no entry points, no directories)."""
    return Discovery([DiscoveredFactory(f.name(), f, None, "test") for f in factories])


class ListExtract:
    """An extract step that returns preset events per SQL text and records its calls."""

    def __init__(self, events: dict[str, Sequence[LineageInfo]] | None = None) -> None:
        self.events = dict(events or {})
        self.calls: list[tuple[str, RunInfo, str | None]] = []

    def __call__(self, sql: str, run: RunInfo, dialect: str | None = None) -> Sequence[LineageInfo]:
        self.calls.append((sql, run, dialect))
        return self.events.get(sql, ())
