"""The optional mypyc build (``build_support/``): asked for by ``HEADWATER_MYPYC``, never by default."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

from headwater.extract.compiled import HOT_MODULES, compiled_modules

ROOT = Path(__file__).resolve().parents[2]


def _build_module():
    spec = importlib.util.spec_from_file_location("mypyc_build", ROOT / "build_support" / "mypyc_build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mypyc_build", module)
    spec.loader.exec_module(module)
    return module


def test_the_default_build_needs_nothing_more_than_setuptools(monkeypatch) -> None:
    build = _build_module()
    monkeypatch.delenv("HEADWATER_MYPYC", raising=False)
    assert build.build_requires() == []
    monkeypatch.setenv("HEADWATER_MYPYC", "0")
    assert build.build_requires() == []


def test_the_switch_adds_mypy_and_the_projects_own_sqlglot(monkeypatch) -> None:
    build = _build_module()
    monkeypatch.setenv("HEADWATER_MYPYC", "1")
    pinned = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert build.build_requires() == [build.MYPY, next(d for d in pinned if d.startswith("sqlglot=="))]
    assert build.MYPY.startswith("mypy==")


def test_the_compiled_modules_are_the_hot_modules_and_exist() -> None:
    build = _build_module()
    names = [p.removeprefix("src/").removesuffix(".py").replace("/", ".") for p in build.COMPILED]
    assert names == list(HOT_MODULES)
    assert all((ROOT / p).is_file() for p in build.COMPILED)
    # this checkout runs from its sources unless it was installed with the switch
    assert compiled_modules() in ([], list(HOT_MODULES))
