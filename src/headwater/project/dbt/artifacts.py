"""dbt's artifacts as plain JSON: ``target/manifest.json``, and ``catalog.json`` and
``run_results.json`` when present. Nothing of dbt's own Python is imported: the artifacts are the
interface (dbt writes them on every ``dbt build``/``run``/``compile``, ``catalog.json`` on
``dbt docs generate``).

>>> import json, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> (d / "target").mkdir()
>>> _ = (d / "target" / "manifest.json").write_text(json.dumps({"metadata": {}, "nodes": {}, "sources": {}}))
>>> a = load_artifacts(d)
>>> a.target.name, a.catalog is None, a.run_results is None
('target', True, True)
>>> try:
...     load_artifacts(d / "nowhere")
... except DbtArtifactError as exc:
...     print(str(exc).replace(str(d), "…"))
…/nowhere: no target/manifest.json there or in it: run `dbt build` (or `dbt compile`) in the project first
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST, CATALOG, RUN_RESULTS = "manifest.json", "catalog.json", "run_results.json"


class DbtArtifactError(ValueError):
    """An artifact that is missing or cannot be read; the message names the file and the fix."""


@dataclass(frozen=True, slots=True)
class Artifacts:
    target: Path
    manifest: dict[str, Any]
    catalog: dict[str, Any] | None
    run_results: dict[str, Any] | None


def find_target(path: Path) -> Path:
    """The directory holding ``manifest.json``: ``path`` itself (a target directory) or
    ``path/target`` (a project directory)."""
    for candidate in (path, path / "target"):
        if (candidate / MANIFEST).is_file():
            return candidate
    raise DbtArtifactError(
        f"{path}: no target/{MANIFEST} there or in it: run `dbt build` (or `dbt compile`) in the project first"
    )


def _read(path: Path, required: bool) -> dict[str, Any] | None:
    if not path.is_file():
        if required:
            raise DbtArtifactError(f"{path}: missing")
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError) as exc:
        raise DbtArtifactError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise DbtArtifactError(
            f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); run dbt again to write it anew"
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("metadata", {}), dict):
        raise DbtArtifactError(f"{path}: not a dbt artifact (expected an object with `metadata`)")
    return doc


def load_artifacts(path: Path) -> Artifacts:
    """Read the artifacts of a dbt project directory or of its target directory."""
    target = find_target(path)
    manifest = _read(target / MANIFEST, required=True)
    assert manifest is not None
    for key in ("nodes", "sources"):
        if not isinstance(manifest.get(key, {}), dict):
            raise DbtArtifactError(f"{target / MANIFEST}: `{key}` must be an object")
    return Artifacts(target, manifest, _read(target / CATALOG, False), _read(target / RUN_RESULTS, False))
