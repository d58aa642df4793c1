"""Names, fingerprints and times, normalised once at write time.

>>> ident("`Lineage_Orders`")
'lineage_orders'
>>> dataset_name("internal", "Lineage_Demo", '"Orders"')
'internal.lineage_demo.orders'
>>> short_of("internal.lineage_demo.orders.amount", field=True)
'orders.amount'
>>> to_us("2024-01-02T03:04:05Z") == to_us("2024-01-02 03:04:05")
True
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from headwater.model.job import sql_fingerprint
from headwater.model.storage import without_userinfo

__all__ = ["dataset_name", "field_name", "ident", "now_us", "short_of", "sql_fingerprint", "to_us"]

_PAIRS = {"`": "`", '"': '"', "[": "]", "'": "'"}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


def ident(part: str) -> str:
    """One identifier: its enclosing quotes (one pair) removed, lower case, surrounding blanks removed,
    without the credentials of a URI (``user:password@``: never part of a name, whoever sent it).

    Quote characters inside a name are kept: ``a[/b]`` stays ``a[/b]``.

    >>> ident("a[/b]"), ident("[x]"), ident('"a""b"'), ident("postgres://etl:PW@db:5432")
    ('a[/b]', 'x', 'a""b', 'postgres://db:5432')
    """
    done = _IDENTS.get(part)
    if done is None:
        text = part.strip()
        if len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
            text = text[1:-1]
        done = without_userinfo(text).lower()
        if len(_IDENTS) >= _IDENTS_SIZE:
            _IDENTS.clear()
        _IDENTS[part] = done
    return done


_IDENTS: dict[str, str] = {}  # ``ident``'s answers: the same column names come again in every table
_IDENTS_SIZE = 65536


def dataset_name(system: str, *parts: str | None) -> str:
    """The normalised name of a dataset: its system then its qualified name, dot-joined."""
    return ".".join(ident(p) for p in (system, *parts) if p)


def field_name(dataset: str, column: str) -> str:
    return f"{dataset}.{ident(column)}"


def short_of(name: str, field: bool) -> str:
    """The lookup key of a node name: ``table`` for a dataset, ``table.column`` for a field."""
    parts = name.rsplit(".", 2 if field else 1)
    return ".".join(parts[-2:]) if field else parts[-1]


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
