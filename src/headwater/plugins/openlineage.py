"""``openlineage``: emit each event as OpenLineage ``RunEvent``\\ s through openlineage-python.

Settings (``[lineage_plugins.openlineage]``): ``producer``; ``lifecycle``: ``start`` (the default: START
then COMPLETE, or FAIL, with one run id, as the spec's run lifecycle) or ``complete`` (one COMPLETE or FAIL
event per statement); ``engine``: the engine (else
the one a hook saw, else ``doris``); ``schema`` / ``catalog_url``: a schema file / live catalog that
types the input schema facets; ``transport``: a table given to
``OpenLineageClient(config={"transport": …})`` (``type`` = ``http``, ``console``, ``file``, ``kafka``…,
with that transport's own keys). Without ``transport`` the client configures itself as it documents
(``OPENLINEAGE_CONFIG`` / ``openlineage.yml``, ``OPENLINEAGE_URL``, ``OPENLINEAGE__TRANSPORT__…``).

Naming comes from ``headwater.toml``'s ``[openlineage]`` table (``job_namespace``,
``default_namespace``, ``[openlineage.namespaces]``); the plugin's own ``namespace``,
``job_namespace`` and ``namespaces`` override it. The run id comes from the event id (query id +
target table), so receivers can deduplicate.

``exec_failure`` (called for statements the hooks saw fail) emits START and FAIL: the job and the error.
"""

from __future__ import annotations

from dataclasses import replace

from openlineage.client import OpenLineageClient

from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.model import LineageInfo
from headwater.model.ol_naming import NamingError, OpenLineageNaming, place_of_setting
from headwater.model.openlineage import (
    DEFAULT_LIFECYCLE,
    DEFAULT_PRODUCER,
    LIFECYCLES,
    failed_run_events,
    to_run_events,
)
from headwater.plugins import _settings as s

NAME = "openlineage"


def plugin_naming(context: PluginContext) -> OpenLineageNaming:
    """The ``[openlineage]`` naming handed to the plugin, with the plugin table's own keys on top."""
    naming = context.settings.get("naming")
    if not isinstance(naming, OpenLineageNaming):
        naming = OpenLineageNaming()
    if "namespace" in context.settings:
        naming = replace(naming, default_namespace=s.string(context, "namespace"))
    if "job_namespace" in context.settings:
        naming = replace(naming, job_namespace=s.string(context, "job_namespace"))
    if "namespaces" in context.settings:
        where = f"[lineage_plugins.{context.name}]"
        try:
            extra = {str(k): place_of_setting(str(k), v, where) for k, v in s.table(context, "namespaces").items()}
        except NamingError as exc:
            raise ValueError(f"lineage plugin {context.name}: {exc}") from None
        catalogs = {**naming.catalogs, **extra}
        naming = replace(naming, catalogs=catalogs, explicit=(naming.explicit or frozenset()) | frozenset(extra))
    return naming


class OpenLineagePlugin(LineagePlugin):
    def __init__(self) -> None:
        self.client: OpenLineageClient | None = None
        self.naming = OpenLineageNaming()
        self._producer = DEFAULT_PRODUCER
        self._lifecycle = DEFAULT_LIFECYCLE
        self._engine: str | None = None
        self._catalog: object = None

    def name(self) -> str:
        return NAME

    def initialize(self, context: PluginContext) -> None:
        self.naming = plugin_naming(context)
        self._producer = s.string(context, "producer", DEFAULT_PRODUCER)
        self._lifecycle = s.string(context, "lifecycle", DEFAULT_LIFECYCLE, choices=LIFECYCLES)
        self._engine = s.string(context, "engine") if "engine" in context.settings else None
        schema, url = context.settings.get("schema"), context.settings.get("catalog_url")
        if schema is not None or url is not None:
            from headwater.catalog import open_catalog

            self._catalog = open_catalog(
                s.string(context, "schema") if schema is not None else None,
                s.string(context, "catalog_url") if url is not None else None,
                (self._engine or "doris").lower(),
            )
        transport = context.settings.get("transport")
        if transport is None:
            self.client = OpenLineageClient()
        else:
            self.client = OpenLineageClient(config={"transport": s.table(context, "transport")})

    def event_filter(self) -> bool:
        return self.client is not None

    def _client(self) -> OpenLineageClient:
        if self.client is None:
            raise RuntimeError("openlineage plugin is closed")
        return self.client

    def exec(self, event: LineageInfo) -> None:
        client = self._client()
        for run_event in to_run_events(
            event,
            naming=self.naming,
            producer=self._producer,
            lifecycle=self._lifecycle,
            engine=self._engine,
            catalog=self._catalog,
        ):
            client.emit(run_event)

    def exec_failure(self, event: LineageInfo, error: str) -> None:
        """A statement the database rejected: START (unless ``lifecycle = "complete"``) then FAIL (its
        job and the error), one run id."""
        client = self._client()
        for run_event in failed_run_events(
            event, error, naming=self.naming, producer=self._producer, engine=self._engine, lifecycle=self._lifecycle
        ):
            client.emit(run_event)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


class OpenLineagePluginFactory(LineagePluginFactory):
    def name(self) -> str:
        return NAME

    def create(self, context: PluginContext) -> LineagePlugin:
        return OpenLineagePlugin()
