"""The optional compiled build: the hot extraction modules compiled with mypyc, as sqlglotc compiles
sqlglot's parser.

    HEADWATER_MYPYC=1 pip install .    # or pip install -e . ; the modules below become C extensions

Without the switch the package is pure Python and its build needs only setuptools, as before; with
it, the build environment gets mypy (whose mypyc does the compiling) and a C compiler must be there.
The compiled modules behave as their sources do (the same tests pass on both builds); only the
speed differs. ``headwater.extract.compiled.compiled_modules()`` says which are compiled in an
installation.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

SWITCH = "HEADWATER_MYPYC"
MYPY = "mypy==2.4.1"
# mypy options of the compile: only the compiled modules' own types must check; imports it cannot
# see (SQLAlchemy, PyYAML in the build environment) are taken as untyped
MYPY_OPTIONS = ("--follow-imports=silent", "--ignore-missing-imports")

# resolve/bind, scope, trees and classify: the passes that run once per node of every statement;
# events: the event of every lineage statement (classifying and rendering each output); reuse: every
# statement of a query log with reuse on (a re-run's skeleton and events, a first sight's template checks).
# The resolver's chain binder → columns → sources → resolve is compiled whole, so that each of its
# classes is a native class (a compiled class cannot derive from an interpreted one).
COMPILED = (
    "src/headwater/extract/trees.py",
    "src/headwater/extract/scope.py",
    "src/headwater/extract/classify.py",
    "src/headwater/extract/binder.py",
    "src/headwater/extract/columns.py",
    "src/headwater/extract/sources.py",
    "src/headwater/extract/resolve.py",
    "src/headwater/extract/events.py",
    "src/headwater/extract/reuse.py",
)


def compiled_build() -> bool:
    """True when the installer asked for the compiled build (``HEADWATER_MYPYC`` set, not ``0``)."""
    return os.environ.get(SWITCH, "") not in ("", "0")


def _sqlglot_pin() -> str:
    """The project's own sqlglot requirement: the compile reads sqlglot's types."""
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    return next(d for d in project["project"]["dependencies"] if d.startswith("sqlglot=="))


def build_requires() -> list[str]:
    """What the build needs beyond setuptools: mypy and sqlglot for the compiled build, else nothing."""
    return [MYPY, _sqlglot_pin()] if compiled_build() else []
