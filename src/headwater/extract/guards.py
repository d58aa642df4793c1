"""Limits on one statement, checked before it is parsed, and the work budget of its resolution.

Hostile or generated SQL must never crash the process, hang it or stop the other statements of a
script. Three measures are taken on the text and the tokens, before sqlglot's parser (whose
compiled form can overflow the C stack) sees them:

- the statement's size in bytes (``max_statement_bytes``), found from the text before tokenizing;
- its nesting depth: ``(``, ``[``, ``{`` and ``CASE`` open a level, runs of prefix operators
  (``NOT NOT …``, ``- - …``) count one level each (``max_nesting``);
- its longest chain of operators between two commas (``a + a + …``, ``x = 1 OR x = 2 OR …``,
  ``a::int::int…``, ``a -> '$.x' -> …``, ``a[1][1]…``), which sqlglot turns into a tree as deep as
  the chain (``max_terms``). The operators are the ones sqlglot's parser nests: every token of its
  binary, range, column-operator and set-operation tables, and subscripts (``_OPERATORS``), so an
  operator it learns is counted too.

A statement past a limit fails alone with a diagnostic naming the limit. Past the parser,
``max_work`` bounds the resolution of one statement (``WorkBudget``) and ``max_expression_nodes``
the size of one rendered expression (larger ones are rendered abbreviated, their lineage is exact).
Every limit can be set through ``ExtractOptions(limits=Limits(…))`` or an environment variable
``HEADWATER_EXTRACT_<LIMIT IN CAPITALS>``.

>>> from sqlglot.dialects.dialect import Dialect
>>> measure(Dialect.get_or_raise("doris").tokenize("SELECT ((a + b) * CASE WHEN NOT NOT c THEN 1 END)"))
(4, 2)
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter

from sqlglot.tokens import Token, TokenType

from headwater.model import Diagnostic, Severity


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-statement limits (see the module docstring); each a positive integer."""

    max_statement_bytes: int = 4_000_000
    max_nesting: int = 1_000
    max_terms: int = 50_000
    max_work: int = 20_000_000
    max_expression_nodes: int = 10_000
    max_in_list: int = 1_000

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        """The defaults, overridden by ``HEADWATER_EXTRACT_MAX_…`` variables.

        >>> Limits.from_env({"HEADWATER_EXTRACT_MAX_NESTING": "200"}).max_nesting
        200
        """
        env = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for f in fields(cls):
            raw = env.get(f"HEADWATER_EXTRACT_{f.name.upper()}")
            if raw is None or not raw.strip():
                continue
            try:
                value = int(raw.replace("_", ""))
            except ValueError:
                value = 0
            if value <= 0:
                raise ValueError(f"HEADWATER_EXTRACT_{f.name.upper()}={raw!r}: a positive integer is needed")
            values[f.name] = value
        return cls(**values)


# The diagnostic codes of statements refused before parsing: nothing may parse them again.
REFUSED = frozenset({"statement_too_large", "nesting_too_deep", "expression_too_long", "nul_byte"})


