"""Shared pieces of the explorer's browser tests: the chromium command line and a uvicorn server."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from headwater.service import create_app
from headwater.store import LineageStore, open_store

CHROMIUM = os.environ.get("HEADWATER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "explorer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """uvicorn in a thread on 127.0.0.1 and a random port, serving ``create_app(store)``."""

    def __init__(self, store: LineageStore, tokens: dict[str, frozenset[str]] | None = None) -> None:
        self.store = store
        self.port = free_port()
        config = uvicorn.Config(create_app(store, tokens), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        self.thread.start()
        for _ in range(400):
            if self.server.started:
                return self
            time.sleep(0.025)
        raise RuntimeError("uvicorn did not start")

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@contextmanager
def serve_events(events: Iterable[Any], name: str) -> Iterator[Server]:
    """A ``Server`` over a new SQLite store (in a temporary directory) holding ``events``."""
    with tempfile.TemporaryDirectory(prefix=f"hw-explorer-{name}-") as tmp:
        store = open_store(f"sqlite:///{tmp}/{name}.db")
        store.record_batch(list(events))
        with Server(store) as srv:
            yield srv
        store.close()


def whole_graph_svg(page: Any) -> str:
    """The SVG export of the page's whole graph (every card, at scale 1), as the export menu makes it."""
    return str(
        page.evaluate(
            """async () => {
                const { graphSvg } = await import('/js/export.js');
                const g = window.headwater.graph;
                return g.whole(() => graphSvg(document.getElementById('graph'), g.bounds).text);
            }"""
        )
    )
