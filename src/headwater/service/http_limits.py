"""Connection limits for ``headwater serve`` (uvicorn's h11 protocol with timeouts it lacks).

uvicorn closes idle keep-alive connections (``timeout_keep_alive``) but waits for ever for a
request's headers and body: a client sending them a byte at a time (slowloris) holds a connection
and a file descriptor as long as it likes, and enough of them starve every other client. The
protocol here closes a connection whose request headers are not complete ``header_timeout``
seconds after it opened (or after the previous response), or whose body is not complete
``body_timeout`` seconds after its headers, and refuses connections beyond ``max_connections``
at once (closed on accept, so the descriptors stay bounded).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger("headwater.serve")


@dataclass(frozen=True)
class ServerLimits:
    """The server's connection limits (seconds and counts); ``headwater serve`` options set them."""

    header_timeout: float = 10.0
    body_timeout: float = 60.0
    keep_alive_timeout: int = 5
    max_connections: int = 256

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

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            logger.warning("refused a connection: %d open (--max-connections)", len(self.connections) - 1)
            transport.abort()
            return
        self._watch()

    def data_received(self, data: bytes) -> None:
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
            wanted, seconds = h11.SEND_BODY, self.limits.body_timeout
        else:
            self._cancel()
            return
        if self._waiting_for is not wanted:
            self._cancel()
            self._waiting_for = wanted
            self._deadline = self.loop.call_later(seconds, self._expired)

    def _cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._waiting_for = None

    def _expired(self) -> None:
        what = "headers" if self._waiting_for is h11.IDLE else "body"
        self._deadline = None
        self._waiting_for = None
        if not self.transport.is_closing():
            logger.info("closed a connection: request %s not received in time", what)
            self.transport.close()
