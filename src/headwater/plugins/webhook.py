"""``webhook``: POST each event's JSON, retrying with exponential backoff, the event id as idempotency key.

Settings: ``url`` (required); ``timeout`` (10 s); ``max_attempts`` (5); ``backoff_initial`` (0.5 s),
doubled after each failed attempt up to ``backoff_max`` (30 s); ``headers`` (a table of extra headers);
``idempotency_header`` (``Idempotency-Key``). Connection errors, 429 and 5xx are retried; other 4xx
are not. When every attempt failed ``exec`` raises, so the worker logs and counts the failure. Retries
run on the dispatch worker: while they wait, later events queue up (and may be dropped).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.model import LineageInfo, event_to_json
from headwater.plugins import _settings as s

NAME = "webhook"


class WebhookDeliveryError(Exception):
    """The event was not accepted after the allowed attempts (or was refused outright)."""


def backoff_delays(initial: float, maximum: float, attempts: int) -> list[float]:
    """The waits between ``attempts`` attempts.

    >>> backoff_delays(0.5, 3.0, 5)
    [0.5, 1.0, 2.0, 3.0]
    """
    return [min(initial * 2**n, maximum) for n in range(attempts - 1)]


def _retryable(status: int) -> bool:
    return status == 429 or status >= 500


class WebhookPlugin(LineagePlugin):
    def __init__(self, sleep: Callable[[float], None] = time.sleep) -> None:
        self.sleep = sleep
        self._client: httpx.Client | None = None
        self._url = ""
        self._delays: list[float] = []
        self._key_header = "Idempotency-Key"

    def name(self) -> str:
        return NAME

    def initialize(self, context: PluginContext) -> None:
        self._url = s.string(context, "url")
        attempts = s.integer(context, "max_attempts", 5, minimum=1)
        self._delays = backoff_delays(
            s.number(context, "backoff_initial", 0.5), s.number(context, "backoff_max", 30.0), attempts
        )
        self._key_header = s.string(context, "idempotency_header", "Idempotency-Key")
        headers = {str(k): str(v) for k, v in s.table(context, "headers", {}).items()}
        headers["Content-Type"] = "application/json"
        self._client = httpx.Client(timeout=s.number(context, "timeout", 10.0), headers=headers)

    def event_filter(self) -> bool:
        return self._client is not None

    def _attempt(self, body: bytes, key: str) -> str | None:
        """None when delivered; else why the attempt failed. Raises when retrying cannot help."""
        assert self._client is not None
        try:
            response = self._client.post(self._url, content=body, headers={self._key_header: key})
        except httpx.TransportError as exc:
            return f"{type(exc).__name__}: {exc}"
        if response.is_success:
            return None
        if not _retryable(response.status_code):
            raise WebhookDeliveryError(f"{self._url} refused event {key}: HTTP {response.status_code}")
        return f"HTTP {response.status_code}"

    def exec(self, event: LineageInfo) -> None:
        body = event_to_json(event).encode("utf-8")
        problems: list[str] = []
        for delay in [*self._delays, None]:
            problem = self._attempt(body, event.event_id)
            if problem is None:
                return
            problems.append(problem)
            if delay is not None:
                self.sleep(delay)
        raise WebhookDeliveryError(
            f"{self._url} did not accept event {event.event_id} after {len(problems)} attempts: " + "; ".join(problems)
        )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


class WebhookPluginFactory(LineagePluginFactory):
    def name(self) -> str:
        return NAME

    def create(self, context: PluginContext) -> LineagePlugin:
        return WebhookPlugin()
