"""sqlglot's parse errors said in SQL terms: what is wrong, where, and in which statement.

sqlglot describes errors in its own terms (``Required keyword: 'this' missing for <class
'sqlglot.expressions.query.Where'>``, ``Expected table name but got <Token token_type: …>``); a
user needs the clause, the word at fault and its position.

>>> err = {"description": "Required keyword: 'this' missing for <class 'sqlglot.expressions.query.Where'>",
...        "line": 1, "col": 35, "highlight": "WHERE"}
>>> describe(err)
'WHERE has no condition after it'
>>> position(err)
(1, 31)
>>> describe({"description": "Invalid expression / Unexpected token", "highlight": "SELEC"})
"unexpected 'SELEC'"
>>> describe({"description": "Expected table name but got <Token token_type: TokenType.ON, text: ON, line: 1>",
...           "highlight": "ON"})
"expected a table name, found 'ON'"
>>> describe({"description": "Expecting )", "highlight": "FROM"})
"expected ')' before 'FROM'"
"""

from __future__ import annotations

import re
from typing import Any

_CLAUSE_NEEDS = {
    "Where": "condition",
    "Having": "condition",
    "Qualify": "condition",
    "Order": "expression to sort by",
    "Group": "expression to group by",
    "Limit": "number",
    "Offset": "number",
    "From": "table",
    "Join": "table",
    "Alias": "name",
    "TableAlias": "name",
    "Select": "column",
    "In": "list or a subquery",
    "Cast": "type",
    "Insert": "target table",
    "Values": "row",
    "Case": "WHEN branch",
    "If": "condition",
}
_REQUIRED = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>")
_TOKEN = re.compile(r"<Token token_type: TokenType\.(\w+), text: (.*?), line: \d+.*?>")
_CLASS = re.compile(r"<class '[\w.]*?(\w+)'>")
_END = "the end of the statement"


def _found(token_type: str, text: str) -> str:
    return _END if token_type == "SENTINEL" else repr(text)


def describe(error: dict[str, Any]) -> str:
    """One clause in SQL terms for a sqlglot error dict (``ParseError.errors[k]``)."""
    desc = str(error.get("description") or "").splitlines()[0] if error.get("description") else ""
    word = str(error.get("highlight") or "").strip()
    m = _REQUIRED.fullmatch(desc)
    if m:
        clause = m.group(2)
        needs = _CLAUSE_NEEDS.get(clause)
        if needs:
            return f"{word or clause.upper()} has no {needs} after it"
        return f"incomplete {word or clause.upper()}: something is missing after it"
    if desc.startswith("Invalid expression / Unexpected token"):
        return f"unexpected {word!r}" if word else "unexpected end of the statement"
    m = re.fullmatch(r"Expecting (.+)", desc)
    if m:
        return f"expected {m.group(1)!r} before {word!r}" if word else f"expected {m.group(1)!r}"
    desc = _TOKEN.sub(lambda t: _found(t.group(1), t.group(2)), desc)
    desc = _CLASS.sub(lambda c: c.group(1).upper(), desc)
    desc = re.sub(r"^Expected (\w+) name but got ", r"expected a \1 name, found ", desc)
    return desc[:1].lower() + desc[1:] if desc[:2] != desc[:2].upper() else desc or "not valid SQL"


def position(error: dict[str, Any]) -> tuple[int | None, int | None]:
    """Line and column where the word at fault starts (sqlglot gives the column where it ends)."""
    line, col = error.get("line"), error.get("col")
    word = str(error.get("highlight") or "")
    if isinstance(col, int) and word and "\n" not in word:
        col = max(1, col - len(word) + 1)
    return line, col


def first_words(sql: str, width: int = 48) -> str:
    """The start of a statement on one line, cut at a word with ``…``: how messages name it.

    >>> first_words("INSERT INTO  t\\n SELECT a, b, c FROM s WHERE x > 1", 24)
    'INSERT INTO t SELECT…'
    """
    flat = " ".join(sql.split())
    if len(flat) <= width:
        return flat
    cut = flat[: width - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut + "…"
