"""The bounded, FIFO, event-counting queue between producers and the worker.

``offer`` never blocks: when the queue is full the new item is refused and the queued ones kept.

>>> q = BoundedQueue(2)
>>> [q.offer(x) for x in "abc"]
[True, True, False]
>>> q.take(timeout=0), len(q)
('a', 1)
>>> q.close(); q.take(), q.take()
('b', None)
>>> q = BoundedQueue(5); _ = [q.offer(x) for x in "abc"]; q.drain(2), q.drain(5), q.drain(5)
(['a', 'b'], ['c'], [])
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class BoundedQueue(Generic[T]):
    """A deque behind one lock; ``take`` returns None once closed and empty (or on timeout)."""

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._items: deque[T] = deque()
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._waiters = 0
        self._closed = False

    def __len__(self) -> int:
        return len(self._items)

    @property
    def closed(self) -> bool:
        return self._closed

    def offer(self, item: T) -> bool:
        """Append unless full or closed; never blocks on space."""
        with self._lock:
            if self._closed or len(self._items) >= self.capacity:
                return False
            self._items.append(item)
            if self._waiters:
                self._ready.notify()
            return True

    def take(self, timeout: float | None = None) -> T | None:
        """The oldest item, waiting for one; None when closed and empty, or after ``timeout``."""
        with self._lock:
            while not self._items:
                if self._closed:
                    return None
                self._waiters += 1
                try:
                    if not self._ready.wait(timeout):
                        return None
                finally:
                    self._waiters -= 1
            return self._items.popleft()

    def drain(self, limit: int) -> list[T]:
        """Up to ``limit`` of the oldest items, without waiting (an empty list when there are none)."""
        with self._lock:
            items = self._items
            return [items.popleft() for _ in range(min(limit, len(items)))]

    def clear(self) -> int:
        """Discard every queued item; returns how many."""
        with self._lock:
            n = len(self._items)
            self._items.clear()
            return n

    def close(self) -> None:
        """Refuse new items; ``take`` still returns the queued ones, then None."""
        with self._lock:
            self._closed = True
            self._ready.notify_all()
