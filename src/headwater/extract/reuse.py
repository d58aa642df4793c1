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

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from headwater.extract.context import generated_query_id, now_iso
from headwater.extract.result import RunInfo, ScriptResult, StatementResult
from headwater.extract.split import _start_of
from headwater.model import Diagnostic, LineageInfo, QueryContext
from headwater.model.codec import event_to_dict
from headwater.model.event import event_id_of
from headwater.model.secrets import may_hold_secret

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
_STRING, _NUMBER, _SEMICOLON = TokenType.STRING, TokenType.NUMBER, TokenType.SEMICOLON

# A candidate literal: a quoted string with nothing in it a tokenizer treats specially, or a run of
# digits; never next to a character that could make it part of a longer token (a prefix such as
# N'…' or X'…', a name, a decimal point, a parameter's sign, another quote).
_EDGE = r"""\w$@#.'"`\\"""
_CANDIDATES = re.compile(rf"(?=['0-9])(?<![{_EDGE}:])(?:'([^'\\\r\n]*)'|([0-9]+))(?![{_EDGE}])")  # (?=: speed


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


@dataclass(frozen=True, slots=True)
class _Plan:
    """What tokenizing one statement of a skeleton showed, which holds for each statement of it."""

    key: tuple[Any, ...]  # the shape key of that statement
    literals: tuple[int, ...]  # the candidate of each abstracted literal, in token order
    literal_tokens: tuple[int, ...]  # and its token
    types: tuple[TokenType, ...]  # their token types
    kept: tuple[tuple[int, int], ...]  # (candidate, token) of numbers that are part of the key
    names: frozenset[str]  # the names of the tokens that are not candidates
    first: tuple[int, int, int]  # (offset, line, column) of the first token
    tail: int  # characters after the last token (blanks, comments, semicolons)
    starts: tuple[int, ...]  # each token's offset
    before: tuple[int, ...]  # how many candidates come before each token
    widths: tuple[int, ...]  # each candidate's length
    numbers: tuple[bool, ...]  # which candidates are numbers (the others are quoted strings)
    positions: bool  # a token's line and column are those its offset counts (no carriage return)
    hinted: bool  # the text around the candidates may hold a secret (``secrets.may_hold_secret``)


def _skeleton(sql: str) -> tuple[tuple[Any, ...], list[str]]:
    """The text around the candidates (and which candidates are strings), and the candidates' text."""
    parts = _CANDIDATES.split(sql)
    strings = parts[1::3]
    found = [s if s is not None else n for s, n in zip(strings, parts[2::3], strict=True)]
    return (tuple(parts[0::3]), tuple(s is None for s in strings)), found


def _plan_of(sql: str, shape: Shape, skeleton: tuple[Any, ...], found: list[str]) -> _Plan | str:
    """The plan of ``sql``'s skeleton, or ``_UNSAFE`` when a candidate is not exactly one token."""
    tokens = shape.tokens
    at = {t.start: i for i, t in enumerate(tokens)}
    segments, numbers = skeleton
    pos = 0
    token_of: list[int] = []
    for k, text in enumerate(found):
        pos += len(segments[k])
        width = len(text) if numbers[k] else len(text) + 2
        i = at.get(pos)
        if i is None:
            return _UNSAFE
        t = tokens[i]
        if t.end != pos + width - 1 or t.text != text or t.token_type is not (_NUMBER if numbers[k] else _STRING):
            return _UNSAFE
        token_of.append(i)
        pos += width
    candidate = {i: k for k, i in enumerate(token_of)}
    if any(i not in candidate for i in shape.literals):
        return _UNSAFE
    abstracted = set(shape.literals)
    before, k = [], 0
    for i in range(len(tokens)):
        before.append(k)
        k += i in candidate
    return _Plan(
        key=shape.key,
        literals=tuple(candidate[i] for i in shape.literals),
        literal_tokens=shape.literals,
        types=tuple(tokens[i].token_type for i in shape.literals),
        kept=tuple((k, i) for k, i in enumerate(token_of) if i not in abstracted),
        names=frozenset(t.text.lower() for i, t in enumerate(tokens) if i not in candidate),
        first=_start_of(tokens[0], sql),
        tail=len(sql) - (tokens[-1].end + 1),
        starts=tuple(t.start for t in tokens),
        before=tuple(before),
        widths=tuple(len(f) if numbers[k] else len(f) + 2 for k, f in enumerate(found)),
        numbers=numbers,
        hinted=any(may_hold_secret(s) for s in segments),
        positions="\r" not in sql and all(_start_of(t, sql)[1:] == _counted(sql, t.start) for t in tokens),
    )


def _counted(sql: str, offset: int) -> tuple[int, int]:
    """(line, column) of ``offset`` in ``sql``, counted."""
    return sql.count("\n", 0, offset) + 1, offset - (sql.rfind("\n", 0, offset) + 1) + 1


