"""``log``: one log line per event (a summary, or the event's JSON), on the ``headwater.lineage`` logger.

Settings: ``level`` (``INFO``), ``format`` (``summary`` | ``json``), ``logger`` (``headwater.lineage``).
"""

from __future__ import annotations

import logging

from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.model import LineageInfo, event_to_json
from headwater.plugins import _settings as s

NAME = "log"


def summary(event: LineageInfo) -> str:
    """``lineage event <id> query_id=… InsertIntoTableCommand db.t <- db.a, db.b status=COMPLETE``.

    >>> from headwater.dispatch.sample import tiny_event
    >>> summary(tiny_event("q1"))[:40]
    'lineage event d7ed3dac-4cfb-5d60-962e-6e'
    """
    sources = ", ".join(t.qualified for t in event.sources) or "-"
    return (
        f"lineage event {event.event_id} query_id={event.context.query_id} {event.source_command.value} "
        f"{event.target.table.qualified} <- {sources} status={event.status.value}"
    )


class LogPlugin(LineagePlugin):
    def __init__(self) -> None:
        self._logger = logging.getLogger("headwater.lineage")
        self._level = logging.INFO
        self._json = False

    def name(self) -> str:
        return NAME

    def initialize(self, context: PluginContext) -> None:
        self._logger = logging.getLogger(s.string(context, "logger", "headwater.lineage"))
        level = s.string(context, "level", "INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
        self._level = logging.getLevelName(level)
        self._json = s.string(context, "format", "summary", choices=("summary", "json")) == "json"

    def event_filter(self) -> bool:
        return True

    def exec(self, event: LineageInfo) -> None:
        self._logger.log(self._level, "%s", event_to_json(event) if self._json else summary(event))


class LogPluginFactory(LineagePluginFactory):
    def name(self) -> str:
        return NAME

    def create(self, context: PluginContext) -> LineagePlugin:
        return LogPlugin()
