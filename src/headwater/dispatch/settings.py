"""Dispatch settings, read once at start.

Precedence, highest first: CLI flags (``overrides``) → ``HEADWATER_<NAME>`` environment variables →
``headwater.toml`` → defaults. The file is ``config_path`` when given, else ``$HEADWATER_CONFIG``, else
``./headwater.toml`` when it exists. The guide's three settings keep their names and defaults:

>>> s = load_settings(env={}, cwd=Path("/nonexistent"))
>>> (s.activate_lineage_plugin, s.lineage_event_queue_size)
((), 50000)
>>> env = {"HEADWATER_ACTIVATE_LINEAGE_PLUGIN": " a , b,"}
>>> load_settings(env=env, cwd=Path("/x")).activate_lineage_plugin
('a', 'b')
>>> load_settings(env={}, overrides={"lineage_event_queue_size": "0"}, cwd=Path("/x"))
Traceback (most recent call last):
...
headwater.dispatch.settings.SettingsError: lineage_event_queue_size must be a positive integer, got '0' ...
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from headwater.model.ol_naming import (
    INTERNAL,
    NamingError,
    OpenLineageNaming,
    naming_from_table,
    parse_mapping,
    place_of_url,
)

DEFAULT_PLUGIN_DIR = "~/.headwater/plugins"
DEFAULT_QUEUE_SIZE = 50000
DEFAULT_DISPATCH_BATCH = 500
CLOSE_POLICIES = ("drain", "abandon")
ENV_PREFIX = "HEADWATER_"
PLUGIN_TABLE = "lineage_plugins"
OPENLINEAGE_TABLE = "openlineage"

_KEYS = (
    "plugin_dir",
    "activate_lineage_plugin",
    "lineage_event_queue_size",
    "lineage_dispatch_batch",
    "lineage_close_policy",
    "lineage_close_timeout",
)


class SettingsError(ValueError):
    """A setting with a value it cannot take; the message names the setting and where it came from."""


@dataclass(frozen=True, slots=True)
class DispatchSettings:
    """``activate_lineage_plugin`` empty means every discovered factory (as in the guide)."""

    plugin_dir: Path = field(default_factory=lambda: Path(DEFAULT_PLUGIN_DIR).expanduser())
    activate_lineage_plugin: tuple[str, ...] = ()
    lineage_event_queue_size: int = DEFAULT_QUEUE_SIZE
    lineage_dispatch_batch: int = DEFAULT_DISPATCH_BATCH
    lineage_close_policy: str = "drain"
    lineage_close_timeout: float = 10.0
    plugin_settings: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    origins: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    config_file: Path | None = None
    openlineage: OpenLineageNaming = field(default_factory=OpenLineageNaming)

    def settings_for(self, plugin: str) -> Mapping[str, Any]:
        """The ``[lineage_plugins.<plugin>]`` table, empty when absent; the ``openlineage`` plugin's
        also holds the ``[openlineage]`` naming under ``naming`` (unless the table sets one)."""
        table = dict(self.plugin_settings.get(plugin, {}))
        if plugin == OPENLINEAGE_TABLE:
            table.setdefault("naming", self.openlineage)
        return MappingProxyType(table)


def parse_activation(value: Any) -> tuple[str, ...]:
    """Comma-separated names (or a list), items trimmed, empty items and repeats dropped, case kept."""
    items = value if isinstance(value, list | tuple) else str(value).split(",")
    out: list[str] = []
    for item in items:
        name = str(item).strip()
        if name and name not in out:
            out.append(name)
    return tuple(out)


def _positive_int(key: str, value: Any, origin: str) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or int(text) <= 0:
        raise SettingsError(f"{key} must be a positive integer, got {value!r} (from {origin})")
    return int(text)


def _close_policy(value: Any, origin: str) -> str:
    if value not in CLOSE_POLICIES:
        raise SettingsError(f"lineage_close_policy must be one of drain, abandon, got {value!r} (from {origin})")
    return str(value)


def _close_timeout(value: Any, origin: str) -> float:
    try:
        timeout = float(value)
    except (TypeError, ValueError):
        timeout = -1.0
    if isinstance(value, bool) or timeout < 0:
        raise SettingsError(f"lineage_close_timeout must be a number of seconds >= 0, got {value!r} (from {origin})")
    return timeout


def _config_path(config_path: Path | str | None, env: Mapping[str, str], cwd: Path) -> Path | None:
    if config_path is not None:
        return Path(config_path)
    if env.get("HEADWATER_CONFIG"):
        return Path(env["HEADWATER_CONFIG"])
    default = cwd / "headwater.toml"
    return default if default.is_file() else None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise SettingsError(f"cannot read config file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config file {path} is not valid TOML: {exc}") from None


def load_settings(
    config_path: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    cwd: Path | None = None,
) -> DispatchSettings:
    """Merge file, environment and CLI values (``overrides`` entries that are None are ignored)."""
    env = os.environ if env is None else env
    path = _config_path(config_path, env, cwd or Path.cwd())
    doc = _read_toml(path) if path else {}
    raw: dict[str, tuple[Any, str]] = {}
    for key in _KEYS:
        if key in doc:
            raw[key] = (doc[key], str(path))
        if f"{ENV_PREFIX}{key.upper()}" in env:
            raw[key] = (env[f"{ENV_PREFIX}{key.upper()}"], f"{ENV_PREFIX}{key.upper()}")
        if overrides and overrides.get(key) is not None:
            raw[key] = (overrides[key], "CLI")
    plugins = doc.get(PLUGIN_TABLE, {})
    if not isinstance(plugins, dict) or not all(isinstance(v, dict) for v in plugins.values()):
        raise SettingsError(f"[{PLUGIN_TABLE}] in {path} must hold one table per plugin name")
    values: dict[str, Any] = {}
    if "plugin_dir" in raw:
        values["plugin_dir"] = Path(str(raw["plugin_dir"][0])).expanduser()
    if "activate_lineage_plugin" in raw:
        values["activate_lineage_plugin"] = parse_activation(raw["activate_lineage_plugin"][0])
    for key in ("lineage_event_queue_size", "lineage_dispatch_batch"):
        if key in raw:
            values[key] = _positive_int(key, *raw[key])
    if "lineage_close_policy" in raw:
        values["lineage_close_policy"] = _close_policy(*raw["lineage_close_policy"])
    if "lineage_close_timeout" in raw:
        values["lineage_close_timeout"] = _close_timeout(*raw["lineage_close_timeout"])
    if OPENLINEAGE_TABLE in doc:
        values["openlineage"] = _naming(doc[OPENLINEAGE_TABLE], str(path))
    return DispatchSettings(
        **values,
        plugin_settings=MappingProxyType({k: MappingProxyType(dict(v)) for k, v in plugins.items()}),
        origins=MappingProxyType({k: origin for k, (_, origin) in raw.items()}),
        config_file=path,
    )


def _naming(table: Any, where: str) -> OpenLineageNaming:
    try:
        return naming_from_table(table, where)
    except NamingError as exc:
        raise SettingsError(str(exc)) from None


def load_dialect(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> tuple[str, str] | None:
    """The project's SQL dialect, stated once as ``dialect = "…"`` in the settings file
    (``load_settings``'s file), with the file's path; None when no file states one.

    >>> load_dialect(env={}, cwd=Path("/nonexistent")) is None
    True
    """
    env = os.environ if env is None else env
    path = _config_path(None, env, cwd or Path.cwd())
    value = _read_toml(path).get("dialect") if path else None
    return (str(value), str(path)) if value else None


def load_naming(
    config_path: Path | str | None = None, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> OpenLineageNaming:
    """The ``[openlineage]`` naming of the settings file (``load_settings``'s file), default when absent.

    >>> load_naming(env={}, cwd=Path("/nonexistent")).job_namespace
    'headwater'
    """
    env = os.environ if env is None else env
    path = _config_path(config_path, env, cwd or Path.cwd())
    doc = _read_toml(path) if path else {}
    return _naming(doc[OPENLINEAGE_TABLE], str(path)) if OPENLINEAGE_TABLE in doc else OpenLineageNaming()


def command_naming(
    namespaces: Sequence[str] = (),
    catalog_url: str | None = None,
    dialect: str | None = None,
    config_path: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> OpenLineageNaming:
    """The OpenLineage naming of a command (``extract --format openlineage``, ``ingest``, ``serve``).

    Precedence: ``namespaces`` (CLI items ``CATALOG=NAMESPACE``, a bare ``NAMESPACE`` places
    ``internal``) → ``[openlineage.namespaces]`` of the settings file → ``internal`` placed from
    ``catalog_url`` (its host and port, the scheme from ``dialect``) → the default namespace.
    A bad item raises ``SettingsError`` naming it.

    >>> n = command_naming(["hive=hive://ms:9083"], "mysql://root@fe:9030/db", "doris", env={}, cwd=Path("/x"))
    >>> n.place("internal").namespace, n.place("hive").namespace
    ('doris://fe:9030', 'hive://ms:9083')
    """
    base = load_naming(config_path, env, cwd)
    try:
        cli = parse_mapping(list(namespaces))
    except NamingError as exc:
        raise SettingsError(str(exc)) from None
    naming = replace(base, catalogs={**base.catalogs, **cli}, explicit=(base.explicit or frozenset()) | frozenset(cli))
    if catalog_url:
        naming = naming.with_place(INTERNAL, place_of_url(catalog_url, dialect))
    return naming
