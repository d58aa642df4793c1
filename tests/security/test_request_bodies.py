"""Issue 37 item 2: a request body is bounded (``HttpPolicy.max_body``, ``--max-body-mb``; 16 MiB by
default) and refused with 413 from its ``Content-Length`` or while it streams; with tokens, a request
without a valid one is refused (401 / 403) before a byte of its body is read, on every route."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

from headwater.service import create_app
from headwater.service.guard import DEFAULT_MAX_BODY, HttpPolicy
from headwater.store import LineageStore
from tests.service.conftest import running

V1 = "/api/v1"
TOKENS = {"w0": frozenset({"read", "write"}), "r0": frozenset({"read"})}
WRITES = ["/events", "/lineage", "/record"]
READS_WITH_BODY = ["/analyze-impact", "/explorer/columns", "/explorer/column-index"]
TOO_LARGE = {"field": "body", "message": "the body is larger than 1000 bytes (the server's --max-body-mb)"}


class Counted:
    """A streamed body (no Content-Length) that counts the chunks the server took."""

    def __init__(self, chunks: int, size: int = 400) -> None:
        self.chunks, self.size, self.sent = chunks, size, 0

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(self.chunks):
            self.sent += 1
            yield b" " * self.size


def asgi_post(app: Any, path: str, body: Counted, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """POST ``body`` to ``app`` through ASGI itself, a chunk per ``receive``: ``body.sent`` counts the
    chunks the app asked for (a test client reads a body whole before the app sees it)."""
    chunks = iter(body)
    answer: dict[str, Any] = {"body": b""}

    async def receive() -> dict[str, Any]:
        chunk = next(chunks, None)
        return {"type": "http.request", "body": chunk or b"", "more_body": chunk is not None}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
        else:
            answer["body"] += message.get("body", b"")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8077),
    }
    # A thread of its own: a session-wide browser fixture (tests/explorer) keeps an event loop
    # running in the main thread for the rest of the run, and anyio.run refuses to nest in one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(anyio.run, app, scope, receive, send).result()
    return answer["status"], json.loads(answer["body"])


def test_the_default_limit_is_16_mib() -> None:
    assert HttpPolicy().max_body == DEFAULT_MAX_BODY == 16 * 1024 * 1024
    assert HttpPolicy.for_bind("127.0.0.1", max_body=5).max_body == 5


@pytest.mark.parametrize("path", WRITES + READS_WITH_BODY)
def test_a_large_content_length_is_refused_before_the_body(api_store: LineageStore, path: str) -> None:
    with TestClient(create_app(api_store, policy=HttpPolicy(max_body=1000))) as c:
        r = c.post(V1 + path, content=b" " * 20000)
        assert (r.status_code, r.json()["error"]) == (413, TOO_LARGE)
        assert r.headers["connection"] == "close"
    body = Counted(50)
    app = create_app(api_store, policy=HttpPolicy(max_body=1000))
    status, answer = asgi_post(app, V1 + path, body, {"Content-Length": "20000"})
    assert (status, answer["error"], body.sent) == (413, TOO_LARGE, 0)


@pytest.mark.parametrize("path", WRITES + READS_WITH_BODY)
def test_a_streamed_body_is_refused_when_it_passes_the_limit(api_store: LineageStore, path: str) -> None:
    app = create_app(api_store, TOKENS, HttpPolicy(max_body=1000))
    body = Counted(50)
    status, answer = asgi_post(app, V1 + path, body, {"Authorization": "Bearer w0", "Host": "127.0.0.1"})
    assert (status, answer["error"], body.sent) == (413, TOO_LARGE, 3)  # read up to the limit, not 20 kB
    assert api_store.get_lineage_stats().events_recorded == 0


def test_a_body_within_the_limit_is_read(api_store: LineageStore) -> None:
    with TestClient(create_app(api_store, policy=HttpPolicy(max_body=1000))) as c:
        r = c.post(f"{V1}/analyze-impact", content=Counted(2, 100), headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["field"] == "body"  # read, and not JSON


@pytest.mark.parametrize("path", WRITES + READS_WITH_BODY)
def test_no_body_is_read_without_a_valid_token(api_store: LineageStore, path: str) -> None:
    app = create_app(api_store, TOKENS)
    for headers, status in (({}, 401), ({"Authorization": "Bearer nope"}, 401)):
        body = Counted(50)
        got, answer = asgi_post(app, V1 + path, body, {**headers, "Content-Type": "application/json"})
        assert (got, answer["error"]["field"], body.sent) == (status, "header.authorization", 0)
    if path in WRITES:
        body = Counted(50)
        got, answer = asgi_post(app, V1 + path, body, {"Authorization": "Bearer r0"})
        assert (got, answer["error"]["message"], body.sent) == (403, "this token lacks the 'write' scope", 0)


def test_over_http_a_declared_100_mb_body_is_refused_at_once(api_store: LineageStore) -> None:
    """Over a real socket (``headwater serve``'s uvicorn): the 413 comes from the headers alone, so a
    client that sent none of its 100 MB reads the answer, and the connection is closed."""
    with running(create_app(api_store, TOKENS)) as url:
        port = int(url.rsplit(":", 1)[1])
        for auth, status in ((b"", b"401"), (b"Authorization: Bearer w0\r\n", b"413")):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(
                    b"POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + auth
                    + b"Content-Length: 100000000\r\n\r\n["
                )
                answer = b""
                while chunk := s.recv(65536):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 " + status), answer  # and the server closed the connection
