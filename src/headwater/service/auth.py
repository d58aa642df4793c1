"""Bearer tokens with ``read`` and ``write`` scopes, from configuration.

Configuration is ``token:scope[,scope]`` entries separated by ``;`` or new lines (``$HEADWATER_TOKENS``
or a file given to ``headwater serve --tokens-file``); ``#`` starts a comment.

>>> {token: sorted(scopes) for token, scopes in parse_tokens("abc:read,write; r0:read").items()}
{'abc': ['read', 'write'], 'r0': ['read']}
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path

ENV_VAR = "HEADWATER_TOKENS"
SCOPES = frozenset({"read", "write"})

Tokens = Mapping[str, frozenset[str]]


def parse_tokens(text: str) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for raw in text.replace(";", "\n").splitlines():
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        token, _, scopes = entry.partition(":")
        wanted = frozenset(s.strip() for s in (scopes or "read").split(",") if s.strip())
        unknown = wanted - SCOPES
        if unknown or not token.strip():
            raise ValueError(f"bad token entry {entry!r}: scopes are read, write")
        out[token.strip()] = wanted
    return out


def load_tokens(path: str | Path | None = None) -> dict[str, frozenset[str]]:
    """Tokens from ``path``, else from ``$HEADWATER_TOKENS``; empty when neither is set."""
    if path is not None:
        return parse_tokens(Path(path).read_text(encoding="utf-8"))
    return parse_tokens(os.environ.get(ENV_VAR, ""))


def scopes_for(tokens: Tokens, header: str | None) -> frozenset[str] | None:
    """The scopes of the bearer token in an Authorization header (None: missing or unknown)."""
    if not header or not header.lower().startswith("bearer "):
        return None
    given = header[7:].strip().encode()
    for token, scopes in tokens.items():
        if hmac.compare_digest(token.encode(), given):
            return scopes
    return None


def is_loopback(host: str) -> bool:
    """
    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
