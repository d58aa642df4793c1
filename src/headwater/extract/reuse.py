"""Statements that differ only in their literals are extracted once.

Query logs are mostly re-runs of the same statements with other dates and ids. A statement's
*shape* is its token stream with string and integer literals abstracted (comments and blanks are
not tokens). Together with the session's catalog and database, what the session's own DDL did to
tables of the names it mentions and its temporary views, the shape decides the lineage, except for
the literals' own text, which this module puts back. The *template* is the statement with a
placeholder in place of each literal whose value cannot change the events: its tree shows the
placeholder as a literal compared with columns, an operand of arithmetic, a THEN/ELSE value, an
aliased select item, a LIMIT… (``_neutral_at``); any other literal is kept in the template's text,
and only statements with the same value there fit it (``_Template.fixed``).

1. first sight of a shape: for an INSERT into a named table (or a SELECT the Doris rules skip),
   which cannot change the session, the template alone is extracted and the statement answered
   from it (one extraction); where the template's events carry diagnostics (whose messages may
   quote the statement), the statement is extracted too and the template checked against it. Any
   other statement is extracted as usual and its result kept (for a quarter of the shapes
   remembered at most; past that, the second sight is extracted as usual and checked instead);
2. second sight of such a statement: the template is extracted and, with the first statement's
   literals put back, must equal the first result, event for event; then the shape is reusable
   (and this statement answered from it), else never reused;
3. later sights: the template with the statement's literals put back, the statement's own
   context (query id, user, time, SQL text), and diagnostics moved to its own positions. No parse.
   Where the literals make two indirect entries of one text, which the extraction keeps once, the
   statement is extracted.

Finding the shape without the tokenizer (a re-run costs little more than its events' copies): a
regular expression splits the text into *candidates* (``'…'`` strings without quotes, backslashes
or line breaks in them, runs of digits), each between characters that cannot continue a token,
and the *skeleton* (the text around them). The first statement of a skeleton is tokenized; when
each candidate is exactly one string or number token of it, the skeleton's *plan* (which
candidates are abstracted literals, where the statement starts and ends) holds for every statement
of that skeleton: the tokenizer reads the same text around the candidates in the same state, and a
candidate of that form ends where its quote or its digits end. A skeleton whose first statement
fails that check is always tokenized.

Statements that change the session (DDL, ``USE``, CTAS, anything that touches the catalog layer),
scripts of several statements, failed statements and statements whose text may hold a secret (the
redaction's own hint) are never reused. The memory is an LRU of ``size`` shapes.

>>> from headwater.extract import Extractor, RunInfo
>>> reuse = StatementReuse(size=100)
>>> ex = Extractor(database="db", reuse=reuse)
>>> for day in ("2024-01-01", "2024-01-02", "2024-01-03"):
...     res = ex.run(f"INSERT INTO t SELECT a FROM s WHERE d = '{day}'", RunInfo(query_id=day))
>>> [i.expression for i in res.events[0].dataset_indirect], reuse.hits, reuse.lookups
(["s.d = '2024-01-03'"], 2, 3)
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from headwater.extract.collector import collector_paused
from headwater.extract.context import generated_query_id, now_iso
from headwater.extract.result import RunInfo, ScriptResult, StatementResult
from headwater.extract.split import WINDOW, Piece, _parse_chunk, _start_of, dialect_of, iter_script
from headwater.model import (
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    Field,
    IncompleteColumn,
    IndirectLineage,
    LineageInfo,
    QueryContext,
    TableRef,
    Target,
)
from headwater.model.codec import event_to_dict
from headwater.model.event import event_id_of
from headwater.model.secrets import may_hold_secret
from headwater.model.slots import frozen_maker

if TYPE_CHECKING:
    from headwater.extract.engine import Extractor

# An integer after these is an ordinal (GROUP BY 1), a type's size (DECIMAL(10, 2)) or a list item:
# part of the shape, not a value.
_KEEP_NUMBER_AFTER = frozenset(
    getattr(TokenType, name)
    for name in ("GROUP_BY", "ORDER_BY", "PARTITION_BY", "CLUSTER_BY", "DISTRIBUTE_BY", "SORT_BY", "COMMA", "L_PAREN")
    if hasattr(TokenType, name)
)
_SEEN, _REFUSED, _UNSAFE = "seen", "refused", "unsafe"
_TOKEN_TYPE, _TOKEN_TEXT, _TOKEN_START = attrgetter("token_type"), attrgetter("text"), attrgetter("start")
_STRING, _NUMBER, _SEMICOLON = TokenType.STRING, TokenType.NUMBER, TokenType.SEMICOLON

# A candidate literal: a quoted string with nothing in it a tokenizer treats specially, or a run of
# digits; never next to a character that could make it part of a longer token (a prefix such as
# N'…' or X'…', a name, a decimal point, a parameter's sign, another quote).
_EDGE = r"""\w$@#.'"`\\"""
_CANDIDATES = re.compile(rf"(?=['0-9])(?<![{_EDGE}:])(?:'([^'\\\r\n]*)'|([0-9]+))(?![{_EDGE}])")  # (?=: speed


@dataclass(slots=True)
class Shape:
    """A statement's tokens, which of them are abstracted literals, and its shape key."""

    tokens: list[Token]
    literals: tuple[int, ...]  # indexes into tokens
    key: tuple[Any, ...]
    texts: list[str] | None = None  # every token's text (None: read from the tokens when asked)
    valued: list[int] | None = None  # the indexes of its string and number tokens

    @property
    def names(self) -> frozenset[str]:
        """Every token's text, lower case (the names it may mention; literals too: a name more only
        makes the key stricter)."""
        texts = self.texts if self.texts is not None else list(map(_TOKEN_TEXT, self.tokens))
        return frozenset(map(str.lower, texts))


_LOCAL = threading.local()


def _tokenize(sql: str, dialect: Any) -> list[Token]:
    """``dialect.tokenize(sql)`` with one tokenizer per dialect class and thread (``Dialect.tokenize``
    makes one at each call; a tokenizer reads only its class's settings and resets at each call)."""
    made: dict[type, Any] | None = getattr(_LOCAL, "tokenizers", None)
    if made is None:
        made = _LOCAL.tokenizers = {}
    tokenizer = made.get(type(dialect))
    if tokenizer is None:
        tokenizer = made[type(dialect)] = dialect.tokenizer()
    return tokenizer.tokenize(sql)


def shape_of(sql: str, dialect: Any) -> Shape | None:
    """The shape of a one-statement ``sql``, or None when it cannot be reused (several statements,
    no tokens, tokenizer errors, commands the splitter rewrites)."""
    try:
        tokens = _tokenize(sql, dialect)
    except TokenError:
        return None
    while tokens and tokens[-1].token_type == TokenType.SEMICOLON:
        tokens.pop()
    if not tokens or tokens[0].token_type == TokenType.REPLACE:
        return None
    types = list(map(_TOKEN_TYPE, tokens))
    if _SEMICOLON in types:
        return None
    texts = list(map(_TOKEN_TEXT, tokens))
    valued = [i for i, tt in enumerate(types) if tt is _STRING or tt is _NUMBER]
    literals = [
        i
        for i in valued
        if types[i] is _STRING or (texts[i].isdigit() and (i == 0 or types[i - 1] not in _KEEP_NUMBER_AFTER))
    ]
    shape_texts: list[str | None] = list(texts)
    for i in literals:
        shape_texts[i] = None
    return Shape(tokens, tuple(literals), (tuple(types), tuple(shape_texts)), texts, valued)


