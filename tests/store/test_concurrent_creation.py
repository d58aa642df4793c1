"""N processes writing first into a store that does not exist yet: one creates the schema, the
others wait for it (SQLite ``BEGIN IMMEDIATE`` under the busy timeout, PostgreSQL an advisory lock);
every writer succeeds and every event is stored."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from tests.pg_schema import fresh_schema_url

from headwater.store import open_store
from headwater.store.migrate import current_revision, head_revision

WRITERS = 6
# Each writer waits for the same instant, then opens the store (creating its schema) and records one
# event: the first writes of every process meet on the empty database.
WRITER = """
import sys, time
from headwater.dispatch.sample import tiny_event
url, k, at = sys.argv[1], sys.argv[2], float(sys.argv[3])
from headwater.store import open_store
time.sleep(max(0.0, at - time.time()))
r = open_store(url).record(tiny_event(f"first-writer-{k}"))
print("recorded", r.recorded)
"""


def _first_writers(url: str, command: list[str] | None = None) -> list[subprocess.CompletedProcess[str]]:
    at = time.time() + 4.0  # past every interpreter's start-up on a busy machine
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, str(k), str(at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(WRITERS)
    ]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_first_writers_all_succeed(backend: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'new.db'}"
            if backend == "sqlite"
            else stack.enter_context(fresh_schema_url("hw_first"))
        )
        results = _first_writers(url)
        for r in results:
            assert r.returncode == 0 and r.stdout.strip() == "recorded 1", r.stderr[-2000:]
        store = open_store(url)
        assert store.get_lineage_stats().events_recorded == WRITERS
        assert current_revision(store.engine) == head_revision()
