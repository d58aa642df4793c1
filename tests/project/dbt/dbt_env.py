"""dbt itself for the tests: dbt-core 1.11 with dbt-postgres and openlineage-dbt, in a virtualenv
of their own, built from PyPI with pip on first use and kept under ``~/.cache/headwater``
(``$HEADWATER_DBT_VENV`` to use another).

Why not the ``[test]`` extra: dbt-core 1.11 (and dbt-common, dbt-adapters, which every dbt-core
needs) require ``protobuf<7``, while headwater's gRPC stubs need ``protobuf>=7.35`` (grpcio-tools
1.85.1); pip cannot install both in one environment. dbt-core 1.12 pulls a parser binary from
outside the package registry at install time. headwater reads dbt's artifacts, never its Python,
so dbt in an environment of its own is how a dbt user runs both anyway.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REQUIREMENTS = ("dbt-core==1.11.16", "dbt-postgres==1.11.0", "openlineage-dbt==1.54.0")


def _venv_dir() -> Path:
    given = os.environ.get("HEADWATER_DBT_VENV")
    if given:
        return Path(given)
    tag = hashlib.sha1(" ".join(REQUIREMENTS).encode()).hexdigest()[:10]
    return Path.home() / ".cache" / "headwater" / f"dbt-venv-{tag}"


def dbt_bin() -> Path:
    """The venv's ``bin`` directory (``dbt``, ``dbt-ol``), built first when absent (under a lock:
    concurrent test runs build it once); skips the test, with pip's last line, when it cannot be
    built (no registry reachable)."""
    venv = _venv_dir()
    done = venv / ".headwater-complete"
    if done.exists():
        return venv / "bin"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return venv / "bin"
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        pip = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *REQUIREMENTS],
            capture_output=True,
            text=True,
        )
        if pip.returncode != 0:
            last = (pip.stderr.strip().splitlines() or ["pip failed"])[-1]
            pytest.skip(f"dbt could not be installed in its own virtualenv ({' '.join(REQUIREMENTS)}): {last}")
        done.write_text(" ".join(REQUIREMENTS) + "\n")
    return venv / "bin"
