"""``headwater demo --serve``: the demo's lineage in a fresh store, served with the explorer.

The demo event (the Doris guide's example, from ``headwater.cli.extract_cmd.run_demo``) is recorded
into a new SQLite store in a temporary directory, so the user's own store is never touched; the
explorer then opens on ``lineage_customer_summary``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from headwater.service.app import create_app
from headwater.service.server import check_bind
from headwater.store import LineageStore, open_store

DEMO_DATASET = "lineage_customer_summary"


def demo_store(directory: str | Path) -> LineageStore:
    """A new store under ``directory`` holding the demo's event(s)."""
    from headwater.cli.extract_cmd import run_demo

    path = Path(directory) / "demo-lineage.db"
    store = open_store(f"sqlite:///{path}")
    store.record_batch(run_demo().events)
    return store


def demo_url(store: LineageStore, host: str, port: int) -> str:
    """The explorer's address, opened on the demo's target table."""
    root = store.resolve(DEMO_DATASET)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return f"http://{shown}:{port}/#/node/{root.id}"


def serve_demo(host: str = "127.0.0.1", port: int = 8077, log_level: str = "info") -> None:
    """Record the demo into a fresh store and serve the API and the explorer until interrupted.

    Binds only where ``headwater serve`` would without tokens (loopback); raises ``UnsafeBind`` otherwise.
    """
    import uvicorn

    check_bind(host, {})
    with tempfile.TemporaryDirectory(prefix="headwater-demo-") as tmp:
        store = demo_store(tmp)
        print(f"headwater demo: explorer at {demo_url(store, host, port)}  (Ctrl+C to stop)", flush=True)
        try:
            uvicorn.run(create_app(store), host=host, port=port, log_level=log_level)
        finally:
            store.close()
