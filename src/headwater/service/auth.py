"""Bearer tokens with ``read`` and ``write`` scopes, from configuration.

Configuration is ``token:scope[,scope]`` entries separated by ``;`` or new lines (``$HEADWATER_TOKENS``
or a file given to ``headwater serve --tokens-file``); ``#`` starts a comment that runs to the end of its
line, ``;`` included. An entry without scopes gets ``read``. A token is visible ASCII (it must fit in
an ``Authorization: Bearer`` header: no spaces) and is given once; anything else is refused, naming
the line.

>>> {token: sorted(scopes) for token, scopes in parse_tokens("abc:read,write; r0:read").items()}
{'abc': ['read', 'write'], 'r0': ['read']}
>>> sorted(parse_tokens("w0:write  # producers: POST; DELETE"))
['w0']
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


def parse_tokens(text: str, source: str = "tokens") -> dict[str, frozenset[str]]:
    """The tokens in ``text``; a malformed entry raises ``ValueError`` naming ``source`` and the line
    (not the token, which is a secret)."""
    out: dict[str, frozenset[str]] = {}
    lines: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        for raw in line.split("#", 1)[0].split(";"):
            entry = raw.strip()
            if not entry:
                continue
            token, _, scopes = entry.partition(":")
            token = token.strip()
            wanted = frozenset(s.strip() for s in (scopes or "read").split(",") if s.strip())
            unknown = wanted - SCOPES
            why = ""
            if not token:
                why = "no token before ':'"
            elif not all("!" <= c <= "~" for c in token):
                why = "a token holds visible ASCII characters only, no spaces (it must fit in a Bearer header)"
            elif token in lines:
                why = f"the token is given twice (first on line {lines[token]}): give all its scopes in one entry"
            elif unknown:
                why = f"unknown scope {sorted(unknown)[0]!r} (scopes are read, write)"
            elif not wanted:
                why = "no scope after ':' (scopes are read, write)"
            if why:
                raise ValueError(f"{source}, line {n}: bad token entry: {why}")
            out[token] = wanted
            lines[token] = n
    return out


def load_tokens(path: str | Path | None = None) -> dict[str, frozenset[str]]:
    """Tokens from ``path``, else from ``$HEADWATER_TOKENS``; empty when neither is set.

    ``ValueError`` (which ``headwater serve`` reports as ``error: …``, exit 2) when the file cannot be
    read or holds a malformed entry."""
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read tokens file {str(path)!r}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"cannot read tokens file {str(path)!r}: not UTF-8 text (byte {exc.start})") from None
        return parse_tokens(text, str(path))
    return parse_tokens(os.environ.get(ENV_VAR, ""), f"${ENV_VAR}")


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