class LimitExceeded(Exception):
    """A statement went past one of the ``Limits``; ``code`` is the diagnostic code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class EmptyName(ValueError):
    """A table or column named by an empty identifier (`` or ""): nothing can be recorded for it."""


class WorkBudget:
    """Work units spent resolving one statement; ``spend`` raises ``LimitExceeded`` past the limit."""

    __slots__ = ("limit", "spent")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self, units: int = 1) -> None:
        self.spent += units
        if self.spent > self.limit:
            raise LimitExceeded(
                "work_budget_exceeded",
                f"resolving this statement took more than {self.limit:,} work units "
                "(HEADWATER_EXTRACT_MAX_WORK): its lineage is not resolved",
            )


_OPEN = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE, TokenType.CASE})
_CLOSE = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE, TokenType.END})
_PREFIX = frozenset({TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE})
_LISTED = frozenset(
    {
        TokenType.PLUS,
        TokenType.DASH,
        TokenType.STAR,
        TokenType.SLASH,
        TokenType.MOD,
        TokenType.DPIPE,
        TokenType.AND,
        TokenType.OR,
        TokenType.EQ,
        TokenType.NEQ,
        TokenType.LT,
        TokenType.LTE,
        TokenType.GT,
        TokenType.GTE,
        TokenType.AMP,
        TokenType.PIPE,
        TokenType.CARET,
        TokenType.UNION,
        TokenType.INTERSECT,
        TokenType.EXCEPT,
    }
)
# the parser's tables of tokens that join an operand to the next into a new node (a chain of them is a
# tree as deep as the chain): binary operators by precedence, range operators (LIKE, IN, IS, <@…),
# column operators (``::``, ``->``, ``.``), set operations
_PARSER_TABLES = (
    "ASSIGNMENT",
    "DISJUNCTION",
    "CONJUNCTION",
    "EQUALITY",
    "COMPARISON",
    "BITWISE",
    "TERM",
    "FACTOR",
    "EXPONENT",
    "RANGE_PARSERS",
    "COLUMN_OPERATORS",
    "SET_OPERATIONS",
)


def _parser_operators() -> frozenset[TokenType]:
    """Every token of ``_PARSER_TABLES`` in sqlglot's parser (the tables some version lacks are skipped)."""
    from sqlglot.parser import Parser

    found: set[TokenType] = set()
    for name in _PARSER_TABLES:
        table = getattr(Parser, name, None) or ()
        found.update(t for t in table if isinstance(t, TokenType))
    return frozenset(found)


_OPERATORS = _LISTED | _parser_operators() | {TokenType.L_BRACKET}  # ``a[1][1]…`` nests a subscript each


_AFTER_OPERAND = _OPERATORS | _OPEN | {TokenType.COMMA, TokenType.SELECT, TokenType.WHERE, TokenType.ON}


def measure(tokens: Sequence[Token]) -> tuple[int, int]:
    """(nesting depth, longest operator chain) of a statement's tokens; linear, no recursion."""
    depth = deepest = 0
    terms = longest = 0
    prefix_run = 0
    prev: TokenType | None = None
    for tok in tokens:
        tt = tok.token_type
        if tt in _OPEN:
            depth += 1
            if depth + prefix_run > deepest:
                deepest = depth + prefix_run
        elif tt in _CLOSE:
            depth -= 1 if depth > 0 else 0
            prefix_run = 0
        if tt is TokenType.COMMA:
            terms = 0
        elif tt in _OPERATORS:
            terms += 1
            if terms > longest:
                longest = terms
        # a prefix operator: at the start, after an operator, a comma or an opening token
        if tt in _PREFIX and (tt is TokenType.NOT or prev is None or prev in _PREFIX or prev in _AFTER_OPERAND):
            prefix_run += 1
            if depth + prefix_run > deepest:
                deepest = depth + prefix_run
        elif tt not in _PREFIX and tt not in _OPEN:
            prefix_run = 0
        prev = tt
    return deepest, longest


_TOKEN_TYPE = attrgetter("token_type")
_DEEPENING = _OPEN | _PREFIX  # the tokens that may add a level (``measure``)


def _may_pass(tokens: Sequence[Token], limits: Limits) -> bool:
    """Whether ``measure(tokens)`` may pass a limit, told from bounds that cost no interpreted loop:
    each token adds at most one level and one term, and only the opening and prefix tokens add
    a level and only the operators a term. False means neither limit is passed (``check_tokens``
    then skips the exact, token-by-token ``measure``)."""
    n = len(tokens)
    if n <= limits.max_nesting and n <= limits.max_terms:
        return False
    counts = Counter(map(_TOKEN_TYPE, tokens))
    depth = sum(counts[t] for t in _DEEPENING if t in counts)
    terms = sum(counts[t] for t in _OPERATORS if t in counts)
    return depth > limits.max_nesting or terms > limits.max_terms


