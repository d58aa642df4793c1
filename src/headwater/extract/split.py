"""Pass 1: split a script into statements and parse each one on its own.

A statement that fails to parse becomes a ``Piece`` with an error; the others are unaffected.
The script is tokenized once (a long one a window at a time); each statement is parsed from its own
tokens when its piece is taken (``iter_script``), so extraction holds one statement's tree at a time.

>>> pieces = split_script("SELECT 1;\\nSELECT FROM WHERE;\\nSELECT 2", "generic")
>>> [(p.index, p.line, p.tree is not None) for p in pieces]
[(0, 1, True), (1, 2, False), (2, 3, True)]
>>> pieces[1].error.code
'parse_error'
"""

from __future__ import annotations

import dataclasses
import operator
import re
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple, overload

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.hive import Hive
from sqlglot.errors import ParseError, TokenError
from sqlglot.parser import Parser
from sqlglot.tokens import Token, Tokenizer, TokenType

from headwater.catalog.dialects import Flink, flink_tokens, sqlglot_dialect
from headwater.extract.blocks import ROUTINE_WORDS, UNCOUNTED_CLOSE, BlockTracker
from headwater.extract.deep import call_deep, in_deep_thread
from headwater.extract.guards import Limits, check_tokens, oversized_spans, too_large_message
from headwater.model import Diagnostic, Severity

# Statements with more tokens or deeper nesting than this are parsed and resolved in a deep worker
# (``headwater.extract.deep``): the main thread's stack and recursion limit are too small for them.
DEEP_TOKENS = 1_500
DEEP_NESTING = 40


@dataclass(frozen=True, slots=True)
class Piece:
    """One statement of a script: its text, where it starts, and its tree or its error."""

    index: int
    line: int
    column: int
    sql: str
    tree: exp.Expression | None
    error: Diagnostic | None = None
    skip: str | None = None  # a statement with no lineage meaning of its own (statement-set markers)
    deep: bool = False  # resolve it in a deep worker too (see DEEP_TOKENS)
    notes: tuple[Diagnostic, ...] = ()  # what the split changed (long IN lists shortened): for the event

    def without_tree(self) -> Piece:
        """The piece with its tree let go (``dataclasses.replace(piece, tree=None)``, without its
        look-up of the fields)."""
        return Piece(self.index, self.line, self.column, self.sql, None, self.error, self.skip, self.deep, self.notes)


def split_script(sql: str, dialect: str, limits: Limits | None = None) -> list[Piece]:
    """Every piece of ``sql`` at once (``iter_script`` as a list): for a caller that needs them all,
    such as the project order; extraction streams them instead."""
    return list(iter_script(sql, dialect, limits))


def iter_script(sql: str, dialect: str, limits: Limits | None = None) -> Iterator[Piece]:
    """Split ``sql`` and parse one statement at a time, as the caller takes them; never raises for bad
    SQL (errors are on the pieces).

    The script is tokenized once (a long one a window at a time: ``_Windows``); each statement's tree
    is made when its piece is taken, so a caller that lets go of each piece holds one tree and one
    window's tokens at a time, however long the script (the cyclic
    collector then never walks the trees of statements still to come or already done). A statement
    past one of the ``limits`` (size, nesting, operator chain) or with a NUL byte is a piece with an
    error, and is never given to the parser.

    >>> pieces = iter_script("SELECT 1;\\nSELECT 2", "generic")
    >>> next(pieces).tree.sql(), next(pieces).line
    ('SELECT 1', 2)
    """
    for step in _steps(sql, dialect, limits):
        yield _piece_of(step)


def _piece_of(step: Piece | _Chunk) -> Piece:
    return (
        step if isinstance(step, Piece) else _parse_chunk(step.index, step.tokens, step.sql, step.dialect, step.limits)
    )


