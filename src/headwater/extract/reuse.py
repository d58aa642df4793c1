"""Statements that differ only in their literals are extracted once.

Query logs are mostly re-runs of the same statements with other dates and ids. A statement's
*shape* is its token stream with string and integer literals abstracted (comments and blanks are
not tokens). Together with the session's catalog and database and what the session's own DDL did
to tables of the names it mentions, the shape decides the lineage, except for the literals' own
text, which this module puts back:

1. first sight of a shape: extracted as usual; the result is kept (for a quarter of the shapes
   remembered at most; past that, the second sight is extracted as usual and checked instead);
2. second sight: extracted with a placeholder in place of each literal (the *template*). The
   template with the first statement's literals put back must equal the first result, event for
   event; then the shape is reusable (and this statement answered from it), else never reused;
3. later sights: the template with the statement's literals put back, the statement's own
   context (query id, user, time, SQL text), and diagnostics moved to its own positions. No parse.

Statements that change the session (DDL, ``USE``, CTAS, anything that touches the catalog layer),
scripts of several statements and failed statements are never reused. The memory is an LRU of
``size`` shapes.

>>> from headwater.extract import Extractor, RunInfo
>>> reuse = StatementReuse(size=100)
>>> ex = Extractor(database="db", reuse=reuse)
>>> for day in ("2024-01-01", "2024-01-02", "2024-01-03"):
...     res = ex.run(f"INSERT INTO t SELECT a FROM s WHERE d = '{day}'", RunInfo(query_id=day))
>>> [i.expression for i in res.events[0].dataset_indirect], reuse.hits, reuse.lookups
(["s.d = '2024-01-03'"], 2, 3)
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from headwater.extract.result import RunInfo, ScriptResult, StatementResult
from headwater.extract.split import _start_of
from headwater.model import LineageInfo, make_event_id
from headwater.model.codec import event_to_dict

if TYPE_CHECKING:
    from headwater.extract.engine import Extractor

# An integer after these is an ordinal (GROUP BY 1), a type's size (DECIMAL(10, 2)) or a list item:
# part of the shape, not a value.
_KEEP_NUMBER_AFTER = frozenset(
    getattr(TokenType, name)
    for name in ("GROUP_BY", "ORDER_BY", "PARTITION_BY", "CLUSTER_BY", "DISTRIBUTE_BY", "SORT_BY", "COMMA", "L_PAREN")
    if hasattr(TokenType, name)
)
_SEEN, _REFUSED = "seen", "refused"
_STRING, _NUMBER, _SEMICOLON = TokenType.STRING, TokenType.NUMBER, TokenType.SEMICOLON


@dataclass(frozen=True, slots=True)
class Shape:
    """A statement's tokens, which of them are abstracted literals, and its shape key."""

    tokens: list[Token]
    literals: tuple[int, ...]  # indexes into tokens
    key: tuple[Any, ...]
    names: frozenset[str]  # every token's text, lower case (the names it may mention)


def shape_of(sql: str, dialect: Any) -> Shape | None:
    """The shape of a one-statement ``sql``, or None when it cannot be reused (several statements,
    no tokens, tokenizer errors, commands the splitter rewrites)."""
    try:
        tokens = dialect.tokenize(sql)
    except TokenError:
        return None
    while tokens and tokens[-1].token_type == TokenType.SEMICOLON:
        tokens.pop()
    if not tokens or tokens[0].token_type == TokenType.REPLACE:
        return None
    types = [t.token_type for t in tokens]
    if _SEMICOLON in types:
        return None
    texts = [t.text for t in tokens]
    literals = [
        i
        for i, tt in enumerate(types)
        if tt is _STRING
        or (tt is _NUMBER and texts[i].isdigit() and (i == 0 or types[i - 1] not in _KEEP_NUMBER_AFTER))
    ]
    shape_texts: list[str | None] = list(texts)
    for i in literals:
        shape_texts[i] = None
    key = (tuple(types), tuple(shape_texts))
    names = frozenset(t.lower() for t in texts)  # literals too: a name more only makes the key stricter
    return Shape(tokens, tuple(literals), key, names)


