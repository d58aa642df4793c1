"""``headwater ingest --recorder process``: batches recorded by a child process of their own give the
store a thread gives, answer for answer; the child outlives no one and a dead child is one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.store.store_content import content
from tests.store.test_ingest_formats import run_event
from tests.store.test_ingest_interrupt import _env, _recorded
from typer.testing import CliRunner

from headwater.cli import record_process
from headwater.cli.main import app
from headwater.cli.record_process import RecordingProcess, separable


def _project(root: Path) -> Path:
    """Two files, one reading what the other writes, DDL, a view, a statement that does not parse, and
    an OpenLineage file: every kind of item the recorder hands on."""
    root.mkdir()
    (root / "a_load.sql").write_text(
        "CREATE TABLE stage.orders (id INT, amount DECIMAL(10, 2), region VARCHAR(10));\n"
        "INSERT INTO stage.orders SELECT id, amount, region FROM raw.orders WHERE amount > 0;\n"
        "INSERT INTO stage.orders SELEC broken FROM;\n"
    )
    (root / "b_mart.sql").write_text(
        "CREATE VIEW mart.v_region AS SELECT region, SUM(amount) AS total FROM stage.orders GROUP BY region;\n"
        "INSERT INTO mart.totals SELECT region, total FROM mart.v_region;\n"
        + "".join(f"INSERT INTO mart.t{i % 3} SELECT id + {i} AS id, amount FROM stage.orders;\n" for i in range(30))
    )
    (root / "runs.jsonl").write_text(json.dumps(run_event()) + "\n")  # the guide's event as a RunEvent
    return root


def _ingest(files: list[Path], url: str, recorder: str) -> str:
    args = ["ingest", *map(str, files), "--store", url, "--recorder", recorder, "--batch", "7"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output  # the broken statement
    return result.output


def test_a_process_records_the_store_a_thread_records(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    files = [root, root / "runs.jsonl"]
    thread_url, process_url = f"sqlite:///{tmp_path / 't.db'}", f"sqlite:///{tmp_path / 'p.db'}"
    by_thread = _ingest(files, thread_url, "thread")
    by_process = _ingest(files, process_url, "process")
    assert content(process_url) == content(thread_url)
    assert content(thread_url)["events"]  # a store, not two empty ones
    summary = [line for line in by_thread.splitlines() if not line.startswith("extraction")]
    assert [line for line in by_process.splitlines() if not line.startswith("extraction")] == summary
    assert any("a_load.sql:3" in line for line in summary)  # the broken statement, named
    # the same again: every event a duplicate, counted by the child and reported here
    again = _ingest(files, process_url, "process")
    assert "duplicate" in again and content(process_url) == content(thread_url)


def test_a_store_in_memory_is_recorded_in_this_process() -> None:
    assert not separable("sqlite://") and not separable("sqlite:///:memory:")


def test_auto_moves_recording_to_a_process_once_it_proves_heavy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--recorder auto`` records the first batch here and, past the (here tiny) threshold, the rest
    in a process: the closing line says from which event, and the store is a thread's."""
    root = _project(tmp_path / "p")
    files = [root, root / "runs.jsonl"]
    thread_url, auto_url = f"sqlite:///{tmp_path / 't.db'}", f"sqlite:///{tmp_path / 'a.db'}"
    _ingest(files, thread_url, "thread")
    monkeypatch.setattr(record_process, "MOVE_AFTER_S", 1e-9)
    monkeypatch.setattr(record_process, "MOVE_SHARE", 0.0)
    out = _ingest(files, auto_url, "auto")
    first = 2  # a_load.sql's batch: its table's definition and its INSERT's event (the third does not parse)
    assert f"in a process of its own from event {first + 1}" in out, out
    assert content(auto_url) == content(thread_url)
    monkeypatch.setattr(record_process, "MOVE_AFTER_S", 1e9)  # never heavy enough: no process
    again = _ingest(files, f"sqlite:///{tmp_path / 'b.db'}", "auto")
    assert "in a process" not in again


def _recording_processes(pid: int) -> list[int]:
    """The processes ``pid`` spawned to record ."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(fields[1]) == pid and b"headwater.cli.record_process" in command:
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the recording process through /proc")
def test_a_killed_recording_process_is_one_line_and_keeps_what_it_committed(tmp_path: Path) -> None:
    script = tmp_path / "big.sql"
    script.write_text("".join(f"INSERT INTO db.t{i % 40} SELECT a + {i} AS a FROM db.s{i % 7};\n" for i in range(3000)))
    url = f"sqlite:///{tmp_path / 'w.db'}"
    command = [sys.executable, "-m", "headwater.cli.main", "ingest", str(script), "--store", url]
    child = subprocess.Popen(
        [*command, "--recorder", "process", "--batch", "50"],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while _recorded(url) < 100:
            assert child.poll() is None, child.communicate()[0]
            assert time.monotonic() < deadline, "nothing recorded"
            time.sleep(0.05)
        recording = _recording_processes(child.pid)
        assert len(recording) == 1, recording
        os.kill(recording[0], signal.SIGKILL)
        out, _ = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 1, out
    lines = [line for line in out.splitlines() if "recording process" in line]
    assert lines == [
        "error: the recording process stopped (killed by SIGKILL); what it committed stays, and the same "
        "command continues"
    ], out
    assert "Traceback" not in out
    kept = _recorded(url)
    assert 100 <= kept < 3000
    again = subprocess.run(command, env=_env(), capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _recorded(url) == 3000


def test_the_recording_process_ends_with_its_pipe(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    from headwater.store import open_store

    open_store(url)  # the schema, as ingest makes it before the child starts
    proc = RecordingProcess(url, open_store(url).naming, 10)
    child = proc._process
    assert child.poll() is None
    proc.close()
    assert child.returncode == 0


def _payloads(url: str) -> list[str]:
    import sqlalchemy as sa

    from headwater.store.schema import event_document, events

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(events.c.payload, events.c.payload_zlib)).all()
    finally:
        engine.dispose()
    return [event_document(*row) or "" for row in rows]


def test_a_process_keeps_no_secret_of_a_statement_or_of_a_producers_event(tmp_path: Path) -> None:
    """Extraction redacts each event it makes, and the recording process takes its word for it (no
    second scan); an event read from a file is not taken at its word: the process redacts it."""
    script = tmp_path / "load.sql"
    script.write_text("INSERT INTO db.t SELECT a, 'postgres://etl:hunter2@db/x' AS dsn FROM db.s;\n")
    extracted = CliRunner().invoke(app, ["extract", str(script), "--format", "jsonl"])
    assert extracted.exit_code == 0, extracted.output
    assert "hunter2" not in extracted.output and "***" in extracted.output
    producer = tmp_path / "producer.jsonl"  # the same event as a producer that does not redact sends it
    document = json.loads(extracted.output.splitlines()[0])
    document["event_id"] = "from-a-producer"
    producer.write_text(json.dumps(document).replace("***", "hunter2") + "\n")
    assert "hunter2" in producer.read_text()
    url = f"sqlite:///{tmp_path / 'w.db'}"
    result = CliRunner().invoke(app, ["ingest", str(script), str(producer), "--store", url, "--recorder", "process"])
    assert result.exit_code == 0, result.output
    payloads = _payloads(url)
    assert len(payloads) == 2
    assert not any("hunter2" in p for p in payloads) and all("etl:***@db" in p for p in payloads)