class ScriptPieces(Sequence[Piece]):
    """A script's statements, split now and parsed each time they are taken (``iter_script``), with
    their number known before any is parsed: for a progress total, or a caller that reads them twice
    (the project order, then extraction) without holding every tree in between.

    What is kept of a statement is where its tokens are in the script (a few integers: ``_SPAN``), not
    the tokens (~5 KB a statement): taking it tokenizes that stretch again, from the token before it,
    so each token is the one the whole script's tokenizing gave (its comments included). Memory
    stays flat however many statements the script has: the script's text and ~40 bytes a statement.

    >>> pieces = ScriptPieces("SELECT 1;\\nSELECT 2; SELECT FROM", "generic")
    >>> len(pieces), [p.tree is not None for p in pieces], pieces[1].line
    (3, [True, True, False], 2)
    """

    def __init__(self, sql: str, dialect: str, limits: Limits | None = None, keep: TreeBudget | None = None) -> None:
        self._dialect, self._limits = dialect, limits or Limits.from_env()
        self._keep = keep
        self._kept: dict[int, Piece] = {}  # parsed while ``keep`` was open, until taken again
        self._text = ""  # the (masked) script the spans point into
        code = "i" if len(sql) < 2**31 - 2 else "q"  # every integer kept is at most the script's length
        self._spans = array(code)  # _SPAN integers per statement that is parsed from tokens
        # statement → its first integer in _spans, or -1: a Piece of _pieces
        self._at = array("i" if _SPAN * len(sql) < 2**31 else "q")
        self._pieces: dict[int, Piece] = {}  # statements that need no parsing (errors, limits)
        for step in _steps(sql, dialect, self._limits):
            if isinstance(step, Piece):
                self._pieces[len(self._at)] = step
                self._at.append(-1)
                continue
            self._text = step.sql
            self._at.append(len(self._spans))
            self._spans.extend(step.span)

    def __len__(self) -> int:
        return len(self._at)

    @overload
    def __getitem__(self, i: int) -> Piece: ...

    @overload
    def __getitem__(self, i: slice) -> list[Piece]: ...

    def __getitem__(self, i: int | slice) -> Piece | list[Piece]:
        if isinstance(i, slice):
            return [self._piece(k) for k in range(*i.indices(len(self._at)))]
        return self._piece(range(len(self._at))[i])

    def __iter__(self) -> Iterator[Piece]:
        for k in range(len(self._at)):
            yield self._piece(k)

    def _piece(self, k: int) -> Piece:
        at = self._at[k]
        if at < 0:
            return self._pieces[k]
        kept = self._kept.pop(k, None)
        if kept is not None:
            return kept
        piece = self._parsed(at)
        if self._keep is not None and self._keep.take(len(piece.sql)):
            self._kept[k] = piece
        return piece

    def _parsed(self, at: int) -> Piece:
        index, start, line, col, end, front, back, first, last = self._spans[at : at + _SPAN]
        d = dialect_of(self._dialect)
        text = self._text
        try:
            tokens = _tokenize(d, " " * (col - 1) + text[start:end])
        except (TokenError, RecursionError):
            tokens = []
        shift, lines = start - (col - 1), line - 1
        count = len(tokens) - front - back
        chunk = tokens[front : len(tokens) - back]
        if count <= 0 or chunk[0].start + shift != first or chunk[-1].end + shift != last:
            chunk = _tokens_again(text, self._dialect, self._limits, index)  # never seen: the slow, sure way
        else:
            for tok in chunk:
                tok.start += shift
                tok.end += shift
                tok.line += lines
        return _parse_chunk(index, chunk, text, d, self._limits)


class TreeBudget:
    """How much of a project's statements ``ScriptPieces`` keep parsed between two reads (the order,
    then extraction), in characters of SQL (a tree takes 50 to 125 bytes a character): within it a statement
    is parsed once, as ``extract --project`` does; past it, again. ``close`` it after the first read.

    >>> budget = TreeBudget(100)
    >>> pieces = ScriptPieces("SELECT 1; SELECT 2", "generic", keep=budget)
    >>> first = list(pieces); budget.close()
    >>> [a is b for a, b in zip(first, pieces)], [a is b for a, b in zip(first, pieces)]
    ([True, True], [False, False])
    """

    def __init__(self, chars: int) -> None:
        self.left = chars

    def take(self, chars: int) -> bool:
        if chars > self.left:
            self.left = 0  # the order's first statements are kept, not a scattering of small ones
            return False
        self.left -= chars
        return True

    def close(self) -> None:
        self.left = 0


TREE_BUDGET = 1_000_000
"""``TreeBudget``'s default: 50 to 125 MB of trees (the TPC-DS corpus's measure: ~440 bytes a token;
a file of short generated INSERTs: ~125 bytes a character), held until extraction takes them."""

_SPAN = 9
"""A statement's integers in ``ScriptPieces``: its index; the stretch tokenized again (start offset,
its line and column, end offset); tokens to drop before and after the statement's own (the one
before it, which sets the tokenizer's state as the whole script had it, and the one after, which
takes the comments the statement's last token would otherwise get); its first token's start and last
token's end (checked)."""


def _tokens_again(text: str, dialect: str, limits: Limits, index: int) -> list[Token]:
    """The tokens of statement ``index`` by splitting ``text`` again (when its span did not match)."""
    for step in _steps(text, dialect, limits):
        if isinstance(step, _Chunk) and step.index == index:
            return step.tokens
    raise LookupError(f"statement {index} is not in the script")


class _Chunk(NamedTuple):
    """One statement's tokens, to be parsed (``_parse_chunk``'s arguments)."""

    index: int
    tokens: list[Token]
    sql: str
    dialect: Dialect
    limits: Limits
    span: tuple[int, ...] = ()
    """Where its tokens are: ``_SPAN``'s integers, which ``ScriptPieces`` keeps instead of the tokens."""


