"""Request checks against CSRF and DNS rebinding, as pure ASGI middleware (``HttpPolicy``).

A server on loopback without tokens is open to any program of the machine, and so to any web page
the user's browser shows, unless it checks what a browser cannot forge:

- ``Host`` must be one of the names the server is bound to (``allowed_hosts``): a page that
  rebinds its own DNS name to 127.0.0.1 still sends its own name, and is refused (400).
- A write (POST, PUT, PATCH, DELETE) is refused (403) when the browser marks it cross-site
  (``Sec-Fetch-Site: cross-site`` / ``same-site``) or when its ``Origin`` is neither the server's
  own nor one of ``cors_origins``.
- A write's ``Content-Type``, when given, must be ``application/json`` (or ``application/x-ndjson``,
  or a ``+json`` type): the forms and ``text/plain`` bodies a page can send without asking are
  refused (415).
- CORS is off unless ``cors_origins`` lists origins; then those (and only those) get the CORS
  headers, preflight included.

Before the app reads a byte of a body (the first time it asks for one: routing is done by then):

- with tokens, the route's token check runs (401 / 403) on the headers alone;
- a body is at most ``max_body`` bytes (``DEFAULT_MAX_BODY``, 16 MiB): a larger ``Content-Length`` is
  refused at once (413), and a body without one (chunked) is counted as it arrives and refused (413)
  when it passes the limit, so the app never holds more than ``max_body`` bytes of it.

Every refusal is ``{"error": {"field", "message"}}`` like the API's other errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect, Request

from headwater.service.auth import is_loopback
from headwater.service.errors import ApiError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPES = ("application/json", "application/x-ndjson")
DEFAULT_MAX_BODY = 16 * 1024 * 1024
"""Bytes a request body may hold (``headwater serve --max-body-mb``): a batch of a few thousand
events. Decoding JSON takes some 40 times its size in memory, so this bounds a request's memory too."""


class BodyRefused(Exception):
    """Raised from the app's ``receive`` when its body may not be read (no valid token, too large)."""


@dataclass(frozen=True)
class HttpPolicy:
    """What the server accepts. ``allowed_hosts`` None accepts any ``Host`` (the default of
    ``create_app``; ``headwater serve`` sets the names it is bound to)."""

    allowed_hosts: frozenset[str] | None = None
    cors_origins: tuple[str, ...] = ()
    max_body: int = DEFAULT_MAX_BODY

    @classmethod
    def for_bind(
        cls,
        host: str,
        allowed_hosts: Collection[str] = (),
        cors_origins: Collection[str] = (),
        max_body: int = DEFAULT_MAX_BODY,
    ) -> HttpPolicy:
        """The policy of a server bound to ``host``: its loopback names when it is loopback, the
        name itself otherwise (any name for a wildcard bind, ``0.0.0.0``/``::``, unless given),
        plus ``allowed_hosts``.

        >>> sorted(HttpPolicy.for_bind("127.0.0.1").allowed_hosts)
        ['127.0.0.1', '::1', 'localhost']
        >>> HttpPolicy.for_bind("0.0.0.0").allowed_hosts is None
        True
        >>> sorted(HttpPolicy.for_bind("0.0.0.0", ["lineage.example"]).allowed_hosts)
        ['lineage.example']
        """
        names = {h.lower().strip("[]") for h in allowed_hosts}
        if is_loopback(host):
            names |= {*LOOPBACK_NAMES, host.lower()}
        elif host not in ("0.0.0.0", "::", ""):
            names.add(host.lower().strip("[]"))
        elif not names:
            return cls(None, tuple(cors_origins), max_body)
        return cls(frozenset(names), tuple(o.rstrip("/") for o in cors_origins), max_body)


def host_name(host: str) -> str:
    """The name of a ``Host`` header, without its port; empty for a header that is no host and port
    (``127.0.0.1:8077@evil.example``, a path, spaces), which no policy allows.

    >>> host_name("127.0.0.1:8077"), host_name("[::1]:8077"), host_name("LocalHost")
    ('127.0.0.1', '::1', 'localhost')
    >>> host_name("127.0.0.1:8077@evil.example"), host_name("127.0.0.1/x"), host_name("127.0.0.1:80:80")
    ('', '', '')
    """
    m = _HOST.fullmatch(host.strip().lower())
    if m is None:
        return ""
    return m["v6"] or m["name"]


