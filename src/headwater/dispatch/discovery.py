"""Finding plugin factories: ``headwater.lineage_plugins`` entry points, then ``<plugin_dir>/lineage/<dir>/``.

A plugin directory declares its factory in a text file named ``headwater.lineage_plugins`` (like a Java
service file): one line ``module:attribute``, blank lines and ``#`` comments ignored. The directory and
its ``lib/`` go on ``sys.path`` before the module is imported. The attribute is a factory class
(instantiated without arguments) or a factory instance. A directory declaring more than one factory is
refused; so is any factory whose name an earlier one already took.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from headwater.dispatch.spi import LineagePluginFactory

ENTRY_POINT_GROUP = "headwater.lineage_plugins"
DECLARATION_FILE = "headwater.lineage_plugins"

log = logging.getLogger("headwater.dispatch")


class PluginLoadError(Exception):
    """Why a plugin directory or entry point gave no factory."""


@dataclass(frozen=True, slots=True)
class DiscoveredFactory:
    """A usable factory: its name, where its code lives, and how it was found."""

    name: str
    factory: LineagePluginFactory
    plugin_path: Path | None
    origin: str


@dataclass(frozen=True, slots=True)
class Refusal:
    """Something that was found but not kept, with the reason (also logged)."""

    where: str
    reason: str
    name: str | None = None


@dataclass(slots=True)
class Discovery:
    factories: list[DiscoveredFactory] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)

    def names(self) -> list[str]:
        return [f.name for f in self.factories]


def _as_factory(obj: Any) -> LineagePluginFactory:
    factory = obj() if inspect.isclass(obj) else obj
    if not callable(getattr(factory, "name", None)) or not callable(getattr(factory, "create", None)):
        raise PluginLoadError(f"{obj!r} is not a lineage plugin factory (needs name() and create(context))")
    name = factory.name()
    if not isinstance(name, str) or not name:
        raise PluginLoadError(f"factory {obj!r} returned an invalid name {name!r}")
    return factory  # type: ignore[no-any-return]


def _module_dir(factory: LineagePluginFactory) -> Path | None:
    try:
        return Path(inspect.getfile(type(factory))).resolve().parent
    except (TypeError, OSError):
        return None


def _declarations(directory: Path) -> list[str]:
    path = directory / DECLARATION_FILE
    if not path.is_file():
        raise PluginLoadError(f"no {DECLARATION_FILE} file declaring the factory")
    lines = [line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    found = [line for line in lines if line]
    if not found:
        raise PluginLoadError(f"{DECLARATION_FILE} declares no factory")
    if len(found) > 1:
        raise PluginLoadError(
            f"{DECLARATION_FILE} declares {len(found)} factories ({', '.join(found)}); "
            "a plugin directory may expose exactly one"
        )
    return found


def _import_declared(directory: Path, spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise PluginLoadError(f"declaration {spec!r} is not of the form module:attribute")
    known = sys.modules.get(module_name.split(".")[0])
    known_file = getattr(known, "__file__", None)
    if known is not None and (known_file is None or directory not in Path(known_file).resolve().parents):
        raise PluginLoadError(
            f"module {module_name!r} is already imported from {known_file}; "
            "module names must be unique across plugin directories"
        )
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise PluginLoadError(f"module {module_name!r} has no attribute {attr!r}") from None


def load_directory(directory: Path) -> LineagePluginFactory:
    """The one factory a plugin directory declares; raises ``PluginLoadError`` (or the import's error)."""
    directory = directory.resolve()
    spec = _declarations(directory)[0]
    added = [str(p) for p in (directory, directory / "lib") if p.is_dir() and str(p) not in sys.path]
    sys.path[:0] = added
    try:
        return _as_factory(_import_declared(directory, spec))
    except BaseException:
        for p in added:
            sys.path.remove(p)
        raise


def _default_entry_points() -> Iterable[EntryPoint]:
    return entry_points(group=ENTRY_POINT_GROUP)


class _Collector:
    """Keeps the first factory of each name; logs and records everything refused."""

    def __init__(self) -> None:
        self.result = Discovery()
        self._by_name: dict[str, DiscoveredFactory] = {}

    def add(self, found: DiscoveredFactory) -> None:
        first = self._by_name.get(found.name)
        if first is not None:
            reason = (
                f"duplicate factory name {found.name!r}, already provided by "
                f"pluginPath={first.plugin_path} ({first.origin})"
            )
            log.warning(
                "Skip duplicate lineage plugin factory: %s, pluginPath=%s, already provided by pluginPath=%s",
                found.name,
                found.plugin_path,
                first.plugin_path,
            )
            self.result.refused.append(Refusal(found.origin, reason, found.name))
            return
        self._by_name[found.name] = found
        self.result.factories.append(found)

    def refuse(self, where: str, reason: str) -> None:
        self.result.refused.append(Refusal(where, reason))


def discover(
    plugin_dir: Path | None,
    entry_points_fn: Callable[[], Iterable[EntryPoint]] = _default_entry_points,
) -> Discovery:
    """Every factory, entry points first (by name), then plugin directories (by directory name)."""
    found = _Collector()
    for ep in sorted(entry_points_fn(), key=lambda e: (e.name, e.value)):
        origin = f"entry point {ep.name} = {ep.value}"
        try:
            factory = _as_factory(ep.load())
        except Exception as exc:
            log.error(
                "Skip lineage plugin entry point due to load failure: entryPoint=%s, message=%s",
                ep.value,
                exc,
            )
            found.refuse(origin, str(exc))
            continue
        found.add(DiscoveredFactory(factory.name(), factory, _module_dir(factory), origin))
    if plugin_dir is None:
        return found.result
    root = plugin_dir / "lineage"
    if not root.is_dir():
        log.info("No lineage plugin directory at %s", root)
        return found.result
    for child in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))):
        try:
            factory = load_directory(child)
        except Exception as exc:
            log.error("Skip lineage plugin directory due to load failure: pluginDir=%s, message=%s", child, exc)
            found.refuse(f"directory {child}", str(exc))
            continue
        found.add(DiscoveredFactory(factory.name(), factory, child.resolve(), f"directory {child}"))
    return found.result