def _steps(sql: str, dialect: str, limits: Limits | None) -> Iterator[Piece | _Chunk]:
    """The statements of ``sql`` in order: a piece where no parsing is needed (an error, a statement
    past a limit), else its tokens to parse. A long script is tokenized a window at a time
    (``_Windows``), and the window's list lets go of each token as it is taken."""
    limits = limits or Limits.from_env()
    d = dialect_of(dialect)
    oversized = list(oversized_spans(sql, limits.max_statement_bytes))
    masked = _mask(sql, oversized) if oversized else sql
    windows = _Windows(masked, d)
    index = 0
    big = 0  # the next oversized statement (each was blanked: it is cut, as an error piece, before the
    # first token after it, ending the statement being cut there, even inside a block)
    carry: list[Token] = []  # a block statement's tokens that the last window ended inside
    before = (0, 1, 1, 0)  # where a statement's stretch starts (``_SPAN``): offset, line, column, tokens to drop
    while True:
        if not carry:  # a window starts with the tokenizer's state fresh, at a line's start
            before = (windows.pos, windows.lines + 1, 1, 0)
        try:
            window = windows.next()
        except TokenError:
            if oversized:
                for a, b in oversized[big:]:
                    yield _too_large(index, sql, a, b, limits)
                    index += 1
            else:  # the rest by its text, as a whole script that does not tokenize is split
                begin = _start_of(carry[0], masked)[0] if carry else windows.pos
                yield from _split_by_text(_mask(sql, [(0, begin)]) if begin else sql, d, limits, index)
            return
        except RecursionError:
            yield Piece(index, 1, 1, sql[:200], None, _diag("cannot tokenize: the script nests too deep", index, 1, 1))
            return
        if window is None:
            break
        tokens = carry + window if carry else window
        carry = []
        last = windows.pos >= len(masked)
        cuts = [
            bisect_left(tokens, b, key=_TOKEN_START) if last or b < windows.pos else _NEVER for _, b in oversized[big:]
        ]
        first_big = big
        types = list(map(_TOKEN_TYPE, tokens))
        n = len(tokens)
        cut = cuts[0] if cuts else _NEVER
        i = 0
        while i < n:
            if i == cut:
                while big - first_big < len(cuts) and cuts[big - first_big] == i:
                    yield _too_large(index, sql, *oversized[big], limits)
                    index += 1
                    big += 1
                cut = cuts[big - first_big] if big - first_big < len(cuts) else _NEVER
                continue
            try:
                j = types.index(TokenType.SEMICOLON, i, min(cut, n))
            except ValueError:  # no semicolon before the next cut (or the end)
                j = n
            if cut <= j:  # an oversized statement ends this one
                chunk, end = tokens[i:cut], cut
            else:
                chunk = tokens[i:j]
                if not _may_hold_a_block(chunk, masked):  # the tracker would end the statement at this semicolon
                    end = j + 1
                else:
                    chunk, end, closed = _block_statement(tokens, i, min(cut, n))
                    if not closed and end == n and not last:  # the block goes on in the next window
                        carry = tokens[i:]
                        break
            if chunk:
                k = i + len(chunk)  # the token after the statement (its semicolon), if the window has one
                after = (tokens[k].end + 1, 1) if k < n else (windows.pos, 0)
                span = (index, *before[:3], after[0], before[3], after[1], chunk[0].start, chunk[-1].end)
            if end > i:
                before = (*_start_of(tokens[min(end, n) - 1], masked), 1)
            tokens[i:end] = _NONE * (min(end, n) - i)  # the list lets go of the statement's tokens
            if chunk:
                yield _Chunk(index, chunk, masked, d, limits, span)
                index += 1
            i = end
    for a, b in oversized[big:]:  # after the last token
        yield _too_large(index, sql, a, b, limits)
        index += 1


_DIALECTS: dict[str, Dialect] = {}


def dialect_of(name: str) -> Dialect:
    """The sqlglot dialect of ``name``, made once (``Dialect.get_or_raise`` of a name makes an
    instance at each call; a dialect holds only its settings, which nothing changes)."""
    d = _DIALECTS.get(name)
    if d is None:
        d = _DIALECTS[name] = Dialect.get_or_raise(sqlglot_dialect(name))
    return d


_LOCAL: Final = threading.local()


def _kept(d: Dialect) -> list[object]:
    """This thread's ``[d, tokenizer, parser]`` of ``d`` (each None until first asked for)."""
    kept: dict[int, list[object]] | None = getattr(_LOCAL, "tools", None)
    if kept is None:
        kept = _LOCAL.tools = {}
    tools = kept.get(id(d))
    if tools is None or tools[0] is not d:
        if len(kept) >= 64:
            kept.clear()
        tools = kept[id(d)] = [d, None, None]
    return tools


