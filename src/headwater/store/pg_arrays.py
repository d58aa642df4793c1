r"""PostgreSQL array parameters as text literals made with string methods.

The write path sends a batch's rows as one array per column (``INSERT … SELECT FROM unnest(…)``,
``= ANY(…)``: one statement text whatever the number of rows). psycopg dumps a Python list element
by element in Python (a regular expression per element to decide its quoting, or a packed length per
element in binary): about a third of the client's time of a batch. These functions make the literal
``array_in`` reads with a few calls that run in C over the whole column (``join``, ``replace``);
the statement casts the text parameter (``%s::text[]``).

>>> print(text_array(["a", 'b"c', "d\\e", "", None]))
{"a","b\"c","d\\e","",NULL}
>>> print(int_array([1, None, 3]))
{1,NULL,3}
>>> print(bytea_array([b"\x00\xff", None]))
{"\\x00ff",NULL}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_SEP = "\x00"  # cannot occur in a value: PostgreSQL text holds no NUL (``write.check``, ``facts.checked``)


def text_array(values: Sequence[str | None]) -> str:
    """The literal of a ``text[]`` holding ``values`` (None is NULL), every element quoted.

    Raises ``ValueError`` for a value with a NUL character (PostgreSQL text cannot hold one; the
    write path refuses them before)."""
    if not values:
        return "{}"
    present: Sequence[str] = values if None not in values else [v for v in values if v is not None]  # type: ignore[assignment]
    if not present:
        return "{" + ",".join(["NULL"] * len(values)) + "}"
    joined = _SEP.join(present)
    if joined.count(_SEP) != len(present) - 1:
        raise ValueError("a NUL character in a text value")
    escaped = joined.replace("\\", "\\\\").replace('"', '\\"')
    if present is values:
        return '{"' + escaped.replace(_SEP, '","') + '"}'
    parts = iter(escaped.split(_SEP))
    return "{" + ",".join(["NULL" if v is None else '"' + next(parts) + '"' for v in values]) + "}"


def int_array(values: Iterable[int | None]) -> str:
    """The literal of an integer array (``int[]``, ``bigint[]``) holding ``values`` (None is NULL)."""
    return "{" + ",".join(["NULL" if v is None else str(v) for v in values]) + "}"


def bytea_array(values: Sequence[bytes | None]) -> str:
    """The literal of a ``bytea[]`` holding ``values`` (None is NULL), in hex form."""
    if not values:
        return "{}"
    return "{" + ",".join(["NULL" if v is None else '"\\\\x' + v.hex() + '"' for v in values]) + "}"