def check_tokens(tokens: Sequence[Token], limits: Limits) -> tuple[str, str] | None:
    """(code, message) when the tokens of one statement pass a limit, else None.

    >>> from sqlglot.dialects.dialect import Dialect
    >>> tokens = Dialect.get_or_raise("doris").tokenize("SELECT " + "(" * 9 + "1" + ")" * 9)
    >>> check_tokens(tokens, Limits(max_nesting=5))[0]
    'nesting_too_deep'
    """
    if not _may_pass(tokens, limits):
        return None
    depth, terms = measure(tokens)
    if depth > limits.max_nesting:
        return (
            "nesting_too_deep",
            f"the statement nests {depth:,} levels deep (parentheses, subqueries, CASE); the limit is "
            f"{limits.max_nesting:,} (HEADWATER_EXTRACT_MAX_NESTING): it is not parsed",
        )
    if terms > limits.max_terms:
        return (
            "expression_too_long",
            f"an expression of the statement chains {terms:,} operators; the limit is {limits.max_terms:,} "
            "(HEADWATER_EXTRACT_MAX_TERMS): it is not parsed",
        )
    return None


def too_large_message(size: int, limits: Limits) -> str:
    return (
        f"the statement is {size:,} bytes; the limit is {limits.max_statement_bytes:,} "
        "(HEADWATER_EXTRACT_MAX_STATEMENT_BYTES): it is not parsed"
    )


def limit_diagnostic(code: str, message: str, index: int, line: int | None, col: int | None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, index, line, col)


# A statement boundary in the text, found without tokenizing: a semicolon outside quotes and comments.
_BOUNDARY = re.compile(
    r"'(?:[^'\\]|\\.|'')*'?|\"(?:[^\"\\]|\\.|\"\")*\"?|`(?:[^`]|``)*`?|--[^\n]*|#[^\n]*|/\*.*?(?:\*/|\Z)|;",
    re.DOTALL,
)
_INTERESTING = re.compile(r"['\"`;#]|--|/\*")


def oversized_spans(sql: str, limit: int) -> Iterator[tuple[int, int]]:
    """(start, end) of the stretches between semicolons longer than ``limit`` bytes.

    Only scanned when the script itself is longer than ``limit``; quotes and comments are skipped
    (``#`` is treated as a comment everywhere: at worst a stretch looks longer than it is).

    >>> list(oversized_spans("SELECT 1;" + "SELECT '" + ";" * 30 + "'" + ";SELECT 2", 20))
    [(9, 48)]
    """
    if len(sql.encode("utf-8", "surrogatepass")) <= limit:
        return
    start = 0
    pos = 0
    n = len(sql)
    while pos < n:
        m = _INTERESTING.search(sql, pos)
        if m is None:
            break
        m = _BOUNDARY.match(sql, m.start())
        if m is None:  # a lone quote-like character the pattern does not match: skip it
            pos += 1
            continue
        pos = m.end()
        if m.group() == ";":
            if _size(sql, start, m.start()) > limit:
                yield start, m.start()
            start = m.end()
    if _size(sql, start, n) > limit and sql[start:].strip():
        yield start, n


def _size(sql: str, start: int, end: int) -> int:
    if end - start <= 0:
        return 0
    chunk = sql[start:end]
    return len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))


def view_refused(sql: str, dialect: str | None, limits: Limits | None = None) -> str | None:
    """Why a stored view definition must not be parsed (too large, too deep), or None."""
    from sqlglot.dialects.dialect import Dialect

    limits = limits or Limits.from_env()
    if len(sql) > limits.max_statement_bytes:
        return too_large_message(len(sql), limits)
    over = check_tokens(Dialect.get_or_raise(dialect).tokenize(sql), limits)
    return over[1] if over is not None else None