def _tokenize(d: Dialect, text: str) -> list[Token]:
    """``d.tokenize(text)`` by this thread's tokenizer of ``d``, made once: ``Dialect.tokenize`` makes
    one at every call (which costs about as much as tokenizing a short statement), and a tokenizer
    holds the state of one run at a time, so every thread keeps its own. It lets go of the text and
    its tokens after."""
    tools = _kept(d)
    tokenizer = tools[1]
    if not isinstance(tokenizer, Tokenizer):
        tokenizer = tools[1] = d.tokenizer()
    try:
        return tokenizer.tokenize(text)
    finally:
        tokenizer.tokenize("")


def _parse(d: Dialect, chunk: list[Token], sql: str) -> list[exp.Expr | None]:
    """``d.parser().parse(chunk, sql)`` by this thread's parser of ``d``, made once (as ``_tokenize``
    keeps its tokenizer), which lets go of the tokens and the script after."""
    tools = _kept(d)
    parser = tools[2]
    if not isinstance(parser, Parser):
        parser = tools[2] = d.parser()
    try:
        return parser.parse(chunk, sql)
    finally:
        parser.reset()


WINDOW = 1 << 18
"""Characters of a long script tokenized at a time: only one window's tokens are alive at once."""
_NEVER = 1 << 62
_LINE_END = re.compile(r";[ \t]*\r?\n")  # a window ends after a semicolon that ends its line


class _Windows:
    """The tokens of a script, a window of about ``WINDOW`` characters at a time (``next``), each with
    the offsets, lines and columns of the whole script; a script up to twice that is one window.

    A window ends after a semicolon that ends its line, once tokenizing it shows that semicolon to be a
    token of its own (not inside a string or comment): the tokenizer is then between tokens there, as
    when it reads the whole script, and a window starts at a line's start (its columns are the
    script's). Where no such semicolon is found in a few tries, the rest is one window."""

    TRIES = 4

    def __init__(self, text: str, d: Dialect) -> None:
        self.text = text
        self.d = d
        self.pos = 0
        """Where the next window starts (the script's length after the last)."""
        self.lines = 0
        """Newlines before ``pos``."""

    def next(self) -> list[Token] | None:
        """The next window's tokens (None after the last); raises what ``tokenize`` raises for the rest."""
        text, a, n = self.text, self.pos, len(self.text)
        if a >= n:
            return None
        tokens: list[Token] | None = None
        b = n
        if n - a > 2 * WINDOW:
            start = a + WINDOW
            for _ in range(self.TRIES):
                m = _LINE_END.search(text, start)
                if m is None:
                    break
                try:
                    found = _tokenize(self.d, text[a : m.end()])
                except (TokenError, RecursionError):
                    found = []
                if found and found[-1].token_type == TokenType.SEMICOLON and found[-1].start == m.start() - a:
                    tokens, b = found, m.end()
                    break
                start = m.end()
        if tokens is None:
            tokens = _tokenize(self.d, text[a:] if a else text)
        if a:
            lines = self.lines
            for tok in tokens:
                tok.start += a
                tok.end += a
                tok.line += lines
        self.lines += text.count("\n", a, b)
        self.pos = b
        return tokens


_TOKEN_TYPE = operator.attrgetter("token_type")
_TOKEN_START = operator.attrgetter("start")
_TOKEN_TEXT = operator.attrgetter("text")
_NONE = [None]


def _closes_uncounted(words: str) -> bool:
    r"""Whether a statement's words joined by NUL (upper case) hold an END IF / END LOOP (…): an END
    word followed by a word of ``UNCOUNTED_CLOSE``. Searched by ``str.find`` for each ``END``: a
    regular expression that may match at any word is tried at every character.

    >>> [_closes_uncounted(w) for w in ("END\x00IF", "A\x00END\x00LOOP\x00B", "CASE\x00END\x00IFX", "XEND\x00IF")]
    [True, True, False, False]
    """
    p = words.find("END\x00")
    while p >= 0:
        if p == 0 or words[p - 1] == "\x00":
            q = words.find("\x00", p + 4)
            if words[p + 4 : q if q >= 0 else len(words)] in UNCOUNTED_CLOSE:
                return True
        p = words.find("END\x00", p + 4)
    return False