@dataclass(slots=True)
class _Plan:
    """What tokenizing one statement of a skeleton showed, which holds for each statement of it."""

    key: tuple[Any, ...]  # the shape key of that statement
    literals: tuple[int, ...]  # the candidate of each abstracted literal, in token order
    literal_tokens: tuple[int, ...]  # and its token
    types: tuple[TokenType, ...]  # their token types
    kept: tuple[tuple[int, int], ...]  # (candidate, token) of numbers that are part of the key
    first: tuple[int, int, int]  # (offset, line, column) of the first token
    tail: int  # characters after the last token (blanks, comments, semicolons)
    count: int  # how many tokens
    candidate_tokens: tuple[int, ...]  # each candidate's token (ascending)
    literal_starts: tuple[int, ...]  # each abstracted literal's offset
    widths: tuple[int, ...]  # each candidate's length
    numbers: tuple[bool, ...]  # which candidates are numbers (the others are quoted strings)
    hinted: bool  # the text around the candidates may hold a secret (``secrets.may_hold_secret``)
    sql: str  # the statement the plan was made of
    positions: bool | None = None  # a token's line and column are those its offset counts (no carriage
    # return); None until a diagnostic's position is first asked for (``counted_positions``)
    starts: tuple[int, ...] = ()  # each token's offset, once ``counted_positions`` is true
    known_names: frozenset[str] | None = None  # ``names``, once asked for
    ident: frozenset[Any] | None = None  # ``frozenset((key,))``, once asked for (``StatementReuse.run``)

    def counted_positions(self, dialect: Any) -> bool:
        if self.positions is None:
            sql = self.sql
            shape = shape_of(sql, dialect)
            self.positions = (
                shape is not None
                and "\r" not in sql
                and all(_start_of(t, sql)[1:] == _counted(sql, t.start) for t in shape.tokens)
            )
            if self.positions and shape is not None:
                self.starts = tuple(map(_TOKEN_START, shape.tokens))
        return self.positions

    def names(self) -> frozenset[str]:
        """The texts of the tokens that are not candidates, lower case."""
        if self.known_names is None:
            texts = list(self.key[1])
            for _, i in self.kept:
                texts[i] = None
            self.known_names = frozenset([t.lower() for t in texts if t is not None])
        return self.known_names


_EDGE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$@#.'\"`\\")
_EDGE_BEFORE = _EDGE_CHARS | {":"}
# Each ASCII character's class for ``_split_ascii``: ``0`` a digit, ``'`` a quote, ``a`` any other character of
# ``_EDGE_CHARS``, ``:`` (in ``_EDGE_BEFORE`` only), `` `` any other (a candidate may follow and precede it)
_CLASSES = bytes(
    (48 if c in "0123456789" else 39 if c == "'" else 97 if c in _EDGE_CHARS else 58 if c == ":" else 32)
    for c in map(chr, range(256))
)
_SPACE, _COLON, _ZERO = 32, 58, 48


def _split_ascii(sql: str) -> tuple[tuple[Any, ...], list[str]]:
    """``_skeleton`` of an ASCII ``sql``, its candidates found with ``bytes.find`` in the text's classes
    (``_CLASSES``; the regular expression tries every position, at some 200 instructions a character):
    the scan stops only at a quote, or at a digit after a character no candidate follows from (``" 0"``:
    the digits of a name are passed over in C), and applies the expression's conditions there. ``t`` is
    the classes after a blank (the start of the text), so an offset in ``t`` is one more than in ``sql``."""
    t = b" " + sql.encode("ascii").translate(_CLASSES)
    n = len(t)
    segments: list[str] = []
    numbers: list[bool] = []
    found: list[str] = []
    last = pos = 0  # where the next segment starts in ``sql``; where the scan goes on in ``t``
    q = t.find(b"'")
    d = t.find(b" 0") + 1  # 0: none (an offset in ``t`` is at least 1)
    while q >= 0 or d:
        if q >= 0 and (not d or q < d):  # a quote at q
            close = t.find(b"'", q + 1)
            if close >= 0 and t[q - 1] == _SPACE:
                content = sql[q : close - 1]
                if (
                    "\\" not in content
                    and "\n" not in content
                    and "\r" not in content
                    and (close + 1 == n or t[close + 1] == _SPACE or t[close + 1] == _COLON)
                ):
                    segments.append(sql[last : q - 1])
                    numbers.append(False)
                    found.append(content)
                    last = close
                    pos = close + 1
                else:
                    q = t.find(b"'", q + 1)
                    continue
            else:  # the expression goes on at the next character
                q = t.find(b"'", q + 1)
                continue
        else:  # a run of digits at d, after a blank
            end = d + 1
            while end < n and t[end] == _ZERO:
                end += 1
            if end < n and t[end] != _SPACE and t[end] != _COLON:
                d = t.find(b" 0", end) + 1
                continue
            segments.append(sql[last : d - 1])
            numbers.append(True)
            found.append(sql[d - 1 : end - 1])
            last = end - 1
            pos = end
        if q < pos:
            q = t.find(b"'", pos)
        if d < pos:
            d = t.find(b" 0", pos) + 1
    segments.append(sql[last:])
    return (tuple(segments), tuple(numbers)), found


def _skeleton(sql: str) -> tuple[tuple[Any, ...], list[str]]:
    """The text around the candidates (and which candidates are numbers), and the candidates' text."""
    if sql.isascii():
        return _split_ascii(sql)
    parts = _CANDIDATES.split(sql)
    strings = parts[1::3]
    found = [s if s is not None else n for s, n in zip(strings, parts[2::3], strict=True)]
    return (tuple(parts[0::3]), tuple(s is None for s in strings)), found


def _plan_of(
    sql: str, shape: Shape, skeleton: tuple[Any, ...], found: list[str], first: tuple[int, int, int]
) -> _Plan | str:
    """The plan of ``sql``'s skeleton (its first token at ``first``), or ``_UNSAFE`` when a candidate
    is not exactly one token. Only the string and number tokens are read (a candidate can be no other)."""
    tokens, valued, texts = shape.tokens, shape.valued, shape.texts
    assert valued is not None and texts is not None
    types = shape.key[0]
    at = {tokens[i].start: i for i in valued}
    segments, numbers = skeleton
    pos = 0
    token_of: list[int] = []
    for k, text in enumerate(found):
        pos += len(segments[k])
        width = len(text) if numbers[k] else len(text) + 2
        i = at.get(pos)
        if i is None:
            return _UNSAFE
        if tokens[i].end != pos + width - 1 or texts[i] != text or types[i] is not (_NUMBER if numbers[k] else _STRING):
            return _UNSAFE
        token_of.append(i)
        pos += width
    candidate = {i: k for k, i in enumerate(token_of)}
    literal_tokens = shape.literals
    if any(i not in candidate for i in literal_tokens):
        return _UNSAFE
    abstracted = set(literal_tokens)
    return _Plan(
        key=shape.key,
        literals=tuple(candidate[i] for i in literal_tokens),
        literal_tokens=literal_tokens,
        types=tuple(types[i] for i in literal_tokens),
        kept=tuple((k, i) for k, i in enumerate(token_of) if i not in abstracted),
        first=first,
        tail=len(sql) - (tokens[-1].end + 1),
        count=len(tokens),
        candidate_tokens=tuple(token_of),
        literal_starts=tuple(tokens[i].start for i in literal_tokens),
        widths=tuple(len(f) if numbers[k] else len(f) + 2 for k, f in enumerate(found)),
        numbers=numbers,
        hinted=may_hold_secret("\0".join(segments)),  # one search (no hint word runs across a NUL)
        sql=sql,
    )


def _counted(sql: str, offset: int) -> tuple[int, int]:
    """(line, column) of ``offset`` in ``sql``, counted."""
    return sql.count("\n", 0, offset) + 1, offset - (sql.rfind("\n", 0, offset) + 1) + 1


