"""Connection limits for ``headwater serve`` (uvicorn's h11 protocol with timeouts it lacks).

uvicorn closes idle keep-alive connections (``timeout_keep_alive``) but waits for ever for a
request's headers and body: a client sending them a byte at a time (slowloris) holds a connection
and a file descriptor as long as it likes, and enough of them starve every other client. The
protocol here

- closes a connection whose request headers are not complete ``header_timeout`` seconds after it
  opened (or after the previous response): a total deadline, not one per byte;
- closes a connection whose body is not complete ``body_timeout`` seconds after its headers, or
  arrives slower than ``min_body_rate`` bytes a second on average once ``BODY_GRACE`` seconds passed;
- keeps at most ``max_connections`` open, and at most ``max_client_connections`` from one address.
  A connection past either limit takes the place of the one of them (of that address, for the
  second) that has waited longest for its headers or body, which is closed: a client trickling its
  requests, reconnecting as fast as it is closed, only ever holds its share, and a client that sends
  its request at once (``/health``) is served. When no connection is waiting (all are being
  answered), the new one is closed on accept, so the descriptors stay bounded.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger("headwater.serve")
BODY_GRACE = 5.0
"""Seconds a body may take before its average rate is checked against ``min_body_rate``."""


@dataclass(frozen=True)
class ServerLimits:
    """The server's connection limits (seconds and counts); ``headwater serve`` options set them."""

    header_timeout: float = 10.0
    body_timeout: float = 60.0
    keep_alive_timeout: int = 5
    max_connections: int = 256
    max_client_connections: int = 64
    min_body_rate: int = 1024

    def protocol(self) -> type[H11Protocol]:
        """An h11 protocol class for ``uvicorn.Config(http=…)`` enforcing these limits."""
        return type("LimitedH11Protocol", (LimitedH11Protocol,), {"limits": self})


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a read deadline per request and a cap on open connections."""

    limits = ServerLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for: Any = None  # h11.IDLE (headers) or h11.SEND_BODY (body)
        self._since = 0.0  # when it started waiting
        self._body_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        limits = self.limits
        if len(self.connections) > limits.max_connections and not self._evict(None):
            logger.warning("refused a connection: %d open (--max-connections)", len(self.connections) - 1)
            transport.abort()
            return
        own = sum(1 for c in self.connections if _address(c) == address)
        if address is not None and own > limits.max_client_connections and not self._evict(address):
            logger.warning("refused a connection: %d open from %s (--max-client-connections)", own - 1, address)
            transport.abort()
            return
        self._watch()

    def _evict(self, address: str | None) -> bool:
        """Close the connection (of ``address``, when given) that has waited longest for a request's
        headers or body, to make room for this one; False when none is waiting."""
        oldest: LimitedH11Protocol | None = None
        for c in self.connections:
            if (
                c is not self
                and isinstance(c, LimitedH11Protocol)
                and c._waiting_for is not None
                and (address is None or _address(c) == address)
                and (oldest is None or c._since < oldest._since)
            ):
                oldest = c
        if oldest is None:
            return False
        logger.info("closed a connection waiting for its request: its place is taken by a new one")
        oldest._cancel()
        oldest.transport.abort()
        return True

    def data_received(self, data: bytes) -> None:
        if self._waiting_for is h11.SEND_BODY:
            self._body_bytes += len(data)
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        self._cancel()  # idle now: uvicorn's keep-alive timeout takes over until the next byte
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arm the deadline of what the connection is waiting for: headers, then the body."""
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            wanted, seconds = h11.IDLE, self.limits.header_timeout
        elif state is h11.SEND_BODY:
            wanted, seconds = h11.SEND_BODY, min(BODY_GRACE, self.limits.body_timeout)
        else:
            self._cancel()
            return
        if self._waiting_for is not wanted:
            self._cancel()
            self._waiting_for = wanted
            self._since = self.loop.time()
            self._body_bytes = 0
            self._deadline = self.loop.call_later(seconds, self._expired)

    def _cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._waiting_for = None

    def _expired(self) -> None:
        waited = self.loop.time() - self._since
        if self._waiting_for is h11.SEND_BODY and waited < self.limits.body_timeout:
            if self._body_bytes >= self.limits.min_body_rate * waited:  # fast enough: look again in a second
                self._deadline = self.loop.call_later(min(1.0, self.limits.body_timeout - waited), self._expired)
                return
            what = f"body arriving slower than {self.limits.min_body_rate} bytes/s"
        else:
            what = "headers not received in time" if self._waiting_for is h11.IDLE else "body not received in time"
        self._deadline = None
        self._waiting_for = None
        if not self.transport.is_closing():
            logger.info("closed a connection: request %s", what)
            self.transport.close()


def _address(protocol: Any) -> str | None:
    client = getattr(protocol, "client", None)
    return client[0] if client else None
