"""JSON lines query logs (Trino event-listener output, BigQuery/Snowflake exports, home-grown logs).

Each line is one JSON object; ``--map`` says which keys hold what (dotted paths reach nested
objects, e.g. Trino's ``metadata.query``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, tzinfo
from pathlib import Path

from headwater.history.mapping import FieldMap, record_from_row
from headwater.history.record import LogRecord
from headwater.history.sources.base import ReadProblem, open_text
from headwater.history.window import Window


@dataclass
class JsonLinesSource:
    paths: Sequence[str | Path]
    mapping: FieldMap = field(default_factory=dict)
    tz: tzinfo = UTC
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or f"jsonl:{Path(self.paths[0]).resolve()}"

    def read(self, window: Window) -> Iterator[LogRecord | ReadProblem]:
        seq = 0
        for path in self.paths:
            for n, line in enumerate(open_text(str(path)), 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    if not isinstance(row, dict):
                        raise ValueError(f"a JSON object per line is expected, got {type(row).__name__}")
                    record = record_from_row(row, self.mapping, seq, self.tz)
                except ValueError as exc:  # JSONDecodeError is a ValueError
                    yield ReadProblem(f"{path}:{n}", str(exc))
                    continue
                finally:
                    seq += 1
                if window.admits(record):
                    yield record