@dataclass(slots=True)
class Sight:
    """One statement as the memory sees it: its shape key, the names it may mention (``names``), its
    abstracted literals (token type, text), its text without what surrounds the tokens, and where it
    starts. Its tokens are made only when asked for (``shape``)."""

    sql: str
    key: tuple[Any, ...]
    known_names: frozenset[str] | None  # None: made of the plan's and the candidates' when asked (``names``)
    literals: tuple[tuple[TokenType, str], ...]
    text: str
    first: tuple[int, int, int]
    dialect: Any
    tokenized: Shape | None = None
    plan: _Plan | None = None
    found: list[str] | None = None  # with ``plan``: the candidates' text

    @classmethod
    def of(cls, sql: str, shape: Shape, dialect: Any) -> Sight:
        tokens = shape.tokens
        first = _start_of(tokens[0], sql)
        literals = tuple((tokens[i].token_type, tokens[i].text) for i in shape.literals)
        return cls(sql, shape.key, None, literals, sql[first[0] : tokens[-1].end + 1], first, dialect, shape)

    @property
    def names(self) -> frozenset[str]:
        """The names the statement may mention: every token's text, lower case (candidates too)."""
        if self.known_names is None:
            plan, found = self.plan, self.found
            if plan is not None and found is not None:
                names = plan.names()
                self.known_names = names.union([f.lower() for f in found]) if found else names
            else:
                shape = self.shape()
                self.known_names = shape.names if shape is not None else frozenset()
        return self.known_names

    def shape(self) -> Shape | None:
        if self.tokenized is None:
            self.tokenized = shape_of(self.sql, self.dialect)
        return self.tokenized

    def hinted(self) -> bool:
        """The statement may hold a secret: a hint word (which has no quote or digit in it) in the text
        around the candidates or in one of them."""
        plan, found = self.plan, self.found
        if plan is None or found is None:
            return may_hold_secret(self.text)
        return plan.hinted or _found_hinted(found, plan.numbers)

    def position(self, k: int) -> tuple[int, int] | None:
        """(line, column) of the ``k``-th token: from the skeleton's plan, else from the tokens."""
        plan, found = self.plan, self.found
        if plan is None or found is None or not plan.counted_positions(self.dialect):
            shape = self.shape()
            return _start_of(shape.tokens[k], self.sql)[1:] if shape is not None and k < len(shape.tokens) else None
        if k >= plan.count:
            return None
        return _counted(self.sql, plan.starts[k] + self._shift(plan, found, bisect_left(plan.candidate_tokens, k)))

    @staticmethod
    def _shift(plan: _Plan, found: list[str], before: int) -> int:
        """How much longer the first ``before`` candidates are than in the plan's statement."""
        shift = 0
        for c in range(before):
            shift += len(found[c]) + (0 if plan.numbers[c] else 2) - plan.widths[c]
        return shift

    def spans(self) -> tuple[int, list[tuple[int, int]]] | None:
        """The number of tokens, and the first and last offsets of each abstracted literal."""
        plan, found = self.plan, self.found
        if plan is None or found is None:
            shape = self.shape()
            if shape is None:
                return None
            return len(shape.tokens), [(shape.tokens[i].start, shape.tokens[i].end) for i in shape.literals]
        out = []
        for c, start in zip(plan.literals, plan.literal_starts, strict=True):
            start += self._shift(plan, found, c)  # the candidates before a literal's token: those before it
            out.append((start, start + len(found[c]) + (0 if plan.numbers[c] else 2) - 1))
        return plan.count, out


# Characters of a candidate that hold no hint: no letter, no ``:`` (``may_hold_secret`` looks for words of
# letters and ``://``, and around ``key`` and ``cred`` for letters, digits and a few signs, never past a NUL)
_NO_HINT = "0123456789-./ +,"
_HINTS: dict[str, bool] = {}  # ``_found_hinted``'s answers, by the candidates' joined text
_HINTS_SIZE = 4096


def _found_hinted(found: list[str], numbers: tuple[bool, ...]) -> bool:
    """``may_hold_secret("\\0".join(found))`` (no hint word runs across a NUL), remembered. The text asked
    and remembered has each candidate made only of ``_NO_HINT`` (every number; dates, amounts) left empty:
    such a part can start no hint word, nor end one (it has no ``:``), and where ``may_hold_secret`` looks
    past a NUL for a qualifier before ``key`` it passes over any character that is not a letter, so it
    reaches the same letters (``tests/extract/test_reuse_rerun_fast.py`` checks it against the plain call)."""
    text = "\0".join(["" if number or not f.strip(_NO_HINT) else f for f, number in zip(found, numbers, strict=True)])
    known = _HINTS.get(text)
    if known is None:
        if len(_HINTS) >= _HINTS_SIZE:
            _HINTS.clear()
        known = _HINTS[text] = may_hold_secret(text)
    return known


def sight_of(sql: str, dialect: Any, plans: dict[Any, Any] | None = None) -> Sight | None:
    """The ``Sight`` of a one-statement ``sql`` (None as for ``shape_of``). ``plans``: the skeletons
    known so far, to answer from without tokenizing (and to add this one's to)."""
    if plans is None:
        shape = shape_of(sql, dialect)
        return Sight.of(sql, shape, dialect) if shape is not None else None
    skeleton, found = _skeleton(sql)
    plan = plans.get(skeleton)
    if isinstance(plan, _Plan):
        key = plan.key
        if plan.kept:
            texts = list(key[1])
            for k, i in plan.kept:
                texts[i] = found[k]
            key = (key[0], tuple(texts))
        literals = tuple(zip(plan.types, [found[k] for k in plan.literals], strict=True))
        text = sql[plan.first[0] : len(sql) - plan.tail]
        return Sight(sql, key, None, literals, text, plan.first, dialect, None, plan, found)
    shape = shape_of(sql, dialect)
    if shape is None:
        return None
    sight = Sight.of(sql, shape, dialect)
    if plan is None:
        plan = plans[skeleton] = _plan_of(sql, shape, skeleton, found, sight.first)
        if isinstance(plan, _Plan):  # its tokens may become the template's (``_draft``): the plan answers
            sight.plan, sight.found = plan, found
    return sight


def _placeholder(tt: TokenType, n: int) -> str:
    return f"'hw@lit{n}@'" if tt == TokenType.STRING else f"{909000000 + n}"


# Every placeholder's render holds one of these (``_placeholder``) where the dialect renders it as
# written; a text without any holds no placeholder (``_make_template`` does not run its pattern there)
_MARKS = ("hw@lit", "90900")


def _literal(tt: TokenType, text: str) -> exp.Expression:
    return exp.Literal.string(text) if tt == TokenType.STRING else exp.Literal.number(text)


def template_sql(
    sql: str, spans: list[tuple[int, int]], types: list[TokenType], kept: frozenset[int] = frozenset()
) -> str:
    """``sql`` with each abstracted literal (its first and last offsets, its token type) replaced by
    its placeholder, but those numbered in ``kept`` (positions of the rest kept only up to the first
    literal)."""
    out: list[str] = []
    pos = 0
    for n, ((start, end), tt) in enumerate(zip(spans, types, strict=True)):
        out.append(sql[pos:start])
        out.append(sql[start : end + 1] if n in kept else _placeholder(tt, n))
        pos = end + 1
    out.append(sql[pos:])
    return "".join(out)


