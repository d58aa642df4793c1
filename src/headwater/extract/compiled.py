"""Which extraction modules run compiled (the optional mypyc build, ``build_support/mypyc_build.py``).

>>> set(compiled_modules()) <= set(HOT_MODULES)
True
"""

from __future__ import annotations

import importlib

HOT_MODULES = (
    "headwater.extract.trees",
    "headwater.extract.scope",
    "headwater.extract.classify",
    "headwater.extract.binder",
    "headwater.extract.columns",
    "headwater.extract.sources",
    "headwater.extract.resolve",
    "headwater.extract.events",
    "headwater.extract.reuse",
)


def compiled_modules() -> list[str]:
    """The hot modules loaded from a C extension (empty for the default, pure-Python install)."""
    out = []
    for name in HOT_MODULES:
        path = getattr(importlib.import_module(name), "__file__", "") or ""
        if not path.endswith(".py"):
            out.append(name)
    return out
