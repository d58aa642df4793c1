"""``headwater serve --workers N``: several server processes on one port, each with its own pool,
answer like one: what a write through one of them records, every one of them then answers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.service.conftest import free_port
from tests.store.conftest import copy_event

from headwater.model import event_to_dict
from headwater.service.workers import check_workers, tcp_socket


def _workers(pid: int) -> list[int]:
    """The worker processes ``pid`` spawned (children running multiprocessing's spawn_main)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if ppid == pid and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.fixture
def served(store_url: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``headwater serve --workers 2`` over the store, until its two workers answer."""
    port = free_port()
    cmd = [sys.executable, "-c", "from headwater.cli.main import app; app()", "serve", "--store", store_url]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "HEADWATER_TOKENS": ""},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):  # each worker imports and opens the store: slow on a loaded machine
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield base, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)


def test_two_workers_answer_every_read_with_what_was_written(served: tuple[str, subprocess.Popen[bytes]]) -> None:
    base, proc = served
    for k in range(3):
        event = copy_event(f"copy_{k}", {"a": [("src", "a")]}, query_id=f"q{k}")
        assert httpx.post(f"{base}/api/v1/events", json=event_to_dict(event), timeout=60).status_code == 201
        # a new connection each time: the kernel hands connections to either worker
        for _ in range(8):
            r = httpx.get(f"{base}/api/v1/field-impact", params={"field": "src.a"}, timeout=60)
            assert r.status_code == 200
            assert sorted(i["field"]["short"] for i in r.json()["impacted"]) == [f"copy_{j}.a" for j in range(k + 1)]
    workers = _workers(proc.pid)
    assert len(workers) == 2
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0
    assert not any(Path(f"/proc/{w}").exists() for w in workers)


def test_workers_over_an_in_memory_store_are_refused() -> None:
    with pytest.raises(ValueError, match="in-memory store is one per process"):
        check_workers("sqlite://", 2)
    check_workers("sqlite://", 1)


def test_the_workers_socket_is_tcp_so_that_responses_are_not_delayed() -> None:
    """asyncio sets TCP_NODELAY on the connections of a TCP-protocol socket only; uvicorn binds with
    protocol 0, and keep-alive answers of the workers then waited ~40 ms each (Nagle, delayed ACK)."""
    bound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # as uvicorn's bind_socket makes it
    bound.bind(("127.0.0.1", 0))
    sock = tcp_socket(bound)
    sock.listen()
    with sock, socket.create_connection(sock.getsockname()):
        conn, _ = sock.accept()
        with conn:
            assert sock.proto == conn.proto == socket.IPPROTO_TCP
            assert sock.get_inheritable()
