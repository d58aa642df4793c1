"""Dialect names: every sqlglot dialect, ``generic`` for sqlglot's default, and ``flink``.

sqlglot has no Flink dialect. Flink SQL reads closest to Hive's grammar (backquoted
identifiers, ``CREATE TABLE … WITH (…)``, ``CREATE TEMPORARY VIEW``), but unlike Hive its
identifiers are case-sensitive; the ``Flink`` class below is Hive's grammar with Flink's case
rule, registered with sqlglot under the name ``flink``. Statement sets (``EXECUTE STATEMENT SET
BEGIN … END``) are handled when a script is split (``headwater.extract.split``).

>>> sqlglot_dialect("generic"), sqlglot_dialect("doris"), sqlglot_dialect("flink")
('', 'doris', 'flink')
>>> from sqlglot.dialects.dialect import Dialect
>>> Dialect.get_or_raise("flink").NORMALIZATION_STRATEGY.name
'CASE_SENSITIVE'
"""

from __future__ import annotations

from typing import Any

from sqlglot.dialects.dialect import NormalizationStrategy
from sqlglot.dialects.hive import Hive


class Flink(Hive):
    """Flink SQL: Hive's grammar, case-sensitive identifiers."""

    NORMALIZATION_STRATEGY = NormalizationStrategy.CASE_SENSITIVE


def sqlglot_dialect(dialect: str) -> str:
    """The sqlglot name of a headwater dialect name (``generic`` is sqlglot's default, "")."""
    if dialect in ("generic", "default", ""):
        return ""
    return dialect


WINDOW_TVFS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")


def flink_tokens(tokens: list) -> list:
    """Flink syntax that Hive's grammar lacks, rewritten at the token level (positions kept).

    - ``TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), …))`` (and HOP, CUMULATE, SESSION) becomes the derived
      table ``(SELECT *, TUMBLE(ts) AS window_start, TUMBLE(ts) AS window_end, TUMBLE(ts) AS
      window_time FROM t)``: the input's columns pass through and the window columns derive from the
      time attribute;
    - in DDL, ``WATERMARK FOR ts AS <expr>`` and ``METADATA [FROM '…'] [VIRTUAL]`` are dropped.
    """
    if not tokens:
        return tokens
    if tokens[0].text.upper() == "CREATE":
        tokens = _flink_ddl_tokens(tokens)
    return _window_tvfs(tokens)


def _quoted(token: Any) -> str:
    """A name token as SQL text (a quoted identifier keeps its backquotes)."""
    return f"`{token.text}`" if token.token_type.name == "IDENTIFIER" else token.text


def _window_tvfs(tokens: list) -> list:
    from sqlglot.tokens import Token

    out: list = []
    i, n = 0, len(tokens)
    while i < n:
        words = [t.text.upper() for t in tokens[i : i + 6]]
        if (
            len(words) == 6
            and words[0] == "TABLE"
            and words[1] == "("
            and words[2] in WINDOW_TVFS
            and words[3] == "("
            and words[4] == "TABLE"
        ):
            start, func, table = tokens[i], tokens[i + 2].text, tokens[i + 5]
            j, depth, time_col = i + 1, 0, None
            while j < n:  # to the closing parenthesis of TABLE( … ), noting DESCRIPTOR(col)
                t = tokens[j].text
                if t == "(":
                    depth += 1
                elif t == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif t.upper() == "DESCRIPTOR" and j + 2 < n:
                    time_col = tokens[j + 2]
                j += 1
            if time_col is None or j >= n:
                out.append(tokens[i])
                i += 1
                continue
            col, source = _quoted(time_col), _quoted(table)
            window = ", ".join(f"{func}({col}) AS {name}" for name in ("window_start", "window_end", "window_time"))
            sql = f"(SELECT *, {window} FROM {source})"
            for t in Flink().tokenize(sql):
                out.append(Token(t.token_type, t.text, start.line, start.col, start.start, start.end, []))
            i = j + 1
            continue
        out.append(tokens[i])
        i += 1
    return out


def _flink_ddl_tokens(tokens: list) -> list:
    """Drop ``WATERMARK FOR ts AS <expr>`` (with the comma before it) and ``METADATA …`` clauses."""
    out: list = []
    i, n = 0, len(tokens)
    while i < n:
        word = tokens[i].text.upper()
        if word == "WATERMARK" and i + 1 < n and tokens[i + 1].text.upper() == "FOR":
            if out and out[-1].text == ",":
                out.pop()
            depth = 0
            while i < n:
                t = tokens[i].text
                if t == "(":
                    depth += 1
                elif t == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif t == "," and depth == 0:
                    break
                i += 1
            continue
        if word == "METADATA":
            i += 1
            if i < n and tokens[i].text.upper() == "FROM":
                i += 2
            if i < n and tokens[i].text.upper() == "VIRTUAL":
                i += 1
            continue
        out.append(tokens[i])
        i += 1
    return out