@dataclass(slots=True)
class Sight:
    """One statement as the memory sees it: its shape key, the names it may mention, its abstracted
    literals (token type, text), its text without what surrounds the tokens, and where it starts.
    Its tokens are made only when asked for (``shape``)."""

    sql: str
    key: tuple[Any, ...]
    names: frozenset[str]
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
        return cls(sql, shape.key, shape.names, literals, sql[first[0] : tokens[-1].end + 1], first, dialect, shape)

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
        return plan.hinted or may_hold_secret("\0".join(found))  # no hint word runs across a NUL

    def position(self, k: int) -> tuple[int, int] | None:
        """(line, column) of the ``k``-th token: from the skeleton's plan, else from the tokens."""
        plan, found = self.plan, self.found
        if plan is None or found is None or not plan.positions:
            shape = self.shape()
            return _start_of(shape.tokens[k], self.sql)[1:] if shape is not None and k < len(shape.tokens) else None
        if k >= len(plan.starts):
            return None
        return _counted(self.sql, self._start(plan, found, k))

    @staticmethod
    def _start(plan: _Plan, found: list[str], k: int) -> int:
        """The offset of the ``k``-th token: the plan's, moved by the candidates before it."""
        shift = 0  # how much longer the candidates before the token are than in the plan's statement
        for c in range(plan.before[k]):
            shift += len(found[c]) + (0 if plan.numbers[c] else 2) - plan.widths[c]
        return plan.starts[k] + shift

    def spans(self) -> tuple[int, list[tuple[int, int]]] | None:
        """The number of tokens, and the first and last offsets of each abstracted literal."""
        plan, found = self.plan, self.found
        if plan is None or found is None:
            shape = self.shape()
            if shape is None:
                return None
            return len(shape.tokens), [(shape.tokens[i].start, shape.tokens[i].end) for i in shape.literals]
        out = []
        for c, k in zip(plan.literals, plan.literal_tokens, strict=True):
            start = self._start(plan, found, k)
            out.append((start, start + len(found[c]) + (0 if plan.numbers[c] else 2) - 1))
        return len(plan.starts), out


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
        names = plan.names.union([f.lower() for f in found]) if found else plan.names
        literals = tuple(zip(plan.types, [found[k] for k in plan.literals], strict=True))
        text = sql[plan.first[0] : len(sql) - plan.tail]
        return Sight(sql, key, names, literals, text, plan.first, dialect, None, plan, found)
    shape = shape_of(sql, dialect)
    if shape is None:
        return None
    if plan is None:
        plans[skeleton] = _plan_of(sql, shape, skeleton, found)
    return Sight.of(sql, shape, dialect)


def _placeholder(tt: TokenType, n: int) -> str:
    return f"'hw@lit{n}@'" if tt == TokenType.STRING else f"{909000000 + n}"


def _literal(tt: TokenType, text: str) -> exp.Literal:
    return exp.Literal.string(text) if tt == TokenType.STRING else exp.Literal.number(text)


def template_sql(sql: str, spans: list[tuple[int, int]], types: list[TokenType]) -> str:
    """``sql`` with each abstracted literal (its first and last offsets, its token type) replaced by
    its placeholder (positions of the rest kept only up to the first literal)."""
    out: list[str] = []
    pos = 0
    for n, ((start, end), tt) in enumerate(zip(spans, types, strict=True)):
        out.append(sql[pos:start])
        out.append(_placeholder(tt, n))
        pos = end + 1
    out.append(sql[pos:])
    return "".join(out)


Pieces = tuple[str | int, ...]  # text, and the number of the literal whose rendering goes between
_PARTS = ("direct", "dataset_indirect", "output_indirect")


@dataclass(frozen=True, slots=True)
class _Event:
    """A template's event, with where its expressions hold placeholders."""

    event: LineageInfo
    slots: tuple[tuple[tuple[int, Pieces], ...], ...]  # per part of ``_PARTS``: (entry, its pieces)
    diagnostics: tuple[tuple[Diagnostic, Pieces, int | None], ...]  # with its message's pieces, its token
    name: bytes  # the event id's name after the query id ("\x1f" and the target)


@dataclass(frozen=True, slots=True)
class _Template:
    result: StatementResult  # extracted from the placeholder text
    sql: str  # the placeholder text
    shape: Shape  # the placeholder text's shape (its token positions)
    renders: tuple[str, ...]  # each placeholder as the generator renders it
    pattern: re.Pattern[str]  # any of the renders
    events: tuple[_Event, ...]
    properties: dict[str, str] | None  # the run's external catalog properties the template was made
    # with; None when the session's catalog had its own tables then (their properties are looked up)

    def pieces(self, text: str) -> Pieces:
        number = {r: n for n, r in enumerate(self.renders)}
        out: list[str | int] = []
        pos = 0
        for m in self.pattern.finditer(text):
            out += [text[pos : m.start()], number[m.group()]]
            pos = m.end()
        out.append(text[pos:])
        return tuple(out)