def _own_tokens(sight: Sight) -> list[Token] | None:
    """The statement's tokens, for ``_retoken`` to make the template's of (the sight answers from its
    plan from then on), or None when its skeleton has no plan or the text is too long for one window."""
    plan, found = sight.plan, sight.found
    if plan is None or found is None or len(sight.sql) > WINDOW:
        return None
    tokens = sight.tokenized.tokens if sight.tokenized is not None else None
    sight.tokenized = None
    if tokens is None:
        shape = shape_of(sight.sql, sight.dialect)
        if shape is None or shape.key != sight.key:
            return None
        tokens = shape.tokens
    return tokens


def _one_chunk(text: str, limit: int) -> bool:
    """``iter_script`` tokenizes ``text`` in one window and finds no oversized statement in it."""
    return len(text) <= WINDOW and (4 * len(text) <= limit or len(text.encode("utf-8", "surrogatepass")) <= limit)


def _retoken(
    tokens: list[Token],
    edits: dict[int, str],
    numbers: tuple[bool, ...],
    literals: tuple[int, ...],
    literal_tokens: tuple[int, ...],
) -> None:
    """``tokens`` (of a statement of a skeleton with a plan, or of a text made from it by this function)
    made the tokens of the same text with each token of ``edits`` (a literal of the plan, single-line)
    given its new text: its own width and offsets, and the offsets and columns of the tokens after it.
    The tokenizer would make exactly these of the new text (the skeleton's plan holds for it: a
    placeholder or a literal put back is a candidate of the same kind where one was)."""
    if not edits:
        return
    string = {i: not numbers[c] for c, i in zip(literals, literal_tokens, strict=True)}
    first = min(edits)
    shift = 0  # how much longer the text before the token is now
    line, line_shift = -1, 0  # the line of the last edit, and the shift of the columns on it
    for i in range(first, len(tokens)):
        tok = tokens[i]
        col_shift = line_shift if tok.line == line else 0
        text = edits.get(i)
        if text is None:
            if shift:
                tok.start += shift
                tok.end += shift
            if col_shift:
                tok.col += col_shift
            continue
        width = len(text) + 2 if string[i] else len(text)
        delta = width - (tok.end - tok.start + 1)
        tok.text = text
        tok.start += shift
        tok.end = tok.start + width - 1
        tok.col += col_shift + delta
        shift += delta
        line, line_shift = tok.line, col_shift + delta


Pieces = tuple[str | int, ...]  # text, and the number of the literal whose rendering goes between
# An entry whose expression holds placeholders: its index, the expression as a ``str.format`` text (each
# literal's number in braces), or its pieces (text, number, text) where it holds one placeholder (two
# concatenations instead of parsing a format), what makes the entry of its fields' values (``frozen_maker``),
# its fields' values, and the index of ``expression``.
Slot = tuple[int, str | tuple[str, int, str], Callable[..., Any], tuple[Any, ...], int]
_PARTS = ("direct", "dataset_indirect", "output_indirect")


@dataclass(frozen=True, slots=True)
class _Event:
    """A template's event, with where its expressions hold placeholders."""

    event: LineageInfo
    slots: tuple[tuple[Slot, ...], ...]  # per part of ``_PARTS``
    parts: tuple[tuple[Any, ...], ...]  # the event's entries of each part of ``_PARTS``
    diagnostics: tuple[tuple[Diagnostic, Pieces, int | None], ...]  # with its message's pieces, its token
    name: bytes  # the event id's name after the query id ("\x1f" and the target)
    merging: tuple[bool, bool] = field(init=False, default=(False, False))  # per indirect part: its entries
    # hold placeholders and two of them have one column and type (other literals may make them one text)

    def __post_init__(self) -> None:
        object.__setattr__(self, "merging", _merging(self.parts, self.slots))


def _merging(parts: tuple[tuple[Any, ...], ...], slots: Any) -> tuple[bool, bool]:
    """``_Event.merging`` of an event's parts and their slots (the two indirect parts)."""
    return _may_merge(parts[1], slots[1]), _may_merge(parts[2], slots[2])


@dataclass(frozen=True, slots=True)
class _Template:
    result: StatementResult  # extracted from the placeholder text
    sql: str  # the placeholder text
    shape: Shape | None  # the placeholder text's shape (its token positions); None: no event has a diagnostic
    renders: tuple[str, ...]  # each placeholder as the generator renders it
    pattern: re.Pattern[str]  # any of the renders
    events: tuple[_Event, ...]
    properties: dict[str, str] | None  # the run's external catalog properties the template was made
    # with; None when the session's catalog had its own tables then (their properties are looked up)
    fixed: tuple[tuple[int, str], ...] = ()  # literals kept in the text (number, text): a statement fits
    # the template only with these literals

    def fits(self, sight: Sight) -> bool:
        """``sight``'s statement has the template's kept literals."""
        if not self.fixed:
            return True
        literals = sight.literals
        return all(literals[n][1] == text for n, text in self.fixed)

    def pieces(self, text: str) -> Pieces:
        return _pieces(self.pattern, {r: n for n, r in enumerate(self.renders)}, text)


_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _pattern_of(live: tuple[str, ...]) -> re.Pattern[str]:
    """Any of the renders ``live``, longest first (kept: the same renders recur in every template)."""
    pattern = _PATTERNS.get(live)
    if pattern is None:
        if len(_PATTERNS) > 1000:
            _PATTERNS.clear()
        pattern = _PATTERNS[live] = re.compile(
            "|".join(re.escape(r) for r in sorted(live, key=len, reverse=True)) or r"(?!)"
        )
    return pattern


def _pieces(pattern: re.Pattern[str], number: dict[str, int], text: str) -> Pieces:
    """``text`` cut at each match of ``pattern`` (a render), each match given its literal's number."""
    out: list[str | int] = []
    pos = 0
    for m in pattern.finditer(text):
        out += [text[pos : m.start()], number[m.group()]]
        pos = m.end()
    out.append(text[pos:])
    return tuple(out)


_new_template = frozen_maker(_Template)
_new_tevent = frozen_maker(_Event, post_init=False)  # its ``merging`` given as ``__post_init__`` makes it
# (the class itself where ``reuse`` is compiled: a native class has no slots' member descriptors)
_TEVENT_SLOTS = _new_tevent is not _Event


def _template_of(
    result: StatementResult,
    sql: str,
    shape: Shape | None,
    renders: tuple[str, ...],
    run: RunInfo,
    layered: bool,
    fixed: tuple[tuple[int, str], ...] = (),
) -> _Template:
    """The template of ``result``, extracted from the placeholder text ``sql`` (its ``shape`` where an event
    has diagnostics), each placeholder rendered as in ``renders``, but the literals of ``fixed``."""
    properties = None if layered else dict(run.external_catalog_properties)
    kept = {n for n, _ in fixed}
    live = tuple(r for n, r in enumerate(renders) if n not in kept)
    pattern = _pattern_of(live)
    search = pattern.search
    number = {r: n for n, r in enumerate(renders)}
    marked = all(r.find(_MARKS[0]) >= 0 or r.find(_MARKS[1]) >= 0 for r in live)  # else every text is searched
    mark_s, mark_n = _MARKS
    tokens = shape.tokens if shape is not None else ()
    token_at = {_start_of(tok, sql)[1:]: k for k, tok in enumerate(tokens)}
    events = []
    for e in result.events:
        parts: tuple[tuple[Any, ...], ...] = (e.direct, e.dataset_indirect, e.output_indirect)
        slots = []
        for items in parts:
            found = []
            for k, x in enumerate(items):
                text = x.expression
                if (not marked or mark_s in text or mark_n in text) and search(text):
                    found.append(_slot(k, x, _pieces(pattern, number, text)))
            slots.append(tuple(found))
        diagnostics = tuple(
            (
                d,
                _pieces(pattern, number, d.message),
                None if d.line is None else token_at.get((d.line, d.column or 0), -1),
            )
            for d in e.diagnostics
        )
        slots_of = tuple(slots)
        name = f"\x1f{e.target.table}".encode()
        events.append(
            _new_tevent(e, slots_of, parts, diagnostics, name, _merging(parts, slots_of))
            if _TEVENT_SLOTS
            else _Event(e, slots_of, parts, diagnostics, name)
        )
    return _new_template(result, sql, shape, renders, pattern, tuple(events), properties, fixed)


