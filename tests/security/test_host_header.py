"""Issue 37 item 8: the ``Host`` check accepts a host and port only: a userinfo-like suffix
(``127.0.0.1:PORT@evil.example``) or any other junk after an allowed name is refused."""

from __future__ import annotations

import httpx
import pytest

from headwater.service import create_app
from headwater.service.guard import HttpPolicy
from headwater.store import LineageStore
from tests.service.conftest import running


def test_a_host_with_a_suffix_after_the_port_is_refused(api_store: LineageStore) -> None:
    with running(create_app(api_store, None, HttpPolicy.for_bind("127.0.0.1"))) as url:
        port = url.rsplit(":", 1)[1]
        for host in (f"127.0.0.1:{port}@evil.example", f"localhost:{port}@evil.example", "127.0.0.1 evil.example"):
            r = httpx.get(f"{url}/api/v1/stats", headers={"Host": host})
            assert r.status_code == 400 and r.json()["error"]["field"] == "header.host", (host, r.text)
        for host in (f"127.0.0.1:{port}", "localhost", f"[::1]:{port}"):
            assert httpx.get(f"{url}/api/v1/stats", headers={"Host": host}).status_code == 200, host


@pytest.mark.parametrize("host", ["127.0.0.1:8077@evil.example", "127.0.0.1:1:2", "127.0.0.1/x", "evil.example"])
def test_the_guard_refuses_hosts_that_are_no_allowed_name(host: str) -> None:
    from headwater.service.guard import RequestGuard

    guard = RequestGuard(lambda *a: None, HttpPolicy.for_bind("127.0.0.1"))  # type: ignore[arg-type,return-value]
    assert guard.refusal("GET", {"host": host}) is not None
