"""CSV query logs with a header row; ``--map`` says which columns hold what."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, tzinfo
from pathlib import Path

from headwater.history.mapping import FieldMap, record_from_row
from headwater.history.record import LogRecord
from headwater.history.sources.base import ReadProblem, open_text
from headwater.history.window import Window

csv.field_size_limit(sys.maxsize)  # statements can be long


@dataclass
class CsvSource:
    paths: Sequence[str | Path]
    mapping: FieldMap = field(default_factory=dict)
    tz: tzinfo = UTC
    name: str = ""
    delimiter: str = ","

    def __post_init__(self) -> None:
        self.name = self.name or f"csv:{Path(self.paths[0]).resolve()}"

    def read(self, window: Window) -> Iterator[LogRecord | ReadProblem]:
        seq = 0
        for path in self.paths:
            reader = csv.DictReader(open_text(str(path)), delimiter=self.delimiter)
            for row in reader:
                try:
                    record = record_from_row(row, self.mapping, seq, self.tz)
                except ValueError as exc:
                    yield ReadProblem(f"{path}:{reader.line_num}", str(exc))
                    continue
                finally:
                    seq += 1
                if window.admits(record):
                    yield record