def _may_hold_a_block(chunk: list[Token], sql: str = "") -> bool:
    """False when a ``BlockTracker`` fed ``chunk`` (the tokens up to the next semicolon) would not be
    inside a block at that semicolon, known without feeding it: the statement neither opens with
    BEGIN or DECLARE nor is a CREATE of a routine, and has no END IF / END LOOP (…) that the tracker
    counts as an opened block. The words are searched joined (a NUL in a token can only make it
    answer True, and the tracker then decides). ``sql``: the text the tokens were read from; when
    it is ASCII without a backslash, every token's text is a stretch of it but for quotes, so a
    statement whose text holds no routine word, or no END and no word an END may close, is answered
    from the text, without joining the words.

    >>> from sqlglot.dialects.dialect import Dialect
    >>> [_may_hold_a_block(Dialect.get_or_raise("mysql").tokenize(sql), sql) for sql in (
    ...     "SELECT CASE WHEN a THEN 1 END FROM s", "CREATE TABLE t (a INT)", "BEGIN",
    ...     "CREATE PROCEDURE p() BEGIN SELECT 1", "SELECT a FROM s END IF")]
    [False, False, True, True, True]
    """
    if not chunk:
        return False
    first = chunk[0].text.upper()
    if first in ("BEGIN", "DECLARE"):
        return True
    if sql:
        text = sql[chunk[0].start : chunk[-1].end + 1]
        if text.isascii() and "\\" not in text:  # no escape can make a token's text differ from the text
            up = text.upper()
            routine = first == "CREATE" and any(w in up for w in ROUTINE_WORDS)
            if not routine and not ("END" in up and any(w in up for w in UNCOUNTED_CLOSE)):
                return False
    words = "\x00".join(map(_TOKEN_TEXT, chunk)).upper()
    if first == "CREATE" and not ROUTINE_WORDS.isdisjoint(words.split("\x00")):
        return True
    return _closes_uncounted(words)


def _block_statement(tokens: list[Token], i: int, stop: int) -> tuple[list[Token], int, bool]:
    """The statement starting at ``tokens[i]`` cut by a ``BlockTracker`` (a semicolon inside BEGIN …
    END does not end it), the index after its ending semicolon, and whether one ended it (else it
    stopped at ``tokens[stop]``: an oversized statement there, or the end of the tokens)."""
    blocks = BlockTracker()
    chunk: list[Token] = []
    while i < stop:
        tok = tokens[i]
        i += 1
        if tok.token_type == TokenType.SEMICOLON and not blocks.inside():
            return chunk, i, True
        chunk.append(tok)
        blocks.feed(tok)
    return chunk, i, False


def _mask(sql: str, spans: list[tuple[int, int]]) -> str:
    """``sql`` with each span blanked: its newlines kept and the rest of its last line as spaces, so
    that every other statement keeps its offset, line and column."""
    parts: list[str] = []
    pos = 0
    for a, b in spans:
        parts.append(sql[pos:a])
        text = sql[a:b]
        newlines = text.count("\n")
        tail = len(text) - (text.rfind("\n") + 1) if newlines else len(text)
        parts.append(" " * (len(text) - newlines - tail) + "\n" * newlines + " " * tail)
        pos = b
    parts.append(sql[pos:])
    return "".join(parts)


def _too_large(index: int, sql: str, a: int, b: int, limits: Limits) -> Piece:
    while a < b and sql[a].isspace():
        a += 1
    line = sql.count("\n", 0, a) + 1
    col = a - (sql.rfind("\n", 0, a) + 1) + 1
    size = len(sql[a:b].encode("utf-8", "surrogatepass"))
    err = Diagnostic("statement_too_large", Severity.ERROR, too_large_message(size, limits), index, line, col)
    return Piece(index, line, col, sql[a : min(b, a + 200)] + " …", None, err)


def _start_of(tok: Token, sql: str) -> tuple[int, int, int]:
    """(offset, line, column) of a token's first character (the tokenizer records its end)."""
    if "\n" in tok.text:  # a token spanning lines: count from the text
        start = tok.start
        return start, sql.count("\n", 0, start) + 1, start - (sql.rfind("\n", 0, start) + 1) + 1
    return tok.start, tok.line, tok.col - (tok.end - tok.start)


SKIP_STATEMENT_SET = "statement-set: groups the statements inside it, each of which makes its own event"


_STATEMENT_SET = re.compile(r"EXECUTE\s+STATEMENT\s+SET\s+BEGIN\b", re.IGNORECASE)


def _parse_embedded(index: int, sql: str, begin: int, end: int, d: Dialect, limits: Limits) -> Piece:
    """Parse ``sql[begin:end]`` on its own, keeping line and column numbers of the whole script."""
    while begin < end and sql[begin].isspace():
        begin += 1
    line = sql.count("\n", 0, begin) + 1
    col = begin - (sql.rfind("\n", 0, begin) + 1) + 1
    padded = "\n" * (line - 1) + " " * (col - 1) + sql[begin:end]
    try:
        tokens = d.tokenize(padded)
    except TokenError as err:
        return Piece(index, line, col, sql[begin:end], None, _diag(f"cannot tokenize: {err}", index, line, col))
    return _parse_chunk(index, tokens, padded, d, limits)


def _words(chunk: list[Token], n: int) -> list[str]:
    return [t.text.upper() for t in chunk[:n]]


