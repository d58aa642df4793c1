"""Names, fingerprints and times, normalised once at write time.

>>> ident("`Lineage_Orders`")
'lineage_orders'
>>> dataset_name("internal", "Lineage_Demo", '"Orders"')
'internal.lineage_demo.orders'
>>> short_of("internal.lineage_demo.orders.amount", field=True)
'orders.amount'
>>> sql_fingerprint("INSERT INTO t SELECT * FROM s WHERE d = '2024-01-01' AND n > 3") == \\
...     sql_fingerprint("insert   into T select * from s where d = '2025-02-02' and n > 42 -- x")
True
>>> to_us("2024-01-02T03:04:05Z") == to_us("2024-01-02 03:04:05")
True
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta

_QUOTES = "`\"[]'"
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_STRINGS = re.compile(r"'(?:[^'\\]|\\.|'')*'")
_NUMBERS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b")
_SPACE = re.compile(r"\s+")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


def ident(part: str) -> str:
    """One identifier: quotes stripped, lower case, surrounding blanks removed."""
    return part.strip().strip(_QUOTES).lower()


def dataset_name(system: str, *parts: str | None) -> str:
    """The normalised name of a dataset: its system then its qualified name, dot-joined."""
    return ".".join(ident(p) for p in (system, *parts) if p)


def field_name(dataset: str, column: str) -> str:
    return f"{dataset}.{ident(column)}"


def short_of(name: str, field: bool) -> str:
    """The lookup key of a node name: ``table`` for a dataset, ``table.column`` for a field."""
    parts = name.rsplit(".", 2 if field else 1)
    return ".".join(parts[-2:]) if field else parts[-1]


def sql_fingerprint(sql: str) -> str:
    """A stable digest of a statement: comments dropped, literals replaced, case and blanks folded."""
    text = _COMMENTS.sub(" ", sql)
    text = _STRINGS.sub("?", text)
    text = _NUMBERS.sub("?", text)
    text = _SPACE.sub(" ", text).strip().lower().rstrip(";").strip()
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def now_us() -> int:
    return (datetime.now(UTC) - _EPOCH) // _US


def to_us(value: datetime | str | int | float | None) -> int | None:
    """Microseconds since the epoch; naive times are taken as UTC; None stays None."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // _US


def from_us(us: int | None) -> datetime | None:
    """The inverse of ``to_us`` (UTC-aware); ``None`` for None."""
    if us is None:
        return None
    return _EPOCH + timedelta(microseconds=us)
