"""Names, fingerprints and times, normalised once at write time.

>>> ident("`Lineage_Orders`")
'lineage_orders'
>>> dataset_name("internal", "Lineage_Demo", "Orders"), dataset_name("internal", "d", "a.b")
('internal.lineage_demo.orders', 'internal.d."a.b"')
>>> parse_name('Lineage_Demo.`Orders`'), parse_name('d."a.b"'), parse_name("d.[/x]"), parse_name('d."[/x]"')
('lineage_demo.orders', 'd."a.b"', 'd./x', 'd."[/x]"')
>>> short_of("internal.lineage_demo.orders.amount", field=True)
'orders.amount'
>>> to_us("2024-01-02T03:04:05Z") == to_us("2024-01-02 03:04:05")
True
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from headwater.model import qualified
from headwater.model.job import sql_fingerprint
from headwater.model.storage import without_userinfo

__all__ = [
    "dataset_name",
    "field_name",
    "ident",
    "now_us",
    "parse_name",
    "part",
    "short_of",
    "sql_fingerprint",
    "to_us",
]

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


def part(name: str) -> str:
    """One exact identifier (an event's table or column part: its quotes, if any, belong to it) as a
    name writes it: lower case, blanks around removed, without a URI's credentials, in double quotes
    where plain text would read otherwise (``model.qualified``).

    >>> part("Orders"), part("[/x]"), part('a"b'), part("a.b")
    ('orders', '"[/x]"', '"a""b"', '"a.b"')
    """
    done = _PARTS.get(name)
    if done is None:
        done = qualified.quote(without_userinfo(name.strip()).lower())
        if len(_PARTS) >= _IDENTS_SIZE:
            _PARTS.clear()
        _PARTS[name] = done
    return done


_PARTS: dict[str, str] = {}


def dataset_name(system: str, *parts: str | None) -> str:
    """The normalised name of a dataset: its system (an OpenLineage namespace or a catalog, written as
    ``ident`` has it: a namespace's dots are a host's), then its qualified name's exact parts, each
    quoted where needed (``part``), dot-joined. A storage location's one path (``s3://b`` and
    ``out/x.csv``) is written as OpenLineage names it, plain: ``s3://b.out/x.csv``."""
    named = [p for p in parts if p]
    if len(named) == 1 and ("://" in system or system == "file"):
        return f"{ident(system)}.{ident(named[0])}"
    return ".".join([ident(system), *(part(p) for p in named)])


def field_name(dataset: str, column: str) -> str:
    """The name of the field ``column`` of ``dataset``: a dotted column is a struct field's path, each of
    its parts an exact identifier (``part``)."""
    if '"' not in column and "." not in column:
        return f"{dataset}.{part(column)}"
    return ".".join([dataset, *(part(p) for p in column.split("."))])


def parse_name(text: str) -> str:
    """A dotted name as a user (or a producer's plain string) types it, in the form the store writes:
    a part in quotes (``"…"``, `` `…` ``, ``[…]``, ``'…'``) is one identifier, dots and all; a plain
    part is normalised as ``ident`` does."""
    marked = qualified.split_marked(text.strip())
    return ".".join([part(p) if quoted else qualified.quote(ident(p)) for p, quoted in marked])


def split_name(name: str) -> list[str]:
    """The parts of a stored name, each as written (quoted where it is): ``short_of``'s pieces."""
    if '"' not in name:
        return name.split(".")
    return [qualified.quote(p) for p in qualified.split(name)]


def short_of(name: str, field: bool) -> str:
    """The lookup key of a node name: ``table`` for a dataset, ``table.column`` for a field.

    >>> short_of('internal.d."a.b"', field=False), short_of('internal.d."a.b".c', field=True)
    ('"a.b"', '"a.b".c')
    """
    if '"' not in name:
        parts = name.rsplit(".", 2 if field else 1)
        return ".".join(parts[-2:]) if field else parts[-1]
    pieces = split_name(name)
    return ".".join(pieces[-2:]) if field else pieces[-1]


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
