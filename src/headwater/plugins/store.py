"""``store``: record each event in the headwater store (``headwater.store.open_store(url).record(event)``);
what is queued together is recorded in one transaction (``exec_batch`` → ``record_batch``).

Settings: ``url``, the store's SQLAlchemy URL (or a SQLite file path); without it, the store's own
default (``$HEADWATER_STORE``, else ``~/.headwater/lineage.db``). Recording is idempotent in the store,
so a re-sent event (same event id) does not duplicate anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.model import LineageInfo
from headwater.plugins import _settings as s

NAME = "store"


class StorePlugin(LineagePlugin):
    def __init__(self) -> None:
        self.store: Any = None

    def name(self) -> str:
        return NAME

    def initialize(self, context: PluginContext) -> None:
        from headwater.store import open_store

        url = context.settings.get("url")
        self.store = open_store(None if url is None else s.string(context, "url"))

    def event_filter(self) -> bool:
        return self.store is not None

    def exec(self, event: LineageInfo) -> None:
        if self.store is None:
            raise RuntimeError("store plugin is closed")
        self.store.record(event)

    def exec_batch(self, events: Sequence[LineageInfo]) -> None:
        """What is queued, in one transaction (all or nothing; a replay changes nothing)."""
        if self.store is None:
            raise RuntimeError("store plugin is closed")
        self.store.record_batch(events)

    def close(self) -> None:
        store, self.store = self.store, None
        if store is not None and callable(getattr(store, "close", None)):
            store.close()


class StorePluginFactory(LineagePluginFactory):
    def name(self) -> str:
        return NAME

    def create(self, context: PluginContext) -> LineagePlugin:
        return StorePlugin()