# called through the module's name (a module attribute, read at each call also where ``reuse`` is compiled),
# so that a test can wrap it
_make_template = _template_of


def _slot(k: int, entry: Any, pieces: Pieces) -> Slot:
    """The ``Slot`` of the ``k``-th entry of a part, its expression in ``pieces``."""
    names = _field_names(type(entry))
    fmt: str | tuple[str, int, str]
    if len(pieces) == 3:  # text, number, text
        fmt = (str(pieces[0]), int(pieces[1]), str(pieces[2]))
    else:
        fmt = "".join(p.replace("{", "{{").replace("}", "}}") if isinstance(p, str) else f"{{{p}}}" for p in pieces)
    return k, fmt, frozen_maker(type(entry)), tuple(getattr(entry, n) for n in names), names.index("expression")


def _fill(pieces: Pieces, news: list[str]) -> str:
    return "".join([p if isinstance(p, str) else news[p] for p in pieces])


def event_id(query_id: str, name: bytes) -> str:
    """``make_event_id(query_id, target)`` with ``name`` = ``f"\x1f{target}".encode()``."""
    return event_id_of(query_id.encode() + name)


@dataclass(slots=True)
class _Draft:
    """A template's text, parsed (``StatementReuse._draft``)."""

    piece: Piece  # the text as one statement
    text: str
    renders: tuple[str, ...]  # each literal's placeholder as the generator renders it
    fixed: tuple[tuple[int, str], ...]  # the literals kept in the text (number, text)
    tokens: int  # the statement's number of tokens
    made: list[Token] | None = None  # the text's tokens, where they were made from the statement's


@dataclass(frozen=True, slots=True)
class _First:
    """A shape seen once, with what its statement was extracted to (to check the template against)."""

    sight: Sight
    run: RunInfo
    index: int
    result: StatementResult


