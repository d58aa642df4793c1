"""``headwater serve``: run the API with uvicorn; refuses a non-loopback bind without tokens."""

from __future__ import annotations

from headwater.service.app import create_app
from headwater.service.auth import Tokens, is_loopback
from headwater.store import open_store


class UnsafeBind(RuntimeError):
    """Binding beyond loopback without any token configured."""


def check_bind(host: str, tokens: Tokens) -> None:
    if not tokens and not is_loopback(host):
        raise UnsafeBind(
            f"refusing to serve on {host} without tokens: configure read/write tokens "
            "($HEADWATER_TOKENS or --tokens-file) or bind to 127.0.0.1"
        )


def serve(
    store_url: str | None,
    host: str = "127.0.0.1",
    port: int = 8077,
    tokens: Tokens | None = None,
    log_level: str = "info",
) -> None:
    import uvicorn

    tokens = dict(tokens or {})
    check_bind(host, tokens)
    from headwater.dispatch.settings import load_naming  # [openlineage] of headwater.toml, for POST /lineage

    store = open_store(store_url, naming=load_naming())
    uvicorn.run(create_app(store, tokens), host=host, port=port, log_level=log_level)