def _parse_chunk(index: int, chunk: list[Token], sql: str, d: Dialect, limits: Limits) -> Piece:
    start, line, col = _start_of(chunk[0], sql)
    text = sql[start : chunk[-1].end + 1]
    refused = _refuse(index, chunk, text, line, col, limits)
    if refused is not None:
        return refused
    # Flink statement sets: EXECUTE STATEMENT SET BEGIN <stmt>; <stmt>; END; and
    # BEGIN STATEMENT SET; <stmt>; END;  — the markers are skipped, the statements parsed.
    marker = _STATEMENT_SET.match(text)
    if marker is not None:
        rest = text[marker.end() :]
        if not rest.strip():
            return Piece(index, line, col, text, None, skip=SKIP_STATEMENT_SET)
        return _parse_embedded(index, sql, start + marker.end(), start + len(text), d, limits)
    if _words(chunk, 4) == ["BEGIN", "STATEMENT", "SET"] or (len(chunk) == 1 and chunk[0].text.upper() == "END"):
        return Piece(index, line, col, text, None, skip=SKIP_STATEMENT_SET)
    if isinstance(d, Flink):
        chunk = flink_tokens(chunk)
    if len(chunk) == 2 and chunk[0].token_type == TokenType.REPLACE and chunk[1].token_type == TokenType.STRING:
        return _parse_replace(index, sql, start, text, d, limits)  # the tokenizer kept the rest as one string
    notes: tuple[Diagnostic, ...] = ()
    if len(chunk) > 2 * limits.max_in_list:
        chunk, notes = _shorten_in_lists(chunk, limits.max_in_list, index)
    deep = len(chunk) > DEEP_TOKENS or text.count("(") > DEEP_NESTING
    try:
        trees = call_deep(_parse, d, chunk, sql) if deep else _parse(d, chunk, sql)
    except ParseError as err:
        return Piece(index, line, col, text, None, _parse_diag(err, index, line, col, text))
    except RecursionError:
        if deep or in_deep_thread():
            err = _diag("cannot parse: the statement nests too deep", index, line, col)
            return Piece(index, line, col, text, None, err)
        return dataclasses.replace(_parse_chunk_deep(index, chunk, sql, d, limits), deep=True)
    except Exception as err:  # sqlglot may raise other errors on odd input
        return Piece(index, line, col, text, None, _diag(f"cannot parse: {err}", index, line, col))
    tree = next((t for t in trees if t is not None), None)
    if tree is None:
        return Piece(index, line, col, text, None, _diag("empty statement", index, line, col))
    if isinstance(tree, exp.Command) and _looks_like_ctas(chunk):
        return _parse_ctas(index, chunk, sql, start, text, line, col, d, limits)
    return Piece(index, line, col, text, tree, deep=deep, notes=notes)


_LITERALS = frozenset({TokenType.NUMBER, TokenType.STRING, TokenType.NULL, TokenType.TRUE, TokenType.FALSE})


def _shorten_in_lists(chunk: list[Token], keep: int, index: int) -> tuple[list[Token], tuple[Diagnostic, ...]]:
    """``x IN (1, 2, …)`` with more than ``keep`` literals keeps the first ``keep``: the others change
    nothing in the lineage (the list reads no column) and would cost time and memory per literal.

    >>> from sqlglot.dialects.dialect import Dialect
    >>> toks = Dialect.get_or_raise("doris").tokenize("SELECT a FROM s WHERE a IN (1, 2, 3, -4)")
    >>> short, notes = _shorten_in_lists(toks, 2, 0)
    >>> " ".join(t.text for t in short[-6:]), notes[0].code
    ('IN ( 1 , 2 )', 'in_list_abbreviated')
    """
    out: list[Token] = []
    notes: list[Diagnostic] = []
    i, n = 0, len(chunk)
    while i < n:
        tok = chunk[i]
        out.append(tok)
        i += 1
        if tok.token_type != TokenType.IN or i >= n or chunk[i].token_type != TokenType.L_PAREN:
            continue
        j = i + 1  # scan `lit , lit , … )`
        count = 0
        cut = None
        while j < n:
            if chunk[j].token_type == TokenType.DASH and j + 1 < n and chunk[j + 1].token_type == TokenType.NUMBER:
                j += 1
            if chunk[j].token_type not in _LITERALS:
                break
            count += 1
            j += 1
            if count == keep:
                cut = j
            if j < n and chunk[j].token_type == TokenType.COMMA:
                j += 1
                continue
            break
        if cut is None or j >= n or chunk[j].token_type != TokenType.R_PAREN:
            continue
        out.extend(chunk[i:cut])
        line, col = tok.line, tok.col
        notes.append(
            Diagnostic(
                "in_list_abbreviated",
                Severity.INFO,
                f"an IN list of {count:,} literals: the first {keep:,} are kept in the recorded expression "
                "(HEADWATER_EXTRACT_MAX_IN_LIST); the lineage is the same",
                index,
                line,
                max(1, col - 1),
            )
        )
        i = j  # the closing parenthesis comes next
    return out, tuple(notes)