_HOST = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+(?:%[\w.\-]+)?)\]|(?P<name>[a-z0-9._\-]+))(?::\d{1,5})?")


class RequestGuard:
    """The ASGI middleware enforcing an ``HttpPolicy`` before the app sees a request (the headers),
    and before it reads a request's body (the token check, the size)."""

    def __init__(self, app: ASGIApp, policy: HttpPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        refusal = self.refusal(scope["method"], headers)
        if refusal is not None:
            await _refuse(send, *refusal, close="content-length" in headers or "transfer-encoding" in headers)
            return
        limit = self.policy.max_body
        received = 0
        refused: tuple[int, str, str] | None = None
        checked = started = False

        async def limited() -> MutableMapping[str, Any]:
            nonlocal received, refused, checked
            if not checked:  # the first read of the body: may it be read?
                checked = True
                refused = _unauthorized(scope) or self.too_large(headers)
                if refused is not None:
                    raise BodyRefused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = self._too_large()
                    raise BodyRefused
            return message

        async def sending(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if refused is not None:  # the app's answer to a body it could not read: the refusal replaces it
                return
            started = True
            await send(message)

        try:
            await self.app(scope, limited, sending)
        except ClientDisconnect:
            return  # the client left (or the server closed a slow one) before its body was read: nobody to answer
        except Exception:
            if refused is None:
                raise
        if refused is not None and not started:
            await _refuse(send, *refused, close=True)

    def _too_large(self) -> tuple[int, str, str]:
        return 413, "body", f"the body is larger than {self.policy.max_body} bytes (the server's --max-body-mb)"

    def too_large(self, headers: dict[str, str]) -> tuple[int, str, str] | None:
        """413 for a ``Content-Length`` over the limit, before a byte of the body is read."""
        length = headers.get("content-length", "").strip()
        if length.isdigit() and int(length) > self.policy.max_body:
            return self._too_large()
        return None

    def refusal(self, method: str, headers: dict[str, str]) -> tuple[int, str, str] | None:
        """``(status, field, message)`` of a refused request, None for an accepted one."""
        allowed = self.policy.allowed_hosts
        host = headers.get("host", "")
        if allowed is not None and host_name(host) not in allowed:
            return 400, "header.host", f"host {host!r} is not served here (allowed: {', '.join(sorted(allowed))})"
        if method not in WRITE_METHODS:
            return None
        site = headers.get("sec-fetch-site", "").lower()
        origin = headers.get("origin")
        if origin is not None and origin != "null":
            own = origin.split("://", 1)[-1].lower() == host.lower()
            if not own and origin.rstrip("/") not in self.policy.cors_origins:
                return 403, "header.origin", f"cross-origin write from {origin!r} refused"
        elif origin == "null" or site in ("cross-site", "same-site"):
            return 403, "header.sec-fetch-site", "cross-site write refused"
        ctype = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        # no type at all is no browser form (and a browser's cross-site write was refused above)
        if ctype and ctype not in JSON_TYPES and not ctype.endswith("+json"):
            return 415, "header.content-type", f"expected Content-Type: application/json, not {ctype!r}"
        return None


def _unauthorized(scope: Scope) -> tuple[int, str, str] | None:
    """The 401 / 403 of the route's token check (``deps.require``: routing has matched the route by
    the time the app reads the body), from the headers alone."""
    for dep in getattr(scope.get("route"), "dependencies", ()):
        check = getattr(dep.dependency, "check", None) if getattr(dep.dependency, "is_scope_check", False) else None
        if check is not None:
            try:
                check(Request(scope))
            except ApiError as err:
                return err.status, err.field, err.message
    return None


async def _refuse(send: Send, status: int, name: str, message: str, close: bool = False) -> None:
    """Answer ``{"error": {"field", "message"}}`` with ``status``; ``close``: and close the connection
    (a body the client may still be sending is never read)."""
    body = json.dumps({"error": {"field": name, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
