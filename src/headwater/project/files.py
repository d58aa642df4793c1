"""The files of a project: paths given on the command line, directories expanded to their SQL files.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> for n in ("b/2.sql", "a.sql", "b/1.SQL", "raw_schema.json"):
...     (d / n).parent.mkdir(exist_ok=True); _ = (d / n).write_text("SELECT 1")
>>> [f.relpath for f in collect_files([d], project_root([d]))]
['a.sql', 'b/1.SQL', 'b/2.sql']
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """A file of the project: where it is, and its path relative to the project root (``/``-separated),
    which names its jobs."""

    path: Path
    relpath: str


def project_root(paths: Sequence[Path]) -> Path:
    """The directory the given paths have in common (a directory given counts as itself)."""
    dirs = [str(p.resolve() if p.is_dir() else p.resolve().parent) for p in paths]
    return Path(os.path.commonpath(dirs)) if dirs else Path.cwd()


def _relpath(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:  # outside the root (a file given beside a --root): its own name
        return path.as_posix()


def collect_files(paths: Sequence[Path], root: Path) -> list[ProjectFile]:
    """The files of ``paths`` in the order given; a directory stands for its ``*.sql`` files, found
    recursively, in name order (event files and schema files beside them are not project files)."""
    out: list[ProjectFile] = []
    seen: set[Path] = set()
    for p in paths:
        found = (
            sorted(
                (f for f in p.rglob("*") if f.is_file() and f.suffix.lower() == ".sql"), key=lambda f: _relpath(f, root)
            )
            if p.is_dir()
            else [p]
        )
        for f in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                out.append(ProjectFile(f, _relpath(f, root)))
    return out