_CTAS_CLAUSES = (("ON", "COMMIT", "DROP"), ("ON", "COMMIT", "DELETE", "ROWS"), ("ON", "COMMIT", "PRESERVE", "ROWS"))


def _looks_like_ctas(chunk: list[Token]) -> bool:
    """CREATE … TABLE … SELECT, or CREATE … TABLE … AS <anything> (a misspelt SELECT), that sqlglot
    kept as an opaque command."""
    words = [t.text.upper() for t in chunk[:8]]
    if not words or words[0] != "CREATE" or "TABLE" not in words:
        return False
    depth = 0
    for tok in chunk:
        if tok.token_type == TokenType.SELECT:
            return True
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif tok.token_type == TokenType.ALIAS and depth == 0:
            return True  # ``CREATE TABLE c1 AS SELEC …``: a query was meant
    return False


def _parse_ctas(
    index: int, chunk: list[Token], sql: str, start: int, text: str, line: int, col: int, d: Dialect, limits: Limits
) -> Piece:
    """A CTAS sqlglot does not parse: PostgreSQL's ``ON COMMIT DROP`` clause and MySQL's
    ``IGNORE`` / ``REPLACE`` before the query change nothing in the lineage, so they are blanked
    (every position stays) and the statement parsed again; anything else is a parse error, never a
    silent skip.

    >>> split_script("CREATE TABLE t IGNORE SELECT a FROM s", "mysql")[0].tree.sql()
    'CREATE TABLE t AS SELECT a FROM s'
    >>> split_script("CREATE TABLE c1 AS SELECT a b c d FROM s", "doris")[0].error.code
    'parse_error'
    >>> split_script("CREATE TABLE c1 AS SELEC a FROM s", "doris")[0].error.code
    'parse_error'
    """
    blank: list[tuple[int, int, str]] = []
    depth = 0
    words = [t.text.upper() for t in chunk]
    for i, tok in enumerate(chunk):
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        if depth:
            continue
        for clause in _CTAS_CLAUSES:
            if tuple(words[i : i + len(clause)]) == clause:
                a, b = _start_of(tok, sql)[0], chunk[i + len(clause) - 1].end + 1
                blank.append((a, b, ""))
        if words[i] in ("IGNORE", "REPLACE") and i + 1 < len(chunk):
            nxt = chunk[i + 1].token_type
            if nxt in (TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN):
                blank.append((_start_of(tok, sql)[0], tok.end + 1, "AS"))
            elif nxt == TokenType.ALIAS:
                blank.append((_start_of(tok, sql)[0], tok.end + 1, ""))
    if not blank and isinstance(d, Hive):
        spliced = _ctas_without_as(index, chunk, sql, start, text, d, limits)
        if spliced is not None:
            return spliced
    if blank:
        rewritten = sql
        for a, b, word in blank:
            rewritten = rewritten[:a] + word.ljust(b - a) + rewritten[b:]
        piece = _parse_embedded(index, rewritten, start, start + len(text), d, limits)
        if piece.tree is not None and not isinstance(piece.tree, exp.Command):
            return dataclasses.replace(piece, sql=text)
    message = (
        f"cannot parse statement {index + 1}: it reads as CREATE TABLE … AS SELECT, but the parser cannot "
        "read it (check the SELECT keyword, the select list and the clauses before AS)"
    )
    return Piece(index, line, col, text, None, _diag(message, index, line, col))


def _ctas_without_as(
    index: int, chunk: list[Token], sql: str, start: int, text: str, d: Dialect, limits: Limits
) -> Piece | None:
    """Spark's ``CREATE TABLE t [USING …] WITH c AS (…) SELECT …``: ``AS`` is optional before the query,
    and sqlglot reads a ``WITH`` there as table properties (then keeps the statement as a command). The
    header (up to ``WITH``) and the query (from it) are parsed apart, each where it is in the script, and
    joined; None when there is no such ``WITH`` or a part does not parse.

    >>> split_script("CREATE TABLE t WITH c AS (SELECT a FROM s) SELECT a FROM c", "spark")[0].tree.sql("spark")
    'CREATE TABLE t AS WITH c AS (SELECT a FROM s) SELECT a FROM c'
    """
    depth = 0
    for i, tok in enumerate(chunk):
        kind = tok.token_type
        depth += 1 if kind == TokenType.L_PAREN else -1 if kind == TokenType.R_PAREN else 0
        if depth or kind != TokenType.WITH or i < 3 or i + 1 == len(chunk):
            continue
        if chunk[i - 1].token_type == TokenType.ALIAS or chunk[i + 1].token_type == TokenType.L_PAREN:
            return None  # ``AS WITH …`` parses; ``WITH (…)`` is a property list
        at = _start_of(tok, sql)[0]
        query = _parse_embedded(index, sql, at, start + len(text), d, limits)
        if not isinstance(query.tree, exp.Query):
            return None
        header = _parse_embedded(index, sql[:at] + " AS SELECT 1", start, at + 12, d, limits)
        if not isinstance(header.tree, exp.Create) or header.tree.expression is None:
            return None
        header.tree.set("expression", query.tree)
        return Piece(index, header.line, header.column, text, header.tree, deep=query.deep, notes=query.notes)
    return None


