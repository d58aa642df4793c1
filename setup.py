"""The build: pure Python by default; ``HEADWATER_MYPYC=1`` compiles the hot modules with mypyc
(``build_support/mypyc_build.py``). The metadata is in pyproject.toml."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "build_support"))
from mypyc_build import COMPILED, MYPY, MYPY_OPTIONS, compiled_build

if compiled_build():
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(f"the compiled build needs mypyc: pip install '{MYPY}' (or build without --no-build-isolation)")

    setup(ext_modules=mypycify([*MYPY_OPTIONS, *COMPILED], opt_level="3", group_name="headwater_compiled"))
else:
    setup()
