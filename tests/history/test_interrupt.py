"""``headwater ingest-log`` stopped by SIGINT / SIGTERM in a real child process: the tasks it recorded
stay, it says so in one line, and the same command run again starts after them (without extracting
them again) and gives the store of one clean run."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import pytest
from tests.pg_schema import fresh_schema_url
from tests.store.store_content import content
from tests.store.test_ingest_interrupt import LINE, _env, _recorded, interrupted

from headwater.history.synthetic import generate_log, synthetic_schema, write_jsonl

ROWS = 2400


def _command(log: Path, schema: Path, url: str) -> list[str]:
    import sys

    return [
        sys.executable, "-m", "headwater.cli.main", "ingest-log", str(log), "--schema", str(schema),
        "--store", url, "--task-size", "60", "--batch", "50",
    ]  # fmt: skip


def _figure(output: str, name: str) -> int:
    m = re.search(rf"│ {re.escape(name)}\s+│\s+(\d+) │", output)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize(
    ("backend", "signum", "code"), [("sqlite", signal.SIGINT, 130), ("postgresql", signal.SIGTERM, 143)]
)
def test_a_stopped_ingest_log_continues_where_it_stopped(tmp_path: Path, backend: str, signum: int, code: int) -> None:
    log, schema = tmp_path / "log.jsonl", tmp_path / "schema.json"
    write_jsonl(generate_log(ROWS, seed=5, per_session=30), log)
    schema.write_text(json.dumps(synthetic_schema()))
    with fresh_schema_url("hw_log_stop") as pg_stopped, fresh_schema_url("hw_log_clean") as pg_clean:
        if backend == "sqlite":
            stopped, clean = f"sqlite:///{tmp_path / 'stopped.db'}", f"sqlite:///{tmp_path / 'clean.db'}"
        else:
            stopped, clean = pg_stopped, pg_clean
        returncode, out = interrupted(_command(log, schema, stopped), stopped, 50, signum)
        assert returncode == code, out
        found = LINE.findall(out)
        assert len(found) == 1, out
        done, total, recorded = (int(x.replace(",", "")) for x in found[0])
        assert total == ROWS and 0 < done == recorded < ROWS, out
        kept = _recorded(stopped)

        again = subprocess.run(_command(log, schema, stopped), env=_env(), capture_output=True, text=True, check=False)
        assert again.returncode == 0, again.stdout + again.stderr
        assert _figure(again.stdout, "resumed (recorded before)") == done  # those rows were not extracted again
        assert _figure(again.stdout, "recorded") == _recorded(stopped) - kept
        once = subprocess.run(_command(log, schema, clean), env=_env(), capture_output=True, text=True, check=False)
        assert once.returncode == 0, once.stdout + once.stderr
        assert _figure(once.stdout, "resumed (recorded before)") == 0
        assert content(stopped) == content(clean)
        assert _recorded(clean) == _figure(once.stdout, "recorded") > 0
