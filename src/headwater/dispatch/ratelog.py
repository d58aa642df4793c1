"""A log line that is written at most once per interval (the first occurrence always is).

>>> import logging
>>> t = [0.0]
>>> r = RateLimitedLog(logging.getLogger("x"), interval=5.0, clock=lambda: t[0])
>>> r.log(logging.INFO, "a"), r.log(logging.INFO, "b")
(True, False)
>>> t[0] = 5.0; r.log(logging.INFO, "c")
True
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any


class RateLimitedLog:
    def __init__(
        self, logger: logging.Logger, interval: float = 1.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._logger = logger
        self._interval = interval
        self._clock = clock
        self._last: float | None = None
        self._lock = threading.Lock()

    def log(self, level: int, msg: str, *args: Any, exc_info: bool = False) -> bool:
        """Log unless a line was logged less than ``interval`` seconds ago; says whether it logged."""
        now = self._clock()
        with self._lock:
            if self._last is not None and now - self._last < self._interval:
                return False
            self._last = now
        self._logger.log(level, msg, *args, exc_info=exc_info)
        return True
