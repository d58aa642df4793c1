"""Issue 37 item 3: slow clients that reconnect as soon as they are closed hold no more than their
share of the server: a bounded attack on 127.0.0.1 (trickling sockets, more than the server's
connection limit, for a few seconds) while ``/health`` is asked, and answered, throughout."""

from __future__ import annotations

import contextlib
import selectors
import socket
import time

import pytest

from headwater.service import create_app
from headwater.service.http_limits import ServerLimits
from headwater.store import LineageStore
from tests.service.conftest import running

LIMITS = ServerLimits(header_timeout=30.0, body_timeout=30.0, max_connections=40, max_client_connections=20)
HEALTH = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def _health(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(HEALTH)
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def attack(port: int, sockets: int, rounds: int, opening: bytes, trickle: bytes) -> tuple[int, int, int]:
    """``sockets`` connections that send ``opening`` then ``trickle`` every 0.1 s and reconnect when
    closed, for ``rounds`` rounds of 0.1 s, a health check every 5 rounds: (answered, asked, made)."""
    sel = selectors.DefaultSelector()
    made = 0

    def connect() -> None:
        nonlocal made
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        sel.register(s, selectors.EVENT_READ)
        made += 1
        with contextlib.suppress(OSError):
            s.send(opening)

    for _ in range(sockets):
        connect()
    answered = asked = 0
    try:
        for n in range(rounds):
            if n % 5 == 4:
                asked += 1
                answered += _health(port)
            for key, _ in sel.select(timeout=0.1):
                s = key.fileobj
                try:
                    closed = not s.recv(4096)  # type: ignore[union-attr]
                except OSError:
                    closed = True
                if closed:
                    sel.unregister(s)
                    s.close()  # type: ignore[union-attr]
                    connect()
            for key in list(sel.get_map().values()):
                with contextlib.suppress(OSError):
                    key.fileobj.send(trickle)  # type: ignore[union-attr]
    finally:
        for key in list(sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        sel.close()
    return answered, asked, made


@pytest.mark.parametrize(
    ("opening", "trickle"),
    [
        (b"GET /api/v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-a: b\r\n"),  # headers never end
        (b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n[", b" "),  # slow body
    ],
    ids=["headers", "body"],
)
def test_health_answers_while_slow_clients_reconnect(api_store: LineageStore, opening: bytes, trickle: bytes) -> None:
    with running(create_app(api_store), LIMITS) as url:
        port = int(url.rsplit(":", 1)[1])
        time.sleep(0.2)
        answered, asked, made = attack(port, sockets=60, rounds=40, opening=opening, trickle=trickle)
    assert made >= 60 and asked == 8
    said = f"{answered} of {asked} health checks answered ({made} attacking connections)"
    if opening.startswith(b"GET"):
        # before the limits none was answered (0 of 60); the checks race the attackers of the same
        # address for its share, so a loaded machine loses one or two (6 of 8 seen at load 10)
        assert answered >= asked // 2, said
    else:
        # slow bodies: each closed one reconnects at once, and the health checks come from the same
        # address, so some lose the race for the address's share (6 of 8 on 2026-12-07; 0 before)
        assert answered >= asked // 4, said


def test_one_client_holds_at_most_its_share(api_store: LineageStore) -> None:
    """20 connections from one address that never finish their headers: the 21st takes the place of
    the oldest, which is closed (the address never holds more than ``max_client_connections``)."""
    with running(create_app(api_store), LIMITS) as url:
        port = int(url.rsplit(":", 1)[1])
        held = []
        for _ in range(21):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /api/v1/stats HTTP/1.1\r\n")
            held.append(s)
            time.sleep(0.02)
        try:
            held[0].settimeout(5)
            assert held[0].recv(10) == b""  # the oldest was closed
            assert _health(port)
        finally:
            for s in held:
                s.close()
