"""setuptools' build backend, with mypy as the build's one extra requirement for the compiled build
(``mypyc_build``); every other hook is setuptools' own.

setuptools' own requirement hooks would run setup.py to ask for more (this project asks for none);
for the compiled build that run would need mypyc before it is installed, so they are not called.
"""

from __future__ import annotations

from typing import Any

from mypyc_build import build_requires
from setuptools.build_meta import *  # noqa: F403  (the backend's other hooks, unchanged)


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return build_requires()


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return build_requires()
