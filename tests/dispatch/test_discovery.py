"""Discovery: entry points and plugin directories, one factory per directory, globally unique names."""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from headwater.dispatch.discovery import DECLARATION_FILE, ENTRY_POINT_GROUP, discover

FACTORY_SRC = """
from headwater.dispatch import LineagePlugin, LineagePluginFactory

class Plugin(LineagePlugin):
    def __init__(self, name): self._name = name
    def name(self): return self._name
    def event_filter(self): return True
    def exec(self, event): pass

class {cls}(LineagePluginFactory):
    def name(self): return {name!r}
    def create(self, context): return Plugin({name!r})
"""


@pytest.fixture
def isolated_imports() -> Iterator[None]:
    """Plugin directories change sys.path and sys.modules: put both back afterwards."""
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def _mod() -> str:
    return f"hwplug_{uuid.uuid4().hex[:10]}"


def plugin_dir(root: Path, dirname: str, factories: dict[str, str], declare: list[str] | None = None) -> Path:
    """``root/lineage/<dirname>`` with a module defining ``factories`` (class → name) and the declaration."""
    d = root / "lineage" / dirname
    d.mkdir(parents=True)
    module = _mod()
    (d / f"{module}.py").write_text("".join(FACTORY_SRC.format(cls=c, name=n) for c, n in factories.items()))
    lines = declare if declare is not None else [f"{module}:{c}" for c in factories]
    (d / DECLARATION_FILE).write_text("# the factory\n" + "\n".join(lines) + "\n")
    return d


def no_entry_points() -> list[EntryPoint]:
    return []


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "headwater.dispatch"]


@pytest.mark.usefixtures("isolated_imports")
def test_directory_plugin_with_lib_on_the_import_path(tmp_path: Path) -> None:
    d = tmp_path / "lineage" / "example-lineage"
    (d / "lib").mkdir(parents=True)
    helper, module = _mod(), _mod()
    (d / "lib" / f"{helper}.py").write_text("NAME = 'example-lineage'\n")
    (d / f"{module}.py").write_text(
        FACTORY_SRC.format(cls="Factory", name="placeholder").replace("'placeholder'", f"__import__('{helper}').NAME")
    )
    (d / DECLARATION_FILE).write_text(f"{module}:Factory  # the one factory\n")
    found = discover(tmp_path, no_entry_points)
    assert found.names() == ["example-lineage"]
    assert found.factories[0].plugin_path == d.resolve()
    assert found.refused == []


@pytest.mark.usefixtures("isolated_imports")
def test_directory_with_two_factories_is_refused_and_others_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plugin_dir(tmp_path, "a-one", {"F": "one"})
    two = plugin_dir(tmp_path, "b-two", {"F1": "two-a", "F2": "two-b"})
    plugin_dir(tmp_path, "c-three", {"F": "three"})
    caplog.set_level(logging.INFO, "headwater.dispatch")
    found = discover(tmp_path, no_entry_points)
    assert found.names() == ["one", "three"]
    decl = ", ".join(line for line in (two / DECLARATION_FILE).read_text().splitlines()[1:])
    assert messages(caplog) == [
        f"Skip lineage plugin directory due to load failure: pluginDir={two}, message="
        f"{DECLARATION_FILE} declares 2 factories ({decl}); a plugin directory may expose exactly one"
    ]
    assert [r.where for r in found.refused] == [f"directory {two}"]


@pytest.mark.usefixtures("isolated_imports")
def test_duplicate_name_is_refused_and_never_replaces_the_first(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = plugin_dir(tmp_path, "a", {"F": "same"})
    second = plugin_dir(tmp_path, "b", {"F": "same"})
    caplog.set_level(logging.INFO, "headwater.dispatch")
    found = discover(tmp_path, no_entry_points)
    assert [(f.name, f.plugin_path) for f in found.factories] == [("same", first.resolve())]
    assert messages(caplog) == [
        f"Skip duplicate lineage plugin factory: same, pluginPath={second.resolve()}, "
        f"already provided by pluginPath={first.resolve()}"
    ]
    assert found.refused[0].name == "same"


@pytest.mark.usefixtures("isolated_imports")
def test_entry_points_come_first_and_win_name_clashes(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    d = plugin_dir(tmp_path, "dup", {"F": "jsonl"})
    eps = [EntryPoint("jsonl", "headwater.plugins.jsonl:JsonlPluginFactory", ENTRY_POINT_GROUP)]
    caplog.set_level(logging.INFO, "headwater.dispatch")
    found = discover(tmp_path, lambda: eps)
    assert [(f.name, f.origin) for f in found.factories] == [
        ("jsonl", "entry point jsonl = headwater.plugins.jsonl:JsonlPluginFactory")
    ]
    assert found.factories[0].plugin_path == Path(sys.modules["headwater.plugins.jsonl"].__file__).parent  # type: ignore[arg-type]
    assert messages(caplog)[0].startswith(f"Skip duplicate lineage plugin factory: jsonl, pluginPath={d.resolve()}")


def test_broken_entry_point_is_skipped_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    eps = [
        EntryPoint("nope", "headwater_no_such_module:F", ENTRY_POINT_GROUP),
        EntryPoint("log", "headwater.plugins.log:LogPluginFactory", ENTRY_POINT_GROUP),
    ]
    found = discover(None, lambda: eps)
    assert found.names() == ["log"]
    assert messages(caplog) == [
        "Skip lineage plugin entry point due to load failure: entryPoint=headwater_no_such_module:F, "
        "message=No module named 'headwater_no_such_module'"
    ]


@pytest.mark.usefixtures("isolated_imports")
def test_only_direct_children_of_lineage_are_scanned(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    nested = plugin_dir(tmp_path / "lineage" / "outer", "inner", {"F": "nested"})  # lineage/outer/lineage/inner
    (tmp_path / "lineage" / "README.txt").write_text("not a plugin")
    (tmp_path / "lineage" / ".hidden").mkdir()
    found = discover(tmp_path, no_entry_points)
    assert found.names() == []
    outer = tmp_path / "lineage" / "outer"
    assert nested.is_dir()
    assert messages(caplog) == [
        f"Skip lineage plugin directory due to load failure: pluginDir={outer}, "
        f"message=no {DECLARATION_FILE} file declaring the factory"
    ]


@pytest.mark.usefixtures("isolated_imports")
@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ("just_a_module", "declaration 'just_a_module' is not of the form module:attribute"),
        ("{module}:Missing", "module '{module}' has no attribute 'Missing'"),
        ("{module}:NOT_A_FACTORY", "42 is not a lineage plugin factory (needs name() and create(context))"),
        ("json:JSONDecoder", "module 'json' is already imported from {json}; module names must be unique"),
    ],
)
def test_bad_declarations_are_refused_with_the_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, declaration: str, message: str
) -> None:
    d = tmp_path / "lineage" / "bad"
    d.mkdir(parents=True)
    module = _mod()
    (d / f"{module}.py").write_text("NOT_A_FACTORY = 42\n")
    (d / DECLARATION_FILE).write_text(declaration.format(module=module) + "\n")
    before = list(sys.path)
    found = discover(tmp_path, no_entry_points)
    assert found.names() == []
    expected = message.format(module=module, json=sys.modules["json"].__file__)
    assert messages(caplog)[0].startswith(
        f"Skip lineage plugin directory due to load failure: pluginDir={d}, message={expected}"
    )
    assert sys.path == before  # a refused directory leaves the import path as it was


def test_missing_plugin_root_finds_only_entry_points(tmp_path: Path) -> None:
    assert discover(tmp_path / "absent", no_entry_points).names() == []