def _parse_chunk_deep(index: int, chunk: list[Token], sql: str, d: Dialect, limits: Limits) -> Piece:
    """``_parse_chunk`` in a deep worker, for a statement that hit the recursion limit."""
    return call_deep(_parse_chunk, index, chunk, sql, d, limits)


def _refuse(index: int, chunk: list[Token], text: str, line: int, col: int, limits: Limits) -> Piece | None:
    """An error piece for a statement that must not reach the parser (a NUL byte, a limit), else None."""
    nul = text.find("\x00")
    if nul >= 0:
        at_line = line + text.count("\n", 0, nul)
        at_col = (col + nul) if at_line == line else nul - text.rfind("\n", 0, nul)
        message = f"a NUL byte at line {at_line}, column {at_col}: the statement is not SQL text; remove the byte"
        err = Diagnostic("nul_byte", Severity.ERROR, message, index, at_line, at_col)
        return Piece(index, line, col, text, None, err)
    over = check_tokens(chunk, limits)
    if over is not None:
        code, message = over
        return Piece(index, line, col, text, None, Diagnostic(code, Severity.ERROR, message, index, line, col))
    return None


def _parse_replace(index: int, sql: str, start: int, text: str, d: Dialect, limits: Limits) -> Piece:
    """MySQL's and SQLite's ``REPLACE INTO t … SELECT``, which sqlglot keeps as a command: an INSERT for
    lineage (rows with a duplicate key are replaced, the data flows the same way). It is parsed as
    ``INSERT `` written over ``REPLACE`` (same length: every position stays); the text stays REPLACE.

    >>> piece = split_script("REPLACE INTO t (a) SELECT b FROM s", "mysql")[0]
    >>> type(piece.tree).__name__, piece.sql[:12]
    ('Insert', 'REPLACE INTO')
    """
    as_insert = sql[:start] + "INSERT " + sql[start + 7 :]
    piece = _parse_embedded(index, as_insert, start, start + len(text), d, limits)
    return dataclasses.replace(piece, sql=text)


def _diag(message: str, index: int, line: int, col: int) -> Diagnostic:
    return Diagnostic("parse_error", Severity.ERROR, message, index, line, col)


def _parse_diag(err: ParseError, index: int, line: int, col: int, text: str = "") -> Diagnostic:
    from headwater.extract.parse_message import describe, first_words, position

    first = err.errors[0] if err.errors else {"description": str(err)}
    at_line, at_col = position(first)
    return _diag(
        f"cannot parse statement {index + 1} ({first_words(text)}): {describe(first)}",
        index,
        at_line or line,
        at_col or col,
    )


_TEXT_SPLIT = re.compile(r";[ \t]*(?:\r?\n|$)")


def _split_by_text(sql: str, d: Dialect, limits: Limits, first: int = 0) -> list[Piece]:
    """Fallback when the whole script does not tokenize: split at line-ending semicolons (the pieces
    numbered from ``first``)."""
    pieces: list[Piece] = []
    pos = 0
    for m in [*_TEXT_SPLIT.finditer(sql), None]:
        end = m.start() if m else len(sql)
        text = sql[pos:end]
        stripped = text.strip()
        if stripped:
            offset = pos + text.index(stripped[0])
            line = sql.count("\n", 0, offset) + 1
            col = offset - (sql.rfind("\n", 0, offset) + 1) + 1
            k = first + len(pieces)
            try:
                tokens = d.tokenize(stripped)
            except TokenError as err:
                pieces.append(Piece(k, line, col, stripped, None, _diag(f"cannot tokenize: {err}", k, line, col)))
            else:
                piece = _parse_chunk(k, tokens, stripped, d, limits) if tokens else None
                if piece is not None:
                    err = piece.error
                    if err is not None:  # positions are relative to the piece: shift them
                        err = Diagnostic(
                            err.code,
                            err.severity,
                            err.message,
                            err.statement_index,
                            line + (err.line or 1) - 1,
                            err.column if (err.line or 1) > 1 else col + (err.column or 1) - 1,
                        )
                    pieces.append(Piece(piece.index, line, col, piece.sql, piece.tree, err, piece.skip, piece.deep))
        pos = m.end() if m else len(sql)
    return pieces
