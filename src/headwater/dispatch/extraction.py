"""The collector's default extract step: the headwater ``Extractor``, one per dialect, behind a lock.

Any callable ``(sql, run, dialect) -> Sequence[LineageInfo]`` can replace it (tests inject their own).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from headwater.catalog import Catalog
from headwater.extract import ExtractOptions, RunInfo
from headwater.model import LineageInfo

ExtractFn = Callable[[str, RunInfo, "str | None"], Sequence[LineageInfo]]


class ExtractionFailed(Exception):
    """A statement could not be parsed or bound, and made no event."""


class ExtractorStep:
    """Keeps one stateful ``Extractor`` per dialect, so DDL and ``USE`` seen earlier bind later statements."""

    def __init__(self, default_dialect: str = "doris", catalog: Catalog | None = None) -> None:
        self._default = default_dialect
        self._catalog = catalog
        self._extractors: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _extractor(self, dialect: str) -> Any:
        ex = self._extractors.get(dialect)
        if ex is None:
            from headwater.extract import Extractor  # type: ignore[attr-defined]

            ex = Extractor(catalog=self._catalog, options=ExtractOptions(dialect=dialect))
            self._extractors[dialect] = ex
        return ex

    def probe(self, sql: str, run: RunInfo, dialect: str | None = None) -> Sequence[LineageInfo]:
        """The events of ``sql`` without changing any session (for statements the database rejected):
        a fresh extractor over the same catalog, in the session database of ``run``."""
        from headwater.extract import Extractor  # type: ignore[attr-defined]

        ex = Extractor(catalog=self._catalog, options=ExtractOptions(dialect=dialect or self._default))
        return list(ex.run(sql, run=run).events)

    def __call__(self, sql: str, run: RunInfo, dialect: str | None = None) -> Sequence[LineageInfo]:
        with self._lock:
            result = self._extractor(dialect or self._default).run(sql, run=run)
        events = list(result.events)
        if not events and result.failures:
            error = result.failures[0].error
            raise ExtractionFailed(f"{error.code}: {error.message}" if error else "extraction failed")
        return events