def _placeholder(tt: TokenType, n: int) -> str:
    return f"'hw@lit{n}@'" if tt == TokenType.STRING else f"{909000000 + n}"


def _literal(tt: TokenType, text: str) -> exp.Literal:
    return exp.Literal.string(text) if tt == TokenType.STRING else exp.Literal.number(text)


def template_sql(sql: str, shape: Shape) -> str:
    """``sql`` with each abstracted literal replaced by its placeholder (positions of the rest kept
    only up to the first literal)."""
    out: list[str] = []
    pos = 0
    for n, i in enumerate(shape.literals):
        tok = shape.tokens[i]
        start = _start_of(tok, sql)[0]
        out.append(sql[pos:start])
        out.append(_placeholder(tok.token_type, n))
        pos = tok.end + 1
    out.append(sql[pos:])
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Template:
    result: StatementResult  # extracted from the placeholder text
    sql: str  # the placeholder text
    shape: Shape  # the placeholder text's shape (its token positions)
    renders: tuple[str, ...]  # each placeholder as the generator renders it


@dataclass(frozen=True, slots=True)
class _First:
    """A shape seen once, with what its statement was extracted to (to check the template against)."""

    sql: str
    shape: Shape
    run: RunInfo
    index: int
    result: StatementResult


class StatementReuse:
    """The memory of statement shapes, shared by the extractors of one catalog and one set of options.

    ``lookups`` counts reusable-looking statements, ``hits`` those answered from a template."""

    def __init__(self, size: int = 10_000) -> None:
        if size < 1:
            raise ValueError("the reuse cache needs a size of at least 1")
        self.size = size
        self.lookups = 0
        self.hits = 0
        self._entries: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._renders: dict[tuple[TokenType, str], str] = {}
        self._firsts = 0  # entries that keep a first result (a quarter of the size at most)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.lookups if self.lookups else 0.0

    def run(self, ex: Extractor, sql: str, run: RunInfo) -> ScriptResult:
        """Extract ``sql`` through ``ex`` (its session state as it stands), reusing a template if one fits."""
        shape = shape_of(sql, ex.dialect_impl)
        if shape is None:
            return ex.extract_text(sql, run)
        key = (shape.key, ex.session.catalog, ex.session.database, ex.catalog.state_for(shape.names))
        self.lookups += 1
        entry = self._entries.get(key)
        if isinstance(entry, _Template):
            self._entries.move_to_end(key)
            reused = self._instantiate(ex, entry, sql, shape, run, ex.index)
            if reused is not None:
                self.hits += 1
                ex.index += 1
                return ScriptResult((reused,))
        index = ex.index
        if isinstance(entry, _First):  # second sight: the template, checked against the first
            template = self._verified(ex, sql, shape, run, index, entry)
            self._put(key, template)
            if isinstance(template, _Template):
                reused = self._instantiate(ex, template, sql, shape, run, index)
                if reused is not None:
                    self.hits += 1
                    ex.index += 1
                    return ScriptResult((reused,))
        state = (ex.session.catalog, ex.session.database, ex.catalog.version)
        result = ex.extract_text(sql, run)
        if entry is not None and entry is not _SEEN:
            return result
        if state != (ex.session.catalog, ex.session.database, ex.catalog.version) or not _reusable(result):
            self._put(key, _REFUSED)
        elif entry is None:
            first = self._firsts < max(1, self.size // 4)
            self._put(key, _First(sql, shape, run, index, result.statements[0]) if first else _SEEN)
        else:
            self._put(
                key, self._verified(ex, sql, shape, run, index, _First(sql, shape, run, index, result.statements[0]))
            )
        return result

    def _put(self, key: tuple[Any, ...], value: Any) -> None:
        old = self._entries.get(key)
        self._firsts += isinstance(value, _First) - isinstance(old, _First)
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            _, gone = self._entries.popitem(last=False)
            self._firsts -= isinstance(gone, _First)

    def _verified(
        self, ex: Extractor, sql: str, shape: Shape, run: RunInfo, index: int, real: _First
    ) -> _Template | str:
        """The template made from ``sql`` (at ``index``), if putting the literals of ``real`` back gives
        exactly the result ``real`` was extracted to."""
        text = template_sql(sql, shape)
        tshape = shape_of(text, ex.dialect_impl)
        if tshape is None or len(tshape.tokens) != len(shape.tokens):
            return _REFUSED
        saved = ex.index
        ex.index = index
        try:
            result = ex.extract_text(text, run)
        finally:
            ex.index = saved
        if not _reusable(result):
            return _REFUSED
        renders = tuple(
            self._render(ex, shape.tokens[i].token_type, _placeholder(shape.tokens[i].token_type, n).strip("'"))
            for n, i in enumerate(shape.literals)
        )
        if any(_names_hold(e, renders) for e in result.statements[0].events):
            return _REFUSED
        template = _Template(result.statements[0], text, tshape, renders)
        again = self._instantiate(ex, template, real.sql, real.shape, real.run, real.index)
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
        self, ex: Extractor, t: _Template, sql: str, shape: Shape, run: RunInfo, index: int
    ) -> StatementResult | None:
        tokens = shape.tokens
        swaps = [
            (old, self._render(ex, tokens[i].token_type, tokens[i].text))
            for old, i in zip(t.renders, shape.literals, strict=True)
        ]

        def sub(text: str) -> str:
            for old, new in swaps:
                if old in text:
                    text = text.replace(old, new)
            return text

        moves: dict[tuple[int, int], tuple[int, int]] | None = None
        first = _start_of(tokens[0], sql)
        text = sql[first[0] : tokens[-1].end + 1]
        events: list[LineageInfo] = []
        for e in t.result.events:
            diagnostics = []
            for d in e.diagnostics:
                line, column = d.line, d.column
                if line is not None:
                    if moves is None:
                        moves = {
                            _start_of(a, t.sql)[1:]: _start_of(b, sql)[1:]
                            for a, b in zip(t.shape.tokens, tokens, strict=True)
                        }
                    moved = moves.get((line, column or 0))
                    if moved is None:
                        return None
                    line, column = moved
                diagnostics.append(
                    replace(
                        d,
                        message=sub(d.message),
                        line=line,
                        column=column,
                        statement_index=index if d.statement_index is not None else None,
                    )
                )
            ctx = ex.context_for(text, e.source_command, run, index, [e.target.table, *e.sources, *e.via])
            events.append(
                replace(
                    e,
                    event_id=make_event_id(ctx.query_id, e.target.table),
                    direct=_patched(e.direct, sub),
                    dataset_indirect=_patched(e.dataset_indirect, sub),
                    output_indirect=_patched(e.output_indirect, sub),
                    diagnostics=tuple(diagnostics),
                    context=ctx,
                )
            )
        s = t.result
        return StatementResult(index, first[1], first[2], text, s.kind, tuple(events), s.skip_reason, s.error)


def _patched(items: tuple[Any, ...], sub: Callable[[str], str]) -> tuple[Any, ...]:
    """The entries with their expressions' placeholders replaced (untouched entries are kept as they are)."""
    out = []
    for x in items:
        expression = sub(x.expression)
        out.append(x if expression is x.expression else replace(x, expression=expression))
    return tuple(out)


def _names_hold(e: LineageInfo, renders: tuple[str, ...]) -> bool:
    """True when a placeholder reached anything of the event but its expressions, messages and
    context (which the template rebuilds): a table or column name made from a literal, say."""
    d = event_to_dict(e)
    d.pop("context")
    for part in ("direct", "dataset_indirect", "output_indirect"):
        for x in d.get(part, ()):
            x.pop("expression", None)
    for x in d.get("diagnostics", ()):
        x.pop("message", None)
    text = json.dumps(d).lower()
    return any(r.strip("'").lower() in text for r in renders)


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
        and all(form(x) == form(y) for x, y in zip(a.events, b.events, strict=True))
    )
