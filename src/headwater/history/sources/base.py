"""What every history source gives: ``LogRecord``s in read order, and ``ReadProblem``s for rows it
could not read (reported, never fatal)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from headwater.history.record import LogRecord
from headwater.history.window import Window


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """A row that could not be read: where it is (file:line, or the query id) and why."""

    where: str
    message: str


class Source(Protocol):
    """A query log. ``name`` identifies it for its watermark."""

    name: str

    def read(self, window: Window) -> Iterator[LogRecord | ReadProblem]: ...


def open_text(path: str) -> Iterator[str]:
    """The lines of a text file (gzip-compressed when the name ends in ``.gz``), BOM dropped."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as fh:  # type: ignore[operator]
        yield from fh
