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


class NodeNotFound(StoreError, LookupError):
    def __init__(self, ref: str) -> None:
        super().__init__(f"no node matches {ref!r}")
        self.ref = ref


class AmbiguousNode(StoreError, LookupError):
    def __init__(self, ref: str, candidates: list[str]) -> None:
        super().__init__(f"{ref!r} matches several nodes: {', '.join(candidates)}")
        self.ref = ref
        self.candidates = candidates
