"""Narrow token edits for statements a database accepts and sqlglot does not parse.

Each edit blanks tokens that carry no lineage (the text keeps its length, so every line and
column stays where it was), and is tried only after sqlglot failed on the statement:

- Doris / StarRocks ``INSERT INTO t [PARTITION (…)] WITH LABEL l …``: the load label;
- Teradata column attributes ``(TITLE '…')``, ``(NAMED x)``, ``(FORMAT '…')`` after an expression;
- Spark / Hive / Databricks ``INSERT OVERWRITE [LOCAL] DIRECTORY 'path' USING fmt [OPTIONS (…)]``: the
  format and its options (sqlglot reads the ``ROW FORMAT`` / ``STORED AS`` forms, not ``USING``);
- Spark / Hive / Databricks ``COMMENT 'the target''s name'``: a comment written as adjacent string
  literals (Hive's lexer joins them into one; sqlglot reads only the first after ``COMMENT``): the
  literals after the first.

T-SQL batches without semicolons between statements are cut by ``routines.batch_statements``.

>>> blank_unparsed("INSERT INTO t WITH LABEL l1 SELECT a FROM s", "doris")
'INSERT INTO t               SELECT a FROM s'
>>> blank_unparsed("SELECT a (TITLE 'Alpha') FROM t", "teradata")
'SELECT a                 FROM t'
>>> blank_unparsed("INSERT OVERWRITE DIRECTORY '/o' USING csv OPTIONS ('sep' ' ') SELECT a FROM t", "spark")
"INSERT OVERWRITE DIRECTORY '/o'                               SELECT a FROM t"
>>> blank_unparsed("CREATE TABLE t (a INT COMMENT 'a''s b')", "hive")
"CREATE TABLE t (a INT COMMENT 'a'     )"
>>> blank_unparsed("SELECT 1", "doris") is None
True
"""

from __future__ import annotations

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from headwater.catalog.dialects import sqlglot_dialect
from headwater.catalog.names import MYSQL_FAMILY

_TERADATA_ATTRIBUTES = frozenset({"TITLE", "NAMED", "FORMAT"})
_SPARK_FAMILY = frozenset({"spark", "spark2", "hive", "databricks"})


def blank_unparsed(sql: str, dialect: str) -> str | None:
    """``sql`` with the edits above applied; None when none applies."""
    name = sqlglot_dialect(dialect)
    try:
        tokens = Dialect.get_or_raise(name).tokenize(sql)
    except TokenError:
        return None
    spans: list[tuple[int, int]] = []
    if name in MYSQL_FAMILY:
        spans = _insert_labels(tokens)
    elif name == "teradata":
        spans = _teradata_attributes(tokens)
    elif name in _SPARK_FAMILY:
        spans = _directory_formats(tokens) + _comment_continuations(tokens)
    if not spans:
        return None
    text = list(sql)
    for start, end in spans:
        for i in range(start, end + 1):
            if text[i] != "\n":
                text[i] = " "
    return "".join(text)


def _words(tokens: list[Token]) -> list[str]:
    return [t.text.upper() for t in tokens]


def _insert_labels(tokens: list[Token]) -> list[tuple[int, int]]:
    words = _words(tokens)
    if not words or words[0] != "INSERT":
        return []
    for i in range(len(words) - 2):
        if words[i] == "WITH" and words[i + 1] == "LABEL":
            return [(tokens[i].start, tokens[i + 2].end)]
    return []


def _teradata_attributes(tokens: list[Token]) -> list[tuple[int, int]]:
    spans = []
    for i in range(1, len(tokens) - 3):
        if (
            tokens[i].token_type == TokenType.L_PAREN
            and tokens[i + 1].text.upper() in _TERADATA_ATTRIBUTES
            and tokens[i + 3].token_type == TokenType.R_PAREN
            and tokens[i - 1].token_type not in (TokenType.L_PAREN, TokenType.COMMA)
        ):
            spans.append((tokens[i].start, tokens[i + 3].end))
    return spans


def _directory_formats(tokens: list[Token]) -> list[tuple[int, int]]:
    """``USING fmt [OPTIONS (…)]`` right after ``INSERT OVERWRITE [LOCAL] DIRECTORY 'path'`` (a ``WITH``
    may come first); the path stays: it is the dataset written."""
    words = _words(tokens)
    spans = []
    for i in range(len(words) - 3):
        if words[i] != "DIRECTORY" or tokens[i + 1].token_type != TokenType.STRING or words[i + 2] != "USING":
            continue
        before = words[i - 2 : i] if words[i - 1] != "LOCAL" else words[i - 3 : i - 1]
        if before != ["INSERT", "OVERWRITE"]:
            continue
        end = i + 3  # the format's name
        if end + 1 < len(words) and words[end + 1] == "OPTIONS" and tokens[end + 2].token_type == TokenType.L_PAREN:
            depth, k = 0, end + 2
            for k in range(end + 2, len(tokens)):
                depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[k].token_type, 0)
                if depth == 0:
                    break
            if depth:
                return []
            end = k
        spans.append((tokens[i + 2].start, tokens[end].end))
    return spans


def _comment_continuations(tokens: list[Token]) -> list[tuple[int, int]]:
    """The string literals that follow the first one after ``COMMENT`` (one comment, written as
    adjacent literals: ``'target''s'`` is ``'target'`` then ``'s'`` to sqlglot's Hive tokenizer)."""
    spans = []
    for i in range(len(tokens) - 2):
        if tokens[i].token_type != TokenType.COMMENT or tokens[i + 1].token_type != TokenType.STRING:
            continue
        k = i + 2
        while k < len(tokens) and tokens[k].token_type == TokenType.STRING:
            k += 1
        if k > i + 2:
            spans.append((tokens[i + 2].start, tokens[k - 1].end))
    return spans
