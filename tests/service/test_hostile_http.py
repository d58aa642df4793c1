"""Over real HTTP on loopback: the CSRF / DNS-rebinding checks (Host, Origin, Sec-Fetch-Site,
Content-Type, CORS off by default) and the connection limits against slow clients (slowloris)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from tests.service.conftest import running
from tests.store.conftest import guide

from headwater.model import event_to_json
from headwater.service import create_app
from headwater.service.guard import HttpPolicy
from headwater.service.http_limits import ServerLimits
from headwater.store import LineageStore


@pytest.fixture
def loopback(api_store: LineageStore) -> Iterator[tuple[str, LineageStore]]:
    """``headwater serve`` as on loopback without tokens: the default policy of a loopback bind."""
    with running(create_app(api_store, None, HttpPolicy.for_bind("127.0.0.1"))) as url:
        yield url, api_store


BODY = event_to_json(guide())


def _events(store: LineageStore) -> int:
    return store.get_lineage_stats().events_recorded


def test_cross_site_and_rebinding_requests_are_refused(loopback: tuple[str, LineageStore]) -> None:
    url, store = loopback
    post = f"{url}/api/v1/events"
    attacks = [  # (headers, status, field): what the curl and a web page can send
        (
            {"Content-Type": "text/plain", "Origin": "http://evil.example", "Host": "attacker.example"},
            400,
            "header.host",
        ),
        ({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403, "header.origin"),
        ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403, "header.origin"),
        ({"Content-Type": "application/json", "Origin": "null"}, 403, "header.sec-fetch-site"),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403, "header.sec-fetch-site"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "header.content-type"),
        ({"Content-Type": "text/plain"}, 415, "header.content-type"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, 415, "header.content-type"),
    ]
    for headers, status, field in attacks:
        r = httpx.post(post, content=BODY, headers=headers)
        assert (r.status_code, r.json()["error"]["field"]) == (status, field), (headers, r.text)
    r = httpx.get(f"{url}/api/v1/stats", headers={"Host": "rebound.example:8077"})  # DNS rebinding: no read
    assert r.status_code == 400 and r.json()["error"] == {
        "field": "header.host",
        "message": "host 'rebound.example:8077' is not served here (allowed: 127.0.0.1, ::1, localhost)",
    }
    r = httpx.delete(f"{url}/api/v1/lineage", params={"dataset": "x"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert _events(store) == 0

    # what producers and the explorer send is accepted: JSON, same origin, any loopback name
    assert httpx.post(post, content=BODY, headers={"Content-Type": "application/json"}).status_code == 201
    port = url.rsplit(":", 1)[1]
    same = {"Content-Type": "application/json; charset=utf-8", "Origin": url, "Sec-Fetch-Site": "same-origin"}
    assert httpx.post(post, content=BODY, headers=same).json()["duplicates"] == 1
    assert httpx.get(f"{url}/api/v1/stats", headers={"Host": f"localhost:{port}"}).status_code == 200
    assert _events(store) == 1
    # CORS is off: a preflight gets no Access-Control-Allow-Origin
    r = httpx.options(post, headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in r.headers


def test_cors_and_extra_host_names_are_configurable(api_store: LineageStore) -> None:
    policy = HttpPolicy.for_bind("127.0.0.1", ["lineage.internal"], ["https://portal.example"])
    with running(create_app(api_store, None, policy)) as url:
        pre = {"Origin": "https://portal.example", "Access-Control-Request-Method": "POST"}
        r = httpx.options(f"{url}/api/v1/events", headers={**pre, "Access-Control-Request-Headers": "content-type"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://portal.example"
        r = httpx.post(
            f"{url}/api/v1/events",
            content=BODY,
            headers={
                "Content-Type": "application/json",
                "Origin": "https://portal.example",
                "Sec-Fetch-Site": "cross-site",
            },
        )
        assert r.status_code == 201 and r.headers["access-control-allow-origin"] == "https://portal.example"
        assert httpx.get(f"{url}/api/v1/health", headers={"Host": "lineage.internal"}).status_code == 200
        r = httpx.post(
            f"{url}/api/v1/events",
            content=BODY,
            headers={"Content-Type": "application/json", "Origin": "https://other.example"},
        )
        assert r.status_code == 403


def _closed(sock: socket.socket, until: float) -> bool:
    """True once the server closed ``sock`` (read returns EOF or the connection is reset)."""
    sock.settimeout(0.2)
    while time.monotonic() < until:
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_slow_clients_are_closed_and_bounded(api_store: LineageStore) -> None:
    limits = ServerLimits(header_timeout=1.0, body_timeout=1.0, keep_alive_timeout=1, max_connections=20)
    with running(create_app(api_store), limits) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = []
        for k in range(30):  # 30 slowloris connections against a limit of 20
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(
                b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" if k % 2 else b"POST /api/v1/events HTTP/1.1\r\n"
            )
            slow.append(s)
        body = socket.create_connection(("127.0.0.1", port), timeout=5)  # a slow body after complete headers
        body.sendall(
            b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        deadline = time.monotonic() + 30  # a bound on the wait, far above the 1 s limits
        try:
            assert all(_closed(s, deadline) for s in slow), "a slow client was left open"
            assert _closed(body, deadline), "a slow body was left open"
        finally:
            for s in [*slow, body]:
                s.close()
        r = httpx.get(f"{url}/api/v1/health", timeout=10)  # the server serves again
        assert r.status_code == 200
        with httpx.Client(timeout=10) as client:  # keep-alive works for normal clients
            assert [client.get(f"{url}/api/v1/health").status_code for _ in range(3)] == [200, 200, 200]
