"""BEGIN … END nesting while a script is cut at semicolons.

A procedure body or a scripting block holds semicolons of its own
(``CREATE PROCEDURE p() BEGIN INSERT …; UPDATE …; END``): the splitter asks a ``BlockTracker``
whether a semicolon is inside such a block before it ends the statement there.

>>> from sqlglot.dialects.dialect import Dialect
>>> tracker = BlockTracker()
>>> depths = []
>>> for tok in Dialect.get_or_raise("mysql").tokenize("CREATE PROCEDURE p() BEGIN INSERT INTO t SELECT 1; END"):
...     tracker.feed(tok)
...     depths.append(tracker.inside())
>>> depths[-3:]
[True, True, False]
>>> tracker = BlockTracker()
>>> for tok in Dialect.get_or_raise("postgres").tokenize("BEGIN"):
...     tracker.feed(tok)
>>> tracker.inside()  # ``BEGIN;`` starts a transaction, not a block
False
"""

from __future__ import annotations

from sqlglot.tokens import Token

# CREATE … <word>: the statement may hold a BEGIN … END body
ROUTINE_WORDS = frozenset({"PROCEDURE", "PROC", "FUNCTION", "TRIGGER", "EVENT"})
# BEGIN followed by one of these starts a transaction (or a Flink statement set), not a block
NOT_A_BLOCK = frozenset(
    {"TRANSACTION", "TRAN", "WORK", "DISTRIBUTED", "ISOLATION", "DEFERRED", "IMMEDIATE", "EXCLUSIVE", "STATEMENT"}
)
# END followed by one of these closes a statement whose opening word is not counted
UNCOUNTED_CLOSE = frozenset({"IF", "LOOP", "WHILE", "REPEAT", "FOR"})


class BlockTracker:
    """Follows the tokens of one statement; ``inside()`` is True within its BEGIN … END block."""

    __slots__ = ("_count", "_depth", "_may_block", "_prev", "_routine")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._depth = 0
        self._count = 0
        self._may_block = False
        self._routine = False
        self._prev = ""

    def inside(self) -> bool:
        if self._count == 1 and self._prev == "BEGIN":  # a lone ``BEGIN;``: a transaction
            return False
        return self._depth > 0

    def feed(self, tok: Token) -> None:
        word = tok.text.upper()
        if self._count == 0:
            self._may_block = word in ("BEGIN", "DECLARE")
            self._routine = word == "CREATE"
        elif self._routine and not self._may_block and word in ROUTINE_WORDS:
            self._may_block = True  # CREATE … PROCEDURE: its BEGIN opens a body (a column named begin does not)
        elif self._count > 0 and self._prev == "BEGIN" and word in NOT_A_BLOCK:
            self._depth = max(0, self._depth - 1)
        elif self._prev == "END" and word in UNCOUNTED_CLOSE:
            self._depth += 1  # END IF / END LOOP: the END closed no counted block
        self._count += 1
        if self._may_block:
            if word == "BEGIN" or (word == "CASE" and self._depth > 0 and self._prev != "END"):
                self._depth += 1
            elif word == "END" and self._depth > 0:
                self._depth -= 1
        self._prev = word
