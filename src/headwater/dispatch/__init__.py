"""Lineage event dispatch: plugin SPI, discovery and activation, the bounded queue and its worker.

>>> from headwater.dispatch import LineagePlugin, LineagePluginFactory, PluginContext, start_dispatch
"""

from headwater.dispatch.activation import Activation, FactoryStatus, LoadedPlugin
from headwater.dispatch.collector import Collector
from headwater.dispatch.counters import CounterSnapshot, PluginCounts
from headwater.dispatch.discovery import DECLARATION_FILE, ENTRY_POINT_GROUP, Discovery, discover
from headwater.dispatch.runtime import LineageDispatch, start_dispatch
from headwater.dispatch.settings import DispatchSettings, SettingsError, load_settings
from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext, PluginNotConfigured

__all__ = [
    "DECLARATION_FILE",
    "ENTRY_POINT_GROUP",
    "Activation",
    "Collector",
    "CounterSnapshot",
    "Discovery",
    "DispatchSettings",
    "FactoryStatus",
    "LineageDispatch",
    "LineagePlugin",
    "LineagePluginFactory",
    "LoadedPlugin",
    "PluginContext",
    "PluginCounts",
    "PluginNotConfigured",
    "SettingsError",
    "discover",
    "load_settings",
    "start_dispatch",
]
