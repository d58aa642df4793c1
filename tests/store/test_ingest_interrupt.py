"""``headwater ingest`` stopped by SIGINT / SIGTERM in a real child process: what it recorded stays, it
says so in one line, and the same command run again gives the store of one clean run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests.pg_schema import fresh_schema_url
from tests.store.store_content import content

from headwater.store.schema import events

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"^interrupted after ([\d,]+) of ([\d,]+) statements: ([\d,]+) recorded; the same command continues$", re.M
)
STATEMENTS = 1500


def _script(path: Path) -> Path:
    """A file of ``STATEMENTS`` INSERTs, each its own job with one event."""
    lines = [
        f"INSERT INTO db.t{i % 40} SELECT a + {i} AS a, b, c * {i % 9} AS c FROM db.s{i % 7} WHERE d > {i};"
        for i in range(STATEMENTS)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _command(script: Path, url: str, recorder: str = "thread") -> list[str]:
    command = [sys.executable, "-m", "headwater.cli.main", "ingest", str(script), "--store", url, "--batch", "50"]
    return [*command, "--recorder", recorder]


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}",
    }


def _recorded(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(events)).scalar_one())
    except sa.exc.DBAPIError:
        return 0  # the schema is not there yet
    finally:
        engine.dispose()


def _interrupted(script: Path, url: str, signum: int, recorder: str) -> tuple[int, str]:
    """Start ingest, send ``signum`` once some batches are recorded; its exit code and output. With a
    recording process, to the process group, as a Ctrl-C at a terminal does."""
    return interrupted(_command(script, url, recorder), url, 100, signum, group=recorder == "process")


def interrupted(command: list[str], url: str, at: int, signum: int, group: bool = False) -> tuple[int, str]:
    """Run ``command`` in a child process and send it (``group``: its process group) ``signum`` once
    ``url`` holds ``at`` events (five minutes at most); its exit code and output."""
    child = subprocess.Popen(
        command, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=group
    )
    try:
        deadline = time.monotonic() + 300
        while _recorded(url) < at:
            assert child.poll() is None, child.communicate()[0]
            assert time.monotonic() < deadline, "nothing recorded"
            time.sleep(0.1)
        if group:
            os.killpg(child.pid, signum)
        else:
            child.send_signal(signum)
        out, _ = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
    return child.returncode, out


@contextmanager
def _stores(backend: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'stopped.db'}", f"sqlite:///{tmp_path / 'clean.db'}"
        return
    with ExitStack() as stack:
        yield stack.enter_context(fresh_schema_url("hw_stop")), stack.enter_context(fresh_schema_url("hw_clean"))


@pytest.mark.parametrize(
    ("backend", "signum", "code", "recorder"),
    [
        ("sqlite", signal.SIGINT, 130, "thread"),
        ("sqlite", signal.SIGTERM, 143, "thread"),
        ("postgresql", signal.SIGINT, 130, "thread"),
        ("postgresql", signal.SIGTERM, 143, "thread"),
        ("sqlite", signal.SIGINT, 130, "process"),
        ("postgresql", signal.SIGTERM, 143, "process"),
    ],
)
def test_a_stopped_ingest_keeps_its_batches_and_the_rerun_equals_a_clean_run(
    tmp_path: Path, backend: str, signum: int, code: int, recorder: str
) -> None:
    script = _script(tmp_path / "big.sql")
    with _stores(backend, tmp_path) as (stopped, clean):
        exit_code, out = _interrupted(script, stopped, signum, recorder)
        assert exit_code == code, out
        found = LINE.findall(out)
        assert len(found) == 1, out
        done, total, recorded = (int(x.replace(",", "")) for x in found[0])
        assert total == STATEMENTS
        assert 100 <= done < STATEMENTS, out  # stopped mid-run, not at the end
        assert recorded == done == _recorded(stopped)  # one event per statement, all of them committed
        assert "Traceback" not in out

        again = subprocess.run(
            _command(script, stopped, recorder), env=_env(), capture_output=True, text=True, check=False
        )
        assert again.returncode == 0, again.stdout + again.stderr
        once = subprocess.run(_command(script, clean), env=_env(), capture_output=True, text=True, check=False)
        assert once.returncode == 0, once.stdout + once.stderr
        assert _recorded(stopped) == _recorded(clean) == STATEMENTS
        assert content(stopped) == content(clean)
