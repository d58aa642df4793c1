"""The statements inside procedures, functions, scripting blocks and Doris jobs.

``CREATE PROCEDURE p() BEGIN INSERT INTO t2 SELECT … FROM t1; END`` (MySQL family), T-SQL
``CREATE PROCEDURE p AS BEGIN … END``, Snowflake and PostgreSQL bodies in ``$$ … $$``, BigQuery
and Snowflake ``BEGIN … END`` blocks, Doris ``CREATE JOB j ON SCHEDULE … DO INSERT …``: the
routine makes no event itself; each data statement of its body is extracted on its own, at its
own line, with the routine's name in the event's context (``headwater.routine``). Control flow
(IF, LOOP, DECLARE, SET, RETURN …) is passed over; dynamic SQL (``EXECUTE IMMEDIATE``,
``EXECUTE format(…)``, ``PREPARE … FROM``, ``sp_executesql``) is reported, never guessed.

This is a token scan for statement boundaries, not a parser: each statement found is parsed by
sqlglot like any other.

>>> r = routine_of("CREATE PROCEDURE p()\\nBEGIN\\n  INSERT INTO t2 SELECT a FROM t1;\\n  SET @x = 1;\\nEND", "mysql")
>>> r.name, [(s.word, s.text) for s in r.statements]
('p', [('INSERT', 'INSERT INTO t2 SELECT a FROM t1')])
>>> r.statements[0].offset
29
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from headwater.catalog.dialects import sqlglot_dialect

ROUTINE_PROPERTY = "headwater.routine"
"""The procedure, function or job a statement belongs to (external_catalog_properties key)."""

SKIP_ROUTINE = "routine: a procedure, function, scripting block or job; each statement of its body is extracted"
SKIP_DYNAMIC = "dynamic-sql: the statement's text is built when it runs; its lineage is not guessed"
SKIP_CALL = "call: runs another routine; its statements are extracted where it is defined"
SKIP_VARIABLES = "procedural: SELECT … INTO assigns variables; it writes no table"

_HEADER = re.compile(
    r"\s*CREATE\s+(?:OR\s+(?:REPLACE|ALTER)\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:TEMP(?:ORARY)?\s+)?"
    r"(?:SECURE\s+)?(PROCEDURE|PROC|FUNCTION|TRIGGER|EVENT|JOB)\s+(?:IF\s+NOT\s+EXISTS\s+)?([^\s(]+)",
    re.IGNORECASE,
)
_BLOCK = re.compile(r"\s*(?:BEGIN|DECLARE)\b(?!\s*(?:;|$|TRANSACTION\b|TRAN\b|WORK\b|STATEMENT\b))", re.IGNORECASE)
_DOLLAR = re.compile(r"\$(\w*)\$(.*?)\$\1\$", re.DOTALL)

# first words of the statements that can carry lineage, and of the ones that run SQL text
DATA_WORDS = frozenset({"INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "REPLACE", "WITH", "SELECT", "UPSERT"})
RUN_WORDS = frozenset({"EXECUTE", "EXEC", "PREPARE", "CALL"})
# tokens after which a new statement may start
_BOUNDARY = frozenset({";", "BEGIN", "THEN", "ELSE", "DO", "LOOP", "AS", "$$"})
# T-SQL needs no semicolons: these words start a statement wherever they stand outside parentheses
_TSQL_STARTS = frozenset({"INSERT", "UPDATE", "DELETE", "MERGE", "EXEC", "EXECUTE", "TRUNCATE", "DROP"})
_TSQL_ENDS = frozenset({"IF", "WHILE", "DECLARE", "SET", "RETURN", "PRINT", "BEGIN", "COMMIT", "ROLLBACK", "RAISERROR"})


@dataclass(frozen=True, slots=True)
class BodyStatement:
    """One statement of a routine's body: its first word, text and offset in the routine's text;
    ``skip`` is set for what is reported rather than extracted (dynamic SQL, calls)."""

    word: str
    text: str
    offset: int
    skip: str | None = None


@dataclass(frozen=True, slots=True)
class Routine:
    name: str | None
    statements: tuple[BodyStatement, ...]


def routine_of(sql: str, dialect: str) -> Routine | None:
    """The routine ``sql`` defines or runs, with the statements of its body; None for other statements
    and for routines whose body has no statement to extract."""
    header = _HEADER.match(sql)
    if header is None and not _BLOCK.match(sql):
        return None
    name = header.group(2).strip('`"[]') if header else None
    kind = header.group(1).upper() if header else "BLOCK"
    start, end = _body(sql, header, kind)
    if start is None:
        return None
    d = Dialect.get_or_raise(sqlglot_dialect(dialect))
    try:
        tokens = _tokens(d, sql[start:end], 0)
    except TokenError:
        return None
    tsql = sqlglot_dialect(dialect) == "tsql"
    statements = [
        _statement(sql, start, tokens, first, last, tsql) for first, last in _statement_spans(tokens, tsql, kind)
    ]
    found = tuple(s for s in statements if s is not None)
    return Routine(name, found) if found else None  # no statement in it: DDL like any other


def batch_statements(sql: str, dialect: str) -> Routine | None:
    r"""A T-SQL batch with no semicolons between its statements (``INSERT … SELECT …`` newline
    ``UPDATE …``), cut where each statement starts; None when it holds fewer than two.

    >>> [s.text for s in batch_statements("INSERT INTO a SELECT x FROM s\nUPDATE b SET y = 1", "tsql").statements]
    ['INSERT INTO a SELECT x FROM s', 'UPDATE b SET y = 1']
    """
    if sqlglot_dialect(dialect) != "tsql":
        return None
    try:
        tokens = _tokens(Dialect.get_or_raise("tsql"), sql, 0)
    except TokenError:
        return None
    found = [_statement(sql, 0, tokens, first, last, True) for first, last in _statement_spans(tokens, True, "BLOCK")]
    return Routine(None, tuple(found)) if len(found) > 1 else None


def _tokens(d: Dialect, text: str, base: int) -> list[Token]:
    """The tokens of ``text`` with offsets from ``base``. A command keyword (``BEGIN``, ``SET`` in some
    dialects) makes sqlglot's tokenizer keep the rest of its statement as one string: that rest is
    tokenized again, so the statements behind a ``BEGIN`` are seen."""
    out: list[Token] = []
    tokens = d.tokenize(text)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        out.append(_shift(tok, base))
        if tok.token_type == TokenType.COMMAND and i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.STRING:
            stop = next((t.start for t in tokens[i + 1 :] if t.token_type == TokenType.SEMICOLON), len(text))
            out.extend(_tokens(d, text[tok.end + 1 : stop], base + tok.end + 1))
            i += 2
            continue
        i += 1
    return out


def _shift(tok: Token, base: int) -> Token:
    if not base:
        return tok
    return Token(tok.token_type, tok.text, tok.line, tok.col, tok.start + base, tok.end + base, tok.comments)


def _body(sql: str, header: re.Match[str] | None, kind: str) -> tuple[int | None, int]:
    """Where the body's statements are: inside ``$$ … $$``, after a job's ``DO``, else after the header."""
    dollar = _DOLLAR.search(sql, header.end() if header else 0)
    if dollar is not None:
        return dollar.start(2), dollar.end(2)
    if kind == "JOB":
        m = re.search(r"\bDO\b", sql, re.IGNORECASE)
        return (m.end(), len(sql)) if m else (None, len(sql))
    if kind in ("FUNCTION", "PROCEDURE", "PROC", "TRIGGER", "EVENT") and not re.search(
        r"\bBEGIN\b|\bAS\b", sql[header.end() :] if header else "", re.IGNORECASE
    ):
        return None, len(sql)  # a body in a language we do not read (LANGUAGE python AS '…')
    return (header.end() if header else 0), len(sql)


def _ends_statement(tok: Token, word: str, prev: str, first_word: str, depth: int, case: int, tsql: bool) -> bool:
    """Whether ``tok`` ends the statement begun by ``first_word`` (it is not part of it)."""
    if depth:
        return False
    if tok.token_type == TokenType.SEMICOLON:
        return True
    if case:
        return False
    if word in ("END", "ELSE", "ELSEIF", "ELSIF"):
        return True
    if not tsql or first_word in ("MERGE", "CREATE", "WITH"):
        return False
    if word == "SET" and first_word in ("UPDATE", "MERGE"):
        return False
    return word in _TSQL_ENDS or (word in _TSQL_STARTS and not (word == "UPDATE" and prev == "FOR"))


def _starts_statement(word: str, prev: str, tsql: bool) -> bool:
    if word not in DATA_WORDS and word not in RUN_WORDS:
        return False
    return prev in _BOUNDARY or prev == "" or (tsql and word in _TSQL_STARTS | {"SELECT", "WITH", "CREATE"})


def _statement_spans(tokens: list[Token], tsql: bool, kind: str) -> list[tuple[int, int]]:
    """(first, last) token indexes of each data or run statement in a body's tokens."""
    spans: list[tuple[int, int]] = []
    current: int | None = None
    first_word = ""
    depth = case = 0
    prev = "$$" if kind in ("BLOCK", "JOB") else ""
    for i, tok in enumerate(tokens):
        word = tok.text.upper() if tok.token_type != TokenType.STRING else "'"
        if current is not None and _ends_statement(tok, word, prev, first_word, depth, case, tsql):
            spans.append((current, i - 1))
            current = None
        elif current is not None:
            if tok.token_type == TokenType.L_PAREN:
                depth += 1
            elif tok.token_type == TokenType.R_PAREN:
                depth = max(0, depth - 1)
            elif word == "CASE":
                case += 1
            elif word == "END" and case > 0:
                case -= 1
        if current is None and _starts_statement(word, prev, tsql):
            current, first_word, depth, case = i, word, 0, 0
        prev = ";" if tok.token_type == TokenType.SEMICOLON else word
    if current is not None:
        spans.append((current, len(tokens) - 1))
    return spans


def _statement(sql: str, base: int, tokens: list[Token], first: int, last: int, tsql: bool) -> BodyStatement | None:
    words = [t.text.upper() for t in tokens[first : min(last + 1, first + 3)]]
    text = sql[base + tokens[first].start : base + tokens[last].end + 1]
    offset = base + tokens[first].start
    word = words[0]
    if word in RUN_WORDS:
        dynamic = (
            word == "PREPARE"
            or (len(words) > 1 and words[1] in ("IMMEDIATE", "(", "SP_EXECUTESQL", "FORMAT"))
            or (word == "EXECUTE" and not tsql)
        )
        return BodyStatement(word, text, offset, SKIP_DYNAMIC if dynamic else SKIP_CALL)
    if word == "SELECT" and not tsql and any(t.text.upper() == "INTO" for t in tokens[first : last + 1]):
        return BodyStatement(word, text, offset, SKIP_VARIABLES)
    return BodyStatement(word, text, offset)
