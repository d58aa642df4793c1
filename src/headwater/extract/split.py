"""Pass 1: split a script into statements and parse each one on its own.

A statement that fails to parse becomes a ``Piece`` with an error; the others are unaffected.
The script is tokenized once; each statement is parsed from its own tokens.

>>> pieces = split_script("SELECT 1;\\nSELECT FROM WHERE;\\nSELECT 2", "generic")
>>> [(p.index, p.line, p.tree is not None) for p in pieces]
[(0, 1, True), (1, 2, False), (2, 3, True)]
>>> pieces[1].error.code
'parse_error'
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from headwater.catalog.dialects import Flink, flink_tokens, sqlglot_dialect
from headwater.extract.blocks import BlockTracker
from headwater.model import Diagnostic, Severity


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


def split_script(sql: str, dialect: str) -> list[Piece]:
    """Split and parse ``sql``; never raises for bad SQL (errors are on the pieces)."""
    d = Dialect.get_or_raise(sqlglot_dialect(dialect))
    try:
        tokens = d.tokenize(sql)
    except TokenError:
        return _split_by_text(sql, d)
    pieces: list[Piece] = []
    chunk: list[Token] = []
    blocks = BlockTracker()  # a semicolon inside BEGIN … END does not end the statement
    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON and not blocks.inside():
            if chunk:
                pieces.append(_parse_chunk(len(pieces), chunk, sql, d))
            chunk = []
            blocks.reset()
        else:
            chunk.append(tok)
            blocks.feed(tok)
    if chunk:
        pieces.append(_parse_chunk(len(pieces), chunk, sql, d))
    return pieces


def _start_of(tok: Token, sql: str) -> tuple[int, int, int]:
    """(offset, line, column) of a token's first character (the tokenizer records its end)."""
    if "\n" in tok.text:  # a token spanning lines: count from the text
        start = tok.start
        return start, sql.count("\n", 0, start) + 1, start - (sql.rfind("\n", 0, start) + 1) + 1
    return tok.start, tok.line, tok.col - (tok.end - tok.start)


SKIP_STATEMENT_SET = "statement-set: groups the statements inside it, each of which makes its own event"


_STATEMENT_SET = re.compile(r"EXECUTE\s+STATEMENT\s+SET\s+BEGIN\b", re.IGNORECASE)


def _parse_embedded(index: int, sql: str, begin: int, end: int, d: Dialect) -> Piece:
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
    return _parse_chunk(index, tokens, padded, d)


def _words(chunk: list[Token], n: int) -> list[str]:
    return [t.text.upper() for t in chunk[:n]]


def _parse_chunk(index: int, chunk: list[Token], sql: str, d: Dialect) -> Piece:
    start, line, col = _start_of(chunk[0], sql)
    text = sql[start : chunk[-1].end + 1]
    # Flink statement sets: EXECUTE STATEMENT SET BEGIN <stmt>; <stmt>; END; and
    # BEGIN STATEMENT SET; <stmt>; END;  — the markers are skipped, the statements parsed.
    marker = _STATEMENT_SET.match(text)
    if marker is not None:
        rest = text[marker.end() :]
        if not rest.strip():
            return Piece(index, line, col, text, None, skip=SKIP_STATEMENT_SET)
        return _parse_embedded(index, sql, start + marker.end(), start + len(text), d)
    if _words(chunk, 4) == ["BEGIN", "STATEMENT", "SET"] or (len(chunk) == 1 and chunk[0].text.upper() == "END"):
        return Piece(index, line, col, text, None, skip=SKIP_STATEMENT_SET)
    if isinstance(d, Flink):
        chunk = flink_tokens(chunk)
    if len(chunk) == 2 and chunk[0].token_type == TokenType.REPLACE and chunk[1].token_type == TokenType.STRING:
        return _parse_replace(index, sql, start, text, d)  # the tokenizer kept the rest as one string
    try:
        trees = d.parser().parse(chunk, sql)
    except ParseError as err:
        return Piece(index, line, col, text, None, _parse_diag(err, index, line, col, text))
    except Exception as err:  # sqlglot may raise other errors on odd input
        return Piece(index, line, col, text, None, _diag(f"cannot parse: {err}", index, line, col))
    tree = next((t for t in trees if t is not None), None)
    if tree is None:
        return Piece(index, line, col, text, None, _diag("empty statement", index, line, col))
    return Piece(index, line, col, text, tree)


def _parse_replace(index: int, sql: str, start: int, text: str, d: Dialect) -> Piece:
    """MySQL's and SQLite's ``REPLACE INTO t … SELECT``, which sqlglot keeps as a command: an INSERT for
    lineage (rows with a duplicate key are replaced, the data flows the same way). It is parsed as
    ``INSERT `` written over ``REPLACE`` (same length: every position stays); the text stays REPLACE.

    >>> piece = split_script("REPLACE INTO t (a) SELECT b FROM s", "mysql")[0]
    >>> type(piece.tree).__name__, piece.sql[:12]
    ('Insert', 'REPLACE INTO')
    """
    as_insert = sql[:start] + "INSERT " + sql[start + 7 :]
    piece = _parse_embedded(index, as_insert, start, start + len(text), d)
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


def _split_by_text(sql: str, d: Dialect) -> list[Piece]:
    """Fallback when the whole script does not tokenize: split at line-ending semicolons."""
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
            try:
                tokens = d.tokenize(stripped)
            except TokenError as err:
                pieces.append(
                    Piece(
                        len(pieces), line, col, stripped, None, _diag(f"cannot tokenize: {err}", len(pieces), line, col)
                    )
                )
            else:
                piece = _parse_chunk(len(pieces), tokens, stripped, d) if tokens else None
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
                    pieces.append(Piece(piece.index, line, col, piece.sql, piece.tree, err))
        pos = m.end() if m else len(sql)
    return pieces
