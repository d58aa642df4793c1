"""JSON decoding with a bound on nesting, checked before decoding.

``json.loads`` recurses once per nesting level: a document nested 1,000 deep raises
``RecursionError`` (a crash where callers expect ``JSONDecodeError``), and anything nested deeper
than the bound would make every recursive pass after it (validation, conversion) fragile. No
lineage event or OpenLineage RunEvent comes near the bound.

>>> loads('{"a": [1, {"b": 2}]}')
{'a': [1, {'b': 2}]}
>>> try:
...     loads("[" * 200 + "]" * 200)
... except JsonTooDeep as exc:
...     print(exc)
nested deeper than 128 levels (arrays and objects): line 1 column 129 (char 128)
>>> isinstance(JsonTooDeep("m", "", 0), json.JSONDecodeError)
True
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 128
"""The deepest nesting of arrays and objects accepted."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


class JsonTooDeep(json.JSONDecodeError):
    """The document nests arrays and objects deeper than allowed; ``pos`` is where it passes the bound.

    A ``JSONDecodeError``, so code that reports a line that is not JSON reports this one the same way."""


def check_depth(text: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise ``JsonTooDeep`` when ``text`` nests arrays and objects deeper than ``max_depth``.

    Brackets inside strings do not count. Malformed text passes when it is not too deep: the
    decoder then reports what is wrong with it."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(max_depth):  # each pass removes the innermost level
        skeleton, n = _PAIR.subn("", skeleton)
        if not skeleton:
            return
        if not n:
            break
    depth = 0
    for m in _TOKEN.finditer(text):  # too deep, or unbalanced: find the place, if any
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > max_depth:
                raise JsonTooDeep(f"nested deeper than {max_depth} levels (arrays and objects)", text, m.start())
        elif c in "]}":
            depth -= 1


def loads(text: str | bytes, max_depth: int = MAX_JSON_DEPTH, **kwargs: Any) -> Any:
    """``json.loads`` that first refuses nesting deeper than ``max_depth`` (``JsonTooDeep``)."""
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode(json.detect_encoding(text), "surrogatepass")  # as json.loads does
    elif not isinstance(text, str):
        raise TypeError(f"the JSON object must be str, bytes or bytearray, not {type(text).__name__}")
    check_depth(text, max_depth)
    return json.loads(text, **kwargs)
