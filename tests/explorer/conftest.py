"""Browser tests of the explorer: Debian's chromium driven by Playwright for Python, against a
real uvicorn server on 127.0.0.1 and a random port, over the demo store and a 500-node synthetic one.

No browser is downloaded: the tests use ``/usr/bin/chromium`` (``apt-get install chromium``) and
are skipped when it or the ``playwright`` package is missing. A failing browser test leaves a
screenshot under ``test-artifacts/explorer/``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.service.demo import demo_store
from tests.explorer.helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, Server, serve_events
from tests.explorer.synthetic import synthetic_events


@pytest.fixture(scope="session")
def demo_server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="hw-explorer-demo-") as tmp:
        store = demo_store(tmp)
        with Server(store) as srv:
            yield srv
        store.close()


@pytest.fixture(scope="session")
def big_server() -> Iterator[Server]:
    with serve_events(synthetic_events(), "big") as srv:
        yield srv


@pytest.fixture(scope="session")
def browser_context() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="browser test: pip package playwright is not installed"
    )
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"browser test: Chromium is not installed ({CHROMIUM} not found; apt-get install chromium)")
    with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory(prefix="hw-chromium-") as profile:
        ctx = p.chromium.launch_persistent_context(
            profile,  # a fresh user-data-dir
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1500, "height": 900},
        )
        ctx.set_default_timeout(15_000)
        yield ctx
        ctx.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture
def page(browser_context: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page. On failure a full-page screenshot is kept; JavaScript errors fail a passing test."""
    pg = browser_context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    expected = "the server responded with a status of 401"  # a token is asked for: not a page error

    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" and expected not in m.text else None)
    yield pg
    failed = any(
        getattr(request.node, f"rep_{w}", None) is not None and getattr(request.node, f"rep_{w}").failed
        for w in ("setup", "call")
    )
    if failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    pg.close()
    if not failed:
        assert errors == [], f"JavaScript errors: {errors}"
