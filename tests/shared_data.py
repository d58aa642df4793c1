"""Data that lives beside the repository, not in it: ``../shared`` (the TPC-H/TPC-DS corpus, the
OpenLineage JSON Schemas, the seed documents), or the directory ``$HEADWATER_SHARED`` names.

A clone of the repository alone does not have it, so a test that reads it asks for the path with
``shared_path``, which skips the test with a stated reason (printed by ``pytest -rs``, which the
repository's pytest configuration turns on) when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("HEADWATER_SHARED") or Path(__file__).resolve().parents[2] / "shared")


def shared_path(*parts: str) -> Path:
    """``../shared/<parts>``, or skip the calling test naming what is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs data outside the repository: {path} is absent (set HEADWATER_SHARED to the directory)")
    return path
