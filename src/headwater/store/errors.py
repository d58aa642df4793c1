"""Errors the store raises; the service turns each into a 4xx answer naming the field."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of the store's errors."""


class InvalidInput(StoreError, ValueError):
    """Input that cannot be recorded or queried; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class NameTooLong(InvalidInput):
    """A node reference longer than any node's name can be: refused before it reaches the database
    (the service names the request's field)."""


class NodeNotFound(StoreError, LookupError):
    def __init__(self, ref: str, hint: str | None = None) -> None:
        super().__init__(f"no node matches {ref!r}" + (f": {hint}" if hint else ""))
        self.ref = ref
        self.hint = hint


class AmbiguousNode(StoreError, LookupError):
    SHOWN = 12

    def __init__(self, ref: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[: self.SHOWN])
        more = f" and {len(candidates) - self.SHOWN} more" if len(candidates) > self.SHOWN else ""
        super().__init__(f"{ref!r} matches several nodes: {shown}{more}; give a longer name or #id")
        self.ref = ref
        self.candidates = candidates