class StatementReuse:
    """The memory of statement shapes, shared by the extractors of one catalog and one set of options.

    ``lookups`` counts reusable-looking statements, ``hits`` those answered from a template."""

    def __init__(self, size: int = 10_000, skeletons: bool = True) -> None:
        if size < 1:
            raise ValueError("the reuse cache needs a size of at least 1")
        self.size = size
        self.lookups = 0
        self.hits = 0
        self._entries: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._renders: dict[tuple[TokenType, str], str] = {}
        self._firsts = 0  # entries that keep a first result (a quarter of the size at most)
        self._plans: dict[Any, Any] | None = {} if skeletons else None  # skeleton → _Plan or _UNSAFE

    @property
    def hit_rate(self) -> float:
        return self.hits / self.lookups if self.lookups else 0.0

    def run(self, ex: Extractor, sql: str, run: RunInfo) -> ScriptResult:
        """Extract ``sql`` through ``ex`` (its session state as it stands), reusing a template if one fits."""
        plans = self._plans
        if plans is not None and len(plans) > 4 * self.size:
            plans.clear()
        sight = sight_of(sql, ex.dialect_impl, plans)
        if sight is None:
            return ex.extract_text(sql, run)
        views = ex.session.temp_views
        plan = sight.plan  # the shape key in a frozenset, which keeps its hash (a tuple hashes its items each time)
        if plan is not None and sight.key is plan.key:
            ident = plan.ident
            if ident is None:
                ident = plan.ident = frozenset((plan.key,))
        else:
            ident = frozenset((sight.key,))
        key = (
            ident,
            ex.session.catalog,
            ex.session.database,
            ex.catalog.state_for(sight.names) if ex.catalog.version else (),  # () while the layer is empty
            tuple(views.items()) if views else (),  # the session's temporary views (a view may read another)
        )
        self.lookups += 1
        entry = self._entries.get(key)
        if isinstance(entry, _Template):
            self._entries.move_to_end(key)
            if entry.fits(sight):
                reused = self._instantiate(ex, entry, sight, run, ex.index)
                if reused is not None:
                    self.hits += 1
                    ex.index += 1
                    return _new_script((reused,))
            else:  # other kept literals: seen for the first time
                entry = None
        index = ex.index
        if entry is None:  # first sight: its template extracted instead of it, where that is proven the same
            with collector_paused():  # as for an extraction: the template's tree is garbage before a collection
                first = self._first_sight(ex, sight, run, index)
            if first is not None:
                self._put(key, first[0])
                return first[1]
        if isinstance(entry, _First):  # second sight: the template, checked against the first
            template = self._verified(ex, run, index, entry)
            self._put(key, template)
            if isinstance(template, _Template) and template.fits(sight):
                reused = self._instantiate(ex, template, sight, run, index)
                if reused is not None:
                    self.hits += 1
                    ex.index += 1
                    return ScriptResult((reused,))
        state = _state(ex)
        result = ex.extract_text(sql, run)
        if entry is not None and entry is not _SEEN:
            return result
        if _changed(state, ex) or not _reusable(result):
            self._put(key, _REFUSED)
        elif entry is None:
            keep = self._firsts < max(1, self.size // 4)
            self._put(key, _First(sight, run, index, result.statements[0]) if keep else _SEEN)
        else:
            self._put(key, self._verified(ex, run, index, _First(sight, run, index, result.statements[0])))
        return result

    def _put(self, key: tuple[Any, ...], value: Any) -> None:
        old = self._entries.get(key)
        self._firsts += isinstance(value, _First) - isinstance(old, _First)
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            _, gone = self._entries.popitem(last=False)
            self._firsts -= isinstance(gone, _First)

    def _draft(self, ex: Extractor, sight: Sight) -> _Draft | None:
        """``sight``'s statement with placeholders where ``_neutral`` shows that no value of the literal
        changes the events, its other literals kept, parsed; None when it is not one statement, or a
        placeholder does not stay a literal where it was shown neutral once the others are kept.

        Where the statement's skeleton has a plan, its text is tokenized once: the template's tokens
        are the statement's with the placeholders' texts and offsets (``_retoken``), parsed as
        ``iter_script`` parses a statement of one chunk."""
        spans = sight.spans()
        if spans is None:
            return None
        types = [tt for tt, _ in sight.literals]
        renders = tuple(self._render(ex, tt, _placeholder(tt, n).strip("'")) for n, tt in enumerate(types))
        if any(r.strip("'") in sight.text for r in renders):  # a placeholder's text in the statement itself
            return None
        tokens = _own_tokens(sight)
        kept: frozenset[int] = frozenset()
        while True:
            text = template_sql(sight.sql, spans[1], types, kept)
            if tokens is not None and _one_chunk(text, ex.options.limits.max_statement_bytes):
                plan = sight.plan
                assert plan is not None and sight.found is not None
                edits = {
                    i: _placeholder(tt, n).strip("'") if n not in kept else sight.found[plan.literals[n]]
                    for n, (i, tt) in enumerate(zip(plan.literal_tokens, types, strict=True))
                }
                _retoken(tokens, edits, plan.numbers, plan.literals, plan.literal_tokens)
                piece = _parse_chunk(0, tokens, text, dialect_of(ex.options.dialect), ex.options.limits)
            else:
                pieces = iter_script(text, ex.options.dialect, ex.options.limits)
                piece = next(pieces, None)  # type: ignore[assignment]
                if piece is None or next(pieces, None) is not None:
                    return None
            if piece.tree is None or piece.error or piece.skip:
                return None
            places = _neutral(piece.tree, types, kept)
            if places is None:
                return None
            if all(places.values()):
                fixed = tuple((n, sight.literals[n][1]) for n in sorted(kept))
                return _Draft(piece, text, renders, fixed, spans[0], tokens)
            if kept:  # a placeholder moved once the other literals were put back
                return None
            kept = frozenset(n for n, neutral in places.items() if not neutral)

    def _first_sight(
        self, ex: Extractor, sight: Sight, run: RunInfo, index: int
    ) -> tuple[_Template | str, ScriptResult] | None:
        """A first sight extracted once: the statement itself when it has no abstracted literal, else
        its template (``_draft``), when the statement cannot change the session (``_plain``). Then the
        template (or ``_REFUSED``) and the statement's result; None when neither applies (nothing was
        extracted: the caller takes the general path)."""
        if sight.hinted():
            return None
        state = _state(ex)
        if not sight.literals:  # the template is the statement
            result = ex.extract_text(sight.sql, run)
            if _changed(state, ex) or not _reusable(result):
                return _REFUSED, result
            own = result.statements[0]
            if _held(own, ()):
                return _REFUSED, result
            shape = sight.shape() if any(e.diagnostics for e in own.events) else None
            template = _make_template(own, sight.sql, shape, (), run, ex.catalog.version > 0)
            again = self._instantiate(ex, template, sight, run, index)
            return (template if again is not None and _same(again, own, run.timestamp is None) else _REFUSED), result
        draft = self._draft(ex, sight)
        if draft is None or not _plain(draft.piece.tree, ex.options.statements):
            return None
        result = self._extract(ex, draft, run, index)
        if _changed(state, ex):  # not for a plain statement
            return _REFUSED, ex.extract_text(sight.sql, run)
        if not _reusable(result) or _held(result.statements[0], draft.renders):
            return _REFUSED, ex.extract_text(sight.sql, run)
        if any(e.diagnostics for e in result.statements[0].events):  # their messages may hold statement text:
            real = ex.extract_text(sight.sql, run)  # the template checked against the statement, as on a second sight
            if not _reusable(real):
                return _REFUSED, real
            return self._checked(ex, result, draft, run, _First(sight, run, index, real.statements[0])), real
        template = _make_template(
            result.statements[0], draft.text, None, draft.renders, run, ex.catalog.version > 0, draft.fixed
        )
        reused = self._instantiate(ex, template, sight, run, index)
        if reused is None:  # its literals make two entries one (``_instantiate``): extracted as it is
            return template, ex.extract_text(sight.sql, run)
        ex.index += 1
        return template, ScriptResult((reused,))

    @staticmethod
    def _extract(ex: Extractor, draft: _Draft, run: RunInfo, index: int) -> ScriptResult:
        """The draft's statement extracted as the ``index``-th of the session (``ex.index`` left as it is)."""
        saved = ex.index
        ex.index = index
        try:
            return ScriptResult(tuple(ex.run_pieces([draft.piece], run)))
        finally:
            ex.index = saved
            draft.piece = draft.piece.without_tree()

    def _verified(self, ex: Extractor, run: RunInfo, index: int, real: _First) -> _Template | str:
        """The template made from ``real``'s statement (``_draft``), extracted at ``index``, if putting
        the literals of ``real`` back gives exactly the result ``real`` was extracted to."""
        draft = self._draft(ex, real.sight)
        if draft is None:
            return _REFUSED
        return self._checked(ex, self._extract(ex, draft, run, index), draft, run, real)

    def _checked(
        self, ex: Extractor, result: ScriptResult, draft: _Draft, run: RunInfo, real: _First
    ) -> _Template | str:
        """The template of ``result`` (extracted from ``draft``), if putting the literals of ``real``
        back gives exactly the result ``real`` was extracted to."""
        if not _reusable(result) or _held(result.statements[0], draft.renders):
            return _REFUSED
        made = draft.made  # where its diagnostics are
        tshape = Shape(made, (), ()) if made is not None else shape_of(draft.text, ex.dialect_impl)
        if tshape is None or len(tshape.tokens) != draft.tokens:
            return _REFUSED
        template = _make_template(
            result.statements[0], draft.text, tshape, draft.renders, run, ex.catalog.version > 0, draft.fixed
        )
        again = self._instantiate(ex, template, real.sight, real.run, real.index)
        if again is None or not _same(again, real.result, real.run.timestamp is None):
            return _REFUSED
        return template

    def _render(self, ex: Extractor, tt: TokenType, text: str) -> str:
        key = (tt, text)
        found = self._renders.get(key)
        if found is None:
            if len(self._renders) > 4 * self.size:
                self._renders.clear()
            found = self._renders[key] = ex.render(_literal(tt, text))
        return found

    def _instantiate(
        self, ex: Extractor, t: _Template, sight: Sight, run: RunInfo, index: int
    ) -> StatementResult | None:
        """The template's result for ``sight``'s statement, or None when it cannot be had from it (a
        statement that may hold a secret, a diagnostic whose position does not map)."""
        text = sight.text
        if sight.hinted():  # the extraction redacts its text and expressions
            return None
        known = self._renders
        news = [known.get(x) or self._render(ex, *x) for x in sight.literals]
        query_id = run.query_id or generated_query_id(text, index)
        timestamp = run.timestamp or now_iso()
        own_properties = (
            t.properties is not None and ex.catalog.version == 0 and run.external_catalog_properties == t.properties
        )
        events: list[LineageInfo] = []
        for te in t.events:
            e = te.event
            diagnostics = te.diagnostics and _diagnostics(te, sight, news, index)
            if diagnostics is None:
                return None
            c = e.context
            if own_properties:  # the session's catalog and database (keyed), the base tables' properties
                ctx = _new_context(  # its properties the template's, a ``MappingProxyType`` as ``__post_init__`` makes
                    c.source_command,
                    query_id,
                    text,
                    run.user,
                    run.client_ip,
                    c.database,
                    c.catalog,
                    c.state,
                    timestamp,
                    run.duration_ms,
                    c.external_catalog_properties,
                )
            else:
                ctx = ex.context_for(text, e.source_command, run, index, [e.target.table, *e.sources, *e.via])
            lists = [_patched(items, slots, news) for items, slots in zip(te.parts, te.slots, strict=True)]
            merging = te.merging
            if (merging[0] and _merged(lists[1])) or (merging[1] and _merged(lists[2])):
                return None  # the extraction keeps the first of entries of one text: the template has both
            # the template's event id where the query id is its own (a first sight's: the template was extracted
            # with the statement's run): the extraction's ``make_event_id`` of that query id and the same target
            eid = e.event_id if ctx.query_id == c.query_id else event_id(ctx.query_id, te.name)
            events.append(
                _new_event(  # positional: the fields in ``_KNOWN_FIELDS``'s order (``_MODEL_KNOWN``)
                    eid,
                    e.source_command,
                    e.target,
                    e.sources,
                    lists[0],
                    lists[1],
                    lists[2],
                    ctx,
                    e.status,
                    diagnostics,
                    e.via,
                    e.version,
                    e.incomplete_columns,
                )
                if _MODEL_KNOWN
                else replace(
                    e,
                    event_id=eid,
                    direct=lists[0],
                    dataset_indirect=lists[1],
                    output_indirect=lists[2],
                    context=ctx,
                    diagnostics=diagnostics,  # type: ignore[arg-type]  # the ``_diagnostics`` (not None here)
                )
            )
        s = t.result
        first = sight.first
        return _new_result(index, first[1], first[2], text, s.kind, tuple(events), s.skip_reason, s.error)


def _diagnostics(te: _Event, sight: Sight, news: list[str], index: int) -> tuple[Diagnostic, ...] | None:
    """The event's diagnostics at the statement's own positions, with its literals in their messages
    (None when a position does not map to a token of the statement)."""
    out = []
    for d, pieces, k in te.diagnostics:
        line, column = d.line, d.column
        if k is not None:
            moved = sight.position(k) if k >= 0 else None
            if moved is None:
                return None
            line, column = moved
        message = _fill(pieces, news) if len(pieces) > 1 else d.message
        statement_index = index if d.statement_index is not None else None
        if (message, line, column, statement_index) != (d.message, d.line, d.column, d.statement_index):
            d = _with(d, message=message, line=line, column=column, statement_index=statement_index)
        out.append(d)
    return tuple(out)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


_new_event = frozen_maker(LineageInfo)
_new_context = frozen_maker(QueryContext, post_init=False)
_new_result = frozen_maker(StatementResult)
_new_script = frozen_maker(ScriptResult)


def _with(x: Any, **changes: Any) -> Any:
    """``replace(x, **changes)`` for the model's frozen dataclasses, without ``replace``'s checks."""
    cls = type(x)
    return frozen_maker(cls)(*[changes[n] if n in changes else getattr(x, n) for n in _field_names(cls)])


# A slot's entries made so far, by their expression: ``id(slot)`` → (the slot, {expression: entry}). An
# entry is a frozen value: one whose expression came out the same again (a status, a level, a region) is
# the same object (as the template's entries without placeholders are), not made again (some 800
# instructions a field). The slot is kept with them (its id is not reused while it is here).
_MADE: dict[int, tuple[Any, dict[str, Any]]] = {}  # (a ``Slot`` as ``Any``: a compiled tuple type is unboxed,
# and each use would box a new object, of another id)
_MADE_SLOTS, _MADE_PER_SLOT = 4096, 16


def _patched(items: tuple[Any, ...], slots: tuple[Any, ...], news: list[str]) -> tuple[Any, ...]:
    """The entries with the placeholders of their expressions replaced (the others kept as they are)."""
    if not slots:
        return items
    out = list(items)
    made = _MADE
    for slot in slots:
        k, fmt, make, values, at = slot
        expression = fmt.format(*news) if type(fmt) is str else fmt[0] + news[fmt[1]] + fmt[2]
        known = made.get(id(slot))
        if known is None or known[0] is not slot:
            if len(made) >= _MADE_SLOTS:
                made.clear()
            known = made[id(slot)] = (slot, {})
        entries = known[1]
        entry = entries.get(expression)
        if entry is None:
            args = list(values)
            args[at] = expression
            entry = make(*args)
            if len(entries) >= _MADE_PER_SLOT:
                entries.clear()
            entries[expression] = entry
        out[k] = entry
    return tuple(out)


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Like, exp.ILike)
_CONNECTIVES = (exp.And, exp.Or, exp.Not, exp.Paren)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
_ASSIGNING = (exp.Update, exp.Merge, exp.When, exp.Set, exp.SetItem, exp.Properties, exp.Property, exp.OnConflict)
_BY_NAME = ("group", "order", "having", "qualify", "windows", "distinct", "sort", "cluster", "distribute")
# no placeholder under these (a literal there may name a path, a partition, a pivoted column, a row)
_NEVER_UNDER = (
    exp.Table,
    exp.Partition,
    exp.Pivot,
    exp.Values,
    exp.Lateral,
    exp.Unnest,
    exp.Properties,
    exp.Directory,
    exp.Schema,
    exp.Into,
    exp.Tuple,
)