def _make_template(
    result: StatementResult, sql: str, shape: Shape, renders: tuple[str, ...], run: RunInfo, layered: bool
) -> _Template:
    properties = None if layered else dict(run.external_catalog_properties)
    pattern = re.compile("|".join(re.escape(r) for r in sorted(renders, key=len, reverse=True)) or r"(?!)")
    t = _Template(result, sql, shape, renders, pattern, (), properties)
    token_at = {_start_of(tok, sql)[1:]: k for k, tok in enumerate(shape.tokens)}
    events = []
    for e in result.events:
        slots = tuple(
            tuple((k, t.pieces(x.expression)) for k, x in enumerate(getattr(e, part)) if pattern.search(x.expression))
            for part in _PARTS
        )
        diagnostics = tuple(
            (d, t.pieces(d.message), None if d.line is None else token_at.get((d.line, d.column or 0), -1))
            for d in e.diagnostics
        )
        events.append(_Event(e, slots, diagnostics, f"\x1f{e.target.table}".encode()))
    return replace(t, events=tuple(events))


def _fill(pieces: Pieces, news: list[str]) -> str:
    return "".join([p if isinstance(p, str) else news[p] for p in pieces])


def event_id(query_id: str, name: bytes) -> str:
    """``make_event_id(query_id, target)`` with ``name`` = ``f"\x1f{target}".encode()``."""
    return event_id_of(query_id.encode() + name)


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
        key = (sight.key, ex.session.catalog, ex.session.database, ex.catalog.state_for(sight.names))
        self.lookups += 1
        entry = self._entries.get(key)
        if isinstance(entry, _Template):
            self._entries.move_to_end(key)
            reused = self._instantiate(ex, entry, sight, run, ex.index)
            if reused is not None:
                self.hits += 1
                ex.index += 1
                return ScriptResult((reused,))
        index = ex.index
        if isinstance(entry, _First):  # second sight: the template, checked against the first
            template = self._verified(ex, sight, run, index, entry)
            self._put(key, template)
            if isinstance(template, _Template):
                reused = self._instantiate(ex, template, sight, run, index)
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
            self._put(key, _First(sight, run, index, result.statements[0]) if first else _SEEN)
        else:
            self._put(key, self._verified(ex, sight, run, index, _First(sight, run, index, result.statements[0])))
        return result

    def _put(self, key: tuple[Any, ...], value: Any) -> None:
        old = self._entries.get(key)
        self._firsts += isinstance(value, _First) - isinstance(old, _First)
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            _, gone = self._entries.popitem(last=False)
            self._firsts -= isinstance(gone, _First)

    def _verified(self, ex: Extractor, sight: Sight, run: RunInfo, index: int, real: _First) -> _Template | str:
        """The template made from ``sight``'s statement (at ``index``), if putting the literals of
        ``real`` back gives exactly the result ``real`` was extracted to."""
        spans = sight.spans()
        if spans is None:
            return _REFUSED
        types = [tt for tt, _ in sight.literals]
        text = template_sql(sight.sql, spans[1], types)
        tshape = shape_of(text, ex.dialect_impl)
        if tshape is None or len(tshape.tokens) != spans[0]:
            return _REFUSED
        saved = ex.index
        ex.index = index
        try:
            result = ex.extract_text(text, run)
        finally:
            ex.index = saved
        if not _reusable(result):
            return _REFUSED
        renders = tuple(self._render(ex, tt, _placeholder(tt, n).strip("'")) for n, tt in enumerate(types))
        if any(_names_hold(e, renders) for e in result.statements[0].events):
            return _REFUSED
        template = _make_template(result.statements[0], text, tshape, renders, run, ex.catalog.version > 0)
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
        news = [self._render(ex, tt, literal) for tt, literal in sight.literals]
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
                ctx = QueryContext(
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
            lists = [_patched(getattr(e, part), slots, news) for part, slots in zip(_PARTS, te.slots, strict=True)]
            events.append(
                LineageInfo(
                    event_id=event_id(ctx.query_id, te.name),
                    source_command=e.source_command,
                    target=e.target,
                    sources=e.sources,
                    direct=lists[0],
                    dataset_indirect=lists[1],
                    output_indirect=lists[2],
                    context=ctx,
                    status=e.status,
                    diagnostics=diagnostics,
                    via=e.via,
                    version=e.version,
                )
            )
        s = t.result
        first = sight.first
        return StatementResult(index, first[1], first[2], text, s.kind, tuple(events), s.skip_reason, s.error)


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


def _with(x: Any, **changes: Any) -> Any:
    """``replace(x, **changes)`` for the model's frozen dataclasses, without ``replace``'s checks."""
    cls = type(x)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return cls(*[changes[n] if n in changes else getattr(x, n) for n in names])


def _patched(items: tuple[Any, ...], slots: tuple[tuple[int, Pieces], ...], news: list[str]) -> tuple[Any, ...]:
    """The entries with the placeholders of their expressions replaced (the others kept as they are)."""
    if not slots:
        return items
    out = list(items)
    for k, pieces in slots:
        out[k] = _with(out[k], expression=_fill(pieces, news))
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
        and all(x == y or form(x) == form(y) for x, y in zip(a.events, b.events, strict=True))
    )
