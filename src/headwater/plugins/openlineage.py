"""``openlineage``: emit each event as an OpenLineage ``RunEvent`` (COMPLETE) through openlineage-python.

Settings: ``namespace`` (``headwater``), ``producer``, and ``transport``: a table given to
``OpenLineageClient(config={"transport": …})`` (``type`` = ``http``, ``console``, ``file``, ``kafka``…, with
that transport's own keys). Without ``transport`` the client configures itself as it documents
(``OPENLINEAGE_CONFIG`` / ``openlineage.yml``, ``OPENLINEAGE_URL``, ``OPENLINEAGE__TRANSPORT__…``).
The run id comes from the event id (query id + target table), so receivers can deduplicate.
"""

from __future__ import annotations

from openlineage.client import OpenLineageClient

from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.model import LineageInfo
from headwater.model.openlineage import DEFAULT_PRODUCER, to_run_event
from headwater.plugins import _settings as s

NAME = "openlineage"


class OpenLineagePlugin(LineagePlugin):
    def __init__(self) -> None:
        self.client: OpenLineageClient | None = None
        self._namespace = "headwater"
        self._producer = DEFAULT_PRODUCER

    def name(self) -> str:
        return NAME

    def initialize(self, context: PluginContext) -> None:
        self._namespace = s.string(context, "namespace", "headwater")
        self._producer = s.string(context, "producer", DEFAULT_PRODUCER)
        transport = context.settings.get("transport")
        if transport is None:
            self.client = OpenLineageClient()
        else:
            self.client = OpenLineageClient(config={"transport": s.table(context, "transport")})

    def event_filter(self) -> bool:
        return self.client is not None

    def exec(self, event: LineageInfo) -> None:
        if self.client is None:
            raise RuntimeError("openlineage plugin is closed")
        self.client.emit(to_run_event(event, namespace=self._namespace, producer=self._producer))

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


class OpenLineagePluginFactory(LineagePluginFactory):
    def name(self) -> str:
        return NAME

    def create(self, context: PluginContext) -> LineagePlugin:
        return OpenLineagePlugin()