def _state(ex: Extractor) -> tuple[Any, ...]:
    """What a statement may change in ``ex``'s session: its catalog and database, the catalog layer's
    version, its temporary views."""
    return ex.session.catalog, ex.session.database, ex.catalog.version, list(ex.session.temp_views.values())


def _changed(state: tuple[Any, ...], ex: Extractor) -> bool:
    """The session is not as ``_state`` saw it (a temporary view made again, even the same, is a change)."""
    now = _state(ex)
    if state[:3] != now[:3] or len(state[3]) != len(now[3]):
        return True
    return any(a is not b for a, b in zip(state[3], now[3], strict=True))


def _plain(tree: exp.Expression | None, statements: str) -> bool:
    """The statement cannot change the session, whatever its literals: an INSERT into a named table
    (not a path, a directory or a function), or, where the Doris rules skip it, a SELECT without INTO."""
    if isinstance(tree, exp.Insert):
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        return isinstance(target, exp.Table) and isinstance(target.this, exp.Identifier)
    return statements == "doris" and type(tree) is exp.Select and not tree.args.get("into")


def _neutral(tree: exp.Expression, types: list[TokenType], kept: frozenset[int]) -> dict[int, bool] | None:
    """For each placeholder of the template (each literal not in ``kept``), whether it is a literal
    where its value shows only in the text of the expression that holds it (``_neutral_at``); None
    when a placeholder is not exactly one literal of its kind (it went into a name, an interval, a
    path…), or a literal kept in the text looks like one."""
    wanted = {
        (f"hw@lit{n}@" if tt is _STRING else str(909000000 + n)): (n, tt is _STRING)
        for n, tt in enumerate(types)
        if n not in kept
    }
    places: dict[int, bool] = {}
    literal, expression = exp.Literal, exp.Expr
    # every node once, as ``tree.walk()`` (whose generators cost some 2,400 instructions a node)
    stack: list[Any] = [tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        args = node.args
        if type(node) is literal:
            want = wanted.get(args.get("this"))
            if want is not None:
                n, string = want
                if string != node.is_string or n in places:
                    return None
                places[n] = _neutral_at(node)
                continue
        for value in args.values():  # (``isinstance`` is dear where it fails: a look-up of ``__class__``)
            if value is None or value is True or value is False:
                continue
            kind = type(value)
            if kind is str:
                if "hw@lit" in value or "9090000" in value:
                    return None
            elif kind is list:
                for v in value:
                    if type(v) is not str and isinstance(v, expression):
                        push(v)
            elif isinstance(value, expression):
                push(value)
    return places if len(places) == len(wanted) else None


# What ``_neutral_at`` asks of a node's class, as bits (``_kind``: ``isinstance`` where it fails looks
# up the node's ``__class__``, some 300 instructions on sqlglot's compiled classes)
_GROUPS = (
    _NEVER_UNDER,
    (exp.Neg, exp.Paren),
    (exp.Limit, exp.Offset),
    _ARITHMETIC,
    (exp.If,),
    (exp.Case,),
    (exp.Alias,),
    (exp.Select,),
    (exp.Insert,),
    _COMPARISONS,
    (exp.In,),
    (exp.Between,),
    _CONNECTIVES,
    _ASSIGNING,
)
_NEVER, _SIGN, _LIMIT, _ARITH, _IF, _CASE, _ALIAS, _SELECT, _INSERT, _COMPARE, _IN, _BETWEEN, _CONNECT, _ASSIGN = (
    1 << k for k in range(len(_GROUPS))
)
_KINDS: dict[type, int] = {}


def _kind(x: Any) -> int:
    """The bits of ``_GROUPS`` ``x`` is an instance of (0 for None)."""
    cls = type(x)
    bits = _KINDS.get(cls)
    if bits is None:
        bits = _KINDS[cls] = sum(1 << k for k, group in enumerate(_GROUPS) if issubclass(cls, group))
    return bits


def _neutral_at(node: Any) -> bool:
    """The literal ``node``'s value shows only in the text of the expressions that hold it: the
    extractor reads no value there (as it reads an ordinal, a path, a partition value, a pivoted or
    an output name), and the parser makes a literal of any string or number token there.

    Such places (none under ``_NEVER_UNDER``): compared with an expression of columns (``=``, ``<>``,
    ``<``, ``>``, ``<=``, ``>=``, ``LIKE``, ``IN (…)``, ``BETWEEN``), but for an assignment; an
    operand of ``+ - * / %``; a value of THEN or ELSE; an aliased item of a select list, or an item of
    the select list of an INSERT's own query that orders, groups and filters nothing by name; the
    number of a LIMIT or OFFSET. Through a sign and parentheses. A name made of the value (a query's
    output name) is found in the event itself (``_names_in``)."""
    parent = node.parent
    while _kind(parent) & _SIGN:
        node, parent = parent, parent.parent
    key = node.arg_key
    if parent is None or not _outside(parent):
        return False
    kind = _kind(parent)
    if kind & _LIMIT:
        return key == "expression" and type(node) is exp.Literal and not node.is_string
    if kind & _ARITH:
        return key in ("this", "expression")
    if (kind & _IF and key == "true") or (kind & _CASE and key == "default"):
        return True
    if kind & _ALIAS and key == "this":
        return bool(_kind(parent.parent) & _SELECT) and parent.arg_key == "expressions"
    if kind & _SELECT and key == "expressions":
        up = parent.parent
        top = up is None or (bool(_kind(up) & _INSERT) and parent.arg_key == "expression")
        return top and not any(parent.args.get(k) for k in _BY_NAME)
    if kind & _COMPARE and key in ("this", "expression"):
        other = parent.args.get("expression" if key == "this" else "this")
    elif (kind & _IN and key == "expressions") or (kind & _BETWEEN and key in ("low", "high")):
        other = parent.this
    else:
        return False
    if other is None or type(other) is str or not isinstance(other, exp.Expression):
        return False
    if type(other) is not exp.Column and other.find(exp.Column) is None:
        return False
    condition: Any = parent
    while _kind(condition.parent) & _CONNECT:
        condition = condition.parent
    return not _kind(condition.parent) & _ASSIGN


def _outside(node: Any) -> bool:
    """No ancestor of ``node`` is of ``_NEVER_UNDER``."""
    while node is not None:
        if _kind(node) & _NEVER:
            return False
        node = node.parent
    return True


def _held(s: StatementResult, renders: tuple[str, ...]) -> bool:
    """A placeholder in the result's own texts (its kind, its reason for a skip) or in an event's names
    (``_names_in``), or an event's query id in its names (a query's result is a dataset named by it)."""
    text = f"{s.kind}\0{s.skip_reason}".lower()
    needles = [r.strip("'").lower() for r in renders]
    return any(r in text for r in needles) or any(
        _names_in(e, [*needles, e.context.query_id.strip("'").lower()]) for e in s.events
    )


def _may_merge(items: tuple[IndirectLineage, ...], slots: tuple[Slot, ...]) -> bool:
    """``_merged`` may be true of the entries with other literals: an entry whose expression holds a
    placeholder has the column and type of another, or two entries are already of one text."""
    if not slots:
        return False
    keys = [(x.target_column, x.type) for x in items]
    return _merged(items) or any(keys.count(keys[k]) > 1 for k, *_ in slots)


def _merged(items: tuple[IndirectLineage, ...]) -> bool:
    """Two indirect entries of one column, type and text (which ``lineage_event`` makes one)."""
    return len({(x.target_column, x.type, x.expression) for x in items}) < len(items)


def _names_in(e: LineageInfo, needles: list[str]) -> bool:
    """True when one of ``needles`` (placeholders, lower case) reached anything of the event but its
    expressions, messages and context (which the template rebuilds): a table or column name made from a
    literal, say."""
    out: list[str] = []
    if _MODEL_KNOWN:
        _names(e, out)
    else:
        _texts(e, out, set())
    text = "\0".join(out).lower()
    return any(r in text for r in needles)


# The fields of the model's classes ``_names`` reads, all of them but enums, numbers and flags (and
# those ``_UNREAD`` passes over); ``_texts`` walks any other model generically.
_KNOWN_FIELDS = {
    LineageInfo: "event_id source_command target sources direct dataset_indirect output_indirect context status "
    "diagnostics via version incomplete_columns",
    IncompleteColumn: "target_column codes",
    Target: "table columns",
    TableRef: "catalog database name",
    Field: "name type",
    ColumnRef: "table column",
    DirectInput: "column labels masking",
    DirectLineage: "target_column expression type origin sources inputs branch",
    IndirectLineage: "type expression sources target_column",
    Diagnostic: "code severity message statement_index line column construct target_column",
}
_MODEL_KNOWN = all(tuple(f.name for f in fields(c)) == tuple(n.split()) for c, n in _KNOWN_FIELDS.items())


def _names(e: LineageInfo, out: list[str]) -> None:
    """``_texts`` of an event of the model as ``_KNOWN_FIELDS`` knows it, without the generic walk."""
    add = out.append
    done: set[int] = set()

    def table(t: TableRef) -> None:
        add(t.catalog)
        add(t.database or "")
        add(t.name)

    def column(c: ColumnRef) -> None:
        if id(c) not in done:
            done.add(id(c))
            table(c.table)
            add(c.column)

    table(e.target.table)
    for f in e.target.columns:
        add(f.name)
        add(f.type or "")
    for t in (*e.sources, *e.via):
        table(t)
    for d in e.direct:
        add(d.target_column)
        for c in d.sources:
            column(c)
        for i in d.inputs:
            column(i.column)
            out.extend(i.labels)
    for x in (*e.dataset_indirect, *e.output_indirect):
        add(x.target_column or "")
        for c in x.sources:
            column(c)
    for g in e.diagnostics:
        add(g.code)
        add(g.construct or "")
        add(g.target_column or "")
    add(e.version)
    for k in e.incomplete_columns:
        add(k.target_column)
        out.extend(k.codes)


_UNREAD = frozenset(("event_id", "context", "expression", "message"))  # what ``_names_in`` passes over


def _texts(x: Any, out: list[str], seen: set[int]) -> None:
    """Every string in ``x`` (the model's frozen dataclasses, tuples, mappings), but in ``_UNREAD`` fields."""
    if isinstance(x, str):
        out.append(x)
    elif isinstance(x, tuple | list):
        for y in x:
            _texts(y, out, seen)
    elif x is None or isinstance(x, int | float):
        return
    elif id(x) not in seen:
        seen.add(id(x))
        if isinstance(x, Mapping):
            for k, v in x.items():
                _texts(k, out, seen)
                _texts(v, out, seen)
            return
        cls = type(x)
        names = _FIELDS.get(cls)
        if names is None:
            try:
                names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
            except TypeError:  # not a dataclass
                out.append(repr(x))
                return
        for name in names:
            if name not in _UNREAD:
                _texts(getattr(x, name), out, seen)


def _reusable(result: ScriptResult) -> bool:
    return len(result.statements) == 1 and result.statements[0].error is None


def _same(a: StatementResult, b: StatementResult, untimed: bool) -> bool:
    """Equal results; ``untimed``: the events' times are the clock's (no time was given), not compared."""

    def form(e: LineageInfo) -> dict[str, Any]:
        d = event_to_dict(e)
        if untimed:
            d["context"].pop("timestamp", None)
        return d

    return (
        (a.index, a.line, a.column, a.sql, a.kind, a.skip_reason, a.error)
        == (b.index, b.line, b.column, b.sql, b.kind, b.skip_reason, b.error)
        and len(a.events) == len(b.events)
        and all(x == y or form(x) == form(y) for x, y in zip(a.events, b.events, strict=True))
    )
