"""Pass 4: classify a resolved target expression.

From one resolved expression, in one walk: its direct type (the guide's order), its origin, the
columns it reads, the DIRECT inputs with their transformation labels, the output-level indirect
expressions (WINDOW keys, CONDITIONAL conditions) with the columns each reads (``refs_of``'s
breadth-first order), and whether a column of it could not be bound (``has_unresolved``).

>>> import sqlglot
>>> from headwater.model import TableRef
>>> from headwater.extract.scope import column_node
>>> t = TableRef("internal", "db", "o")
>>> e = sqlglot.parse_one("CASE WHEN x = 'EAST' THEN 'CORE' ELSE UPPER(y) END")
>>> e = e.transform(lambda n: column_node(t, n.name) if isinstance(n, sqlglot.exp.Column) else n)
>>> c = classify(e)
>>> c.type.value, c.origin.value, [str(i.column) for i in c.inputs], c.inputs[0].labels
('TRANSFORMATION', 'COLUMN', ['internal.db.o.y'], ('CASE', 'UPPER'))
>>> [(k.value, x.sql()) for k, x in c.indirect], [[str(r) for r in refs] for refs in c.indirect_refs]
([('CONDITIONAL', "o.x = 'EAST'")], [['internal.db.o.x']])
>>> c.unbound
False
"""

from __future__ import annotations

from typing import Final

from sqlglot import exp

from headwater.extract.scope import REF, UNRESOLVED, RefKey, find_all, has_unresolved, ref_key, refs_of
from headwater.extract.trees import distinct_nodes
from headwater.model import ColumnRef, DirectInput, DirectType, IndirectType, Origin
from headwater.model.slots import slot_setters

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_AGG_FUNC: Final = exp.AggFunc
_ANONYMOUS_NODE: Final = exp.Anonymous
_BRACKET: Final = exp.Bracket
_CASE_NODE: Final = exp.Case
_CAST: Final = exp.Cast
_COALESCE_NODE: Final = exp.Coalesce
_COLUMN_NODE: Final = exp.Column
_DOT: Final = exp.Dot
_EXPRESSION: Final = exp.Expression
_FUNC_NODE: Final = exp.Func
_IF_NODE: Final = exp.If
_STAR: Final = exp.Star
_WINDOW_NODE: Final = exp.Window
_EXPR: Final = exp.Expr  # what ``iter_expressions`` yields
# this module runs compiled (the mypyc build: its ``__file__`` is the extension's, not a ``.py``)
_COMPILED: Final = not __file__.endswith(".py")

ARITHMETIC: Final = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Neg, exp.Pow)
MASKING_FUNCTIONS: Final = {
    "MD5",
    "MD5_DIGEST",
    "SHA",
    "SHA1",
    "SHA2",
    "SHA256",
    "SHA512",
    "HASH",
    "MURMUR_HASH3_32",
    "MURMUR_HASH3_64",
    "XXHASH_32",
    "XXHASH_64",
    "FARM_FINGERPRINT",
    "CRC32",
    "SM3",
    "HMAC",
}
_SYSTEM_FUNCS: Final = (exp.Rand, exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime, exp.CurrentUser)
# Ranking and navigation functions: sqlglot types them as aggregates, SQL engines do not.
WINDOW_ONLY: Final = (
    exp.Rank,
    exp.DenseRank,
    exp.PercentRank,
    exp.CumeDist,
    exp.Ntile,
    exp.Lag,
    exp.Lead,
    exp.FirstValue,
    exp.LastValue,
    exp.NthValue,
)


# Functions that engines know and sqlglot does not parse into a class: labelled by their own name
# (other unknown functions are UDFs). The aggregates among them make an AGGREGATION.
ENGINE_AGGREGATES: Final = frozenset(
    {
        "BITMAP_UNION",
        "BITMAP_UNION_COUNT",
        "BITMAP_UNION_INT",
        "BITMAP_INTERSECT",
        "BITMAP_AGG",
        "GROUP_BITMAP_XOR",
        "INTERSECT_COUNT",
        "ORTHOGONAL_BITMAP_UNION_COUNT",
        "ORTHOGONAL_BITMAP_INTERSECT",
        "HLL_UNION",
        "HLL_UNION_AGG",
        "HLL_RAW_AGG",
        "NDV",
        "RETENTION",
        "WINDOW_FUNNEL",
        "COLLECT_LIST",
        "COLLECT_SET",
        "PERCENTILE_APPROX",
        "APPROX_PERCENTILE",
        "TOPN",
        "GROUP_CONCAT",
        "MULTI_DISTINCT_COUNT",
    }
)
ENGINE_FUNCTIONS: Final = ENGINE_AGGREGATES | frozenset(
    {
        "TO_BITMAP",
        "BITMAP_HASH",
        "BITMAP_HASH64",
        "BITMAP_COUNT",
        "BITMAP_AND",
        "BITMAP_OR",
        "BITMAP_XOR",
        "BITMAP_TO_STRING",
        "BITMAP_FROM_STRING",
        "BITMAP_EMPTY",
        "BITMAP_CONTAINS",
        "HLL_HASH",
        "HLL_EMPTY",
        "HLL_CARDINALITY",
        "TUMBLE",
        "HOP",
        "CUMULATE",
        "SESSION",
    }
)


_NEW: Final = object.__new__
_DIRECT_INPUT: Final = slot_setters(DirectInput)


def direct_input(column: ColumnRef, labels: tuple[str, ...], masking: bool) -> DirectInput:
    """``DirectInput(column, labels, masking)``: the same value, its fields set by their slots'
    setters instead of the frozen dataclass's ``__init__`` (``object.__setattr__`` per field),
    about half the instructions. The model's frozen classes have no ``__post_init__``."""
    made: DirectInput = _NEW(DirectInput)
    s = _DIRECT_INPUT
    s[0](made, column)
    s[1](made, labels)
    s[2](made, masking)
    return made


def anonymous_name(node: exp.Anonymous) -> str:
    return str(node.this).upper()


class Classified:
    """What ``classify`` makes of one expression. A plain class (not a frozen dataclass, whose
    ``__init__`` sets each field through ``object.__setattr__``): made once per classified output,
    read by the event's maker; equal when the fields are, as the dataclass was."""

    __slots__ = ("indirect", "indirect_refs", "inputs", "origin", "sources", "type", "unbound")

    def __init__(
        self,
        type: DirectType,
        origin: Origin,
        sources: tuple[ColumnRef, ...],
        inputs: tuple[DirectInput, ...],
        indirect: tuple[tuple[IndirectType, exp.Expression], ...],
        indirect_refs: tuple[tuple[ColumnRef, ...], ...],
        unbound: bool,
    ) -> None:
        self.type = type
        self.origin = origin
        self.sources = sources
        self.inputs = inputs
        self.indirect = indirect
        # per ``indirect`` entry: ``refs_of`` its expression (the columns it reads, breadth first)
        self.indirect_refs = indirect_refs
        self.unbound = unbound  # ``has_unresolved`` of the expression: a column of it could not be bound

    def _fields(self) -> tuple[object, ...]:
        return (self.type, self.origin, self.sources, self.inputs, self.indirect, self.indirect_refs, self.unbound)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Classified):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("type", "origin", "sources", "inputs", "indirect", "indirect_refs", "unbound")
        return f"Classified({', '.join(f'{n}={v!r}' for n, v in zip(names, self._fields(), strict=True))})"


def function_label(node: exp.Expression) -> str | None:
    """The transformation label a node adds to the path of the inputs below it."""
    if isinstance(node, _ANONYMOUS_NODE):
        name = anonymous_name(node)
        return name if name in ENGINE_FUNCTIONS else "UDF"
    return _kind(type(node)).label


def is_masking(node: exp.Expression) -> bool:
    if isinstance(node, _ANONYMOUS_NODE):
        name = anonymous_name(node)
        return name in MASKING_FUNCTIONS or "MASK" in name
    return _kind(type(node)).masking


# What the walk does with a node, by its class (``_kind``)
# Final literals: the compiled build uses their values, with no look-up
_OTHER: Final = 0
_COLUMN: Final = 1
_AGGREGATE: Final = 2
_WINDOW: Final = 3
_CASE: Final = 4
_IF: Final = 5
_COALESCE: Final = 6
_SYSTEM: Final = 7
_FUNC: Final = 8
_ANONYMOUS: Final = 9


class _Kind:
    """A node class's part in the walk: what it is, the label it adds and whether it masks."""

    __slots__ = ("kind", "label", "masking")

    def __init__(self, kind: int, label: str | None, masking: bool) -> None:
        self.kind, self.label, self.masking = kind, label, masking


_KINDS: Final[dict[type[exp.Expression], _Kind]] = {}


def _kind(cls: type[exp.Expression]) -> _Kind:
    """The ``_Kind`` of a node class, worked out once per class (labels and masking depend on the
    class only, but for ``Anonymous``, whose name decides them)."""
    found = _KINDS.get(cls)
    if found is not None:
        return found
    label: str | None = None
    if issubclass(cls, _CAST):
        label = "CAST"
    elif issubclass(cls, ARITHMETIC):
        label = "ARITHMETIC"
    elif issubclass(cls, _ANONYMOUS_NODE):
        label = None
    elif issubclass(cls, _CASE_NODE):
        label = "CASE"
    elif issubclass(cls, _DOT):
        label = "FIELD"
    elif issubclass(cls, _BRACKET):
        label = "SUBSCRIPT"
    elif issubclass(cls, _FUNC_NODE):
        names = cls.sql_names()
        label = names[0] if names else cls.key.upper()
    masking = False
    if issubclass(cls, _FUNC_NODE) and not issubclass(cls, _ANONYMOUS_NODE):
        masking = bool({n.upper() for n in cls.sql_names()} & MASKING_FUNCTIONS) or "MASK" in cls.key.upper()
    if issubclass(cls, _COLUMN_NODE):
        kind = _COLUMN
    elif issubclass(cls, _ANONYMOUS_NODE):
        kind = _ANONYMOUS
    elif issubclass(cls, _AGG_FUNC) and not issubclass(cls, WINDOW_ONLY):
        kind = _AGGREGATE
    elif issubclass(cls, _WINDOW_NODE):
        kind = _WINDOW
    elif issubclass(cls, _CASE_NODE):
        kind = _CASE
    elif issubclass(cls, _IF_NODE):
        kind = _IF
    elif issubclass(cls, _COALESCE_NODE):
        kind = _COALESCE
    elif issubclass(cls, _SYSTEM_FUNCS):
        kind = _SYSTEM
    elif issubclass(cls, _FUNC_NODE):
        kind = _FUNC
    else:
        kind = _OTHER
    found = _Kind(kind, label, masking)
    _KINDS[cls] = found
    return found


def _with(labels: tuple[str, ...], label: str) -> tuple[str, ...]:
    """The label path extended by ``label``; a label already on it is not repeated (inputs keep each
    label once anyway), so a path stays short however deep the expression."""
    return labels if label in labels else (*labels, label)


class _Entry:
    """An indirect expression met by the walk: ``cols[start:end]`` are the columns of its subtree."""

    __slots__ = ("end", "itype", "keep", "node", "start")

    def __init__(self, itype: IndirectType, node: exp.Expression) -> None:
        self.itype, self.node = itype, node
        self.start = self.end = 0
        self.keep = True


def _no_arguments(node: exp.Expression) -> bool:
    return not any(isinstance(v, _EXPRESSION) for v in node.args.values())


def _no_values(node: exp.Expression) -> bool:
    return not any(isinstance(v, _EXPRESSION | list) and v for v in node.args.values())


class _Walker:
    """One walk of a resolved expression. Besides the classification it records every column node
    (``cols``: its ``ColumnRef`` or None, the walk's order) — those of the parts the classification
    does not enter (a window frame) by a plain scan — so that the columns of an indirect expression
    and the unbound flag need no walk of their own. A ``shared`` expression (see ``classify``) is
    walked once per subexpression and context, so there the two come from ``refs_of`` and
    ``has_unresolved`` instead."""

    def __init__(self, shared: bool = False) -> None:
        # shared subexpressions: each is walked once per (labels, masked, value) context
        self.seen: set[tuple[int, tuple[str, ...], bool, bool]] | None = set() if shared else None
        # keyed by the reference's fields (``ref_key``): hashed without the dataclasses' Python hashes
        self.sources: dict[RefKey, ColumnRef] = {}
        self.inputs: dict[RefKey, tuple[ColumnRef, list[str], bool]] = {}
        self.indirect: list[_Entry] = []
        self.cols: list[ColumnRef | None] = []
        self.aggregate = False
        self.system = False
        self.unresolved = False  # a column without a ColumnRef
        self.unbound = False  # a column marked UNRESOLVED

    def walk(self, node: exp.Expression, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        info = _KINDS.get(type(node)) or _kind(type(node))
        kind = info.kind
        if kind == _COLUMN:
            ref = self._note_column(node)
            if ref is not None:
                rkey = ref_key(ref)
                if rkey not in self.sources:
                    self.sources[rkey] = ref
                if value:
                    self._input(ref, labels, masked)
            else:
                self.unresolved = True
            return
        if self.seen is not None:
            key = (id(node), labels, masked, value)
            if key in self.seen:
                return
            self.seen.add(key)
        label = info.label
        masks = info.masking
        if kind == _ANONYMOUS:
            name = str(node.this).upper()
            label = name if name in ENGINE_FUNCTIONS else "UDF"
            masks = name in MASKING_FUNCTIONS or "MASK" in name
            if name in ENGINE_AGGREGATES:
                self._aggregate(node)
            elif _no_values(node):
                self.system = True
        elif kind == _AGGREGATE:
            self._aggregate(node)
        elif kind == _WINDOW:
            self._window(node, labels, masked, value)
            return
        elif kind == _CASE:
            self._case(node, labels, masked, value)
            return
        elif kind == _IF:
            self._condition(node.this)
            inner = _with(labels, "IF")
            for branch in ("true", "false"):
                if node.args.get(branch) is not None:
                    self.walk(node.args[branch], inner, masked, value)
            self._scan_rest(node, ("this", "true", "false"))
            return
        elif kind == _COALESCE:
            self._coalesce(node, label, labels, masked, value)
            return
        elif kind == _SYSTEM or (kind == _FUNC and _no_values(node)):
            self.system = True
        if label is not None:
            labels = _with(labels, label)
            masked = masked or masks
        if not _COMPILED:  # sqlglot's ``iter_expressions`` runs in C: one call per node here
            for child in node.iter_expressions():
                self.walk(child, labels, masked, value)
            return
        # compiled: the children read from the arguments directly (``iter_expressions``'s order), the
        # common arguments that are no node (a name, a flag, none) told apart before ``isinstance``
        for arg in node.args.values():
            if isinstance(arg, list):
                for v in arg:
                    if isinstance(v, _EXPR):
                        self.walk(v, labels, masked, value)  # type: ignore[arg-type]  # a node
            elif (
                arg is not None
                and arg is not True
                and arg is not False
                and not isinstance(arg, str)
                and isinstance(arg, _EXPR)
            ):
                self.walk(arg, labels, masked, value)  # type: ignore[arg-type]  # a node

    def _aggregate(self, node: exp.Expression) -> None:
        self.aggregate = True
        if _no_arguments(node) or isinstance(node.this, _STAR):
            self.system = True

    def _scan_rest(self, node: exp.Expression, walked: tuple[str, ...]) -> None:
        """Record the columns of the arguments of ``node`` the classification does not walk."""
        if self.seen is not None:
            return
        for key, value in node.args.items():
            if not value or key in walked:
                continue
            if isinstance(value, _EXPRESSION):
                self._scan(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _EXPRESSION):
                        self._scan(v)

    def _scan(self, node: exp.Expression) -> None:
        for n in find_all(node, _COLUMN_NODE):
            self._note_column(n)

    def _note_column(self, node: exp.Expression) -> ColumnRef | None:
        """A column passed: its reference (None if it has none) added to ``cols``, ``unbound`` set
        when it is marked unresolved."""
        meta = node._meta
        ref: ColumnRef | None = None
        if meta:
            ref = meta.get(REF)
            if meta.get(UNRESOLVED):
                self.unbound = True
        self.cols.append(ref)
        return ref

    def _reads_column(self, node: exp.Expression) -> bool:
        return any(isinstance(n, _COLUMN_NODE) for n in distinct_nodes(node))

    def _input(self, ref: ColumnRef, labels: tuple[str, ...], masked: bool) -> None:
        key = ref_key(ref)
        prev = self.inputs.get(key)
        if prev is None:
            self.inputs[key] = (ref, list(dict.fromkeys(labels)), masked)
        else:
            merged = prev[1] + [x for x in labels if x not in prev[1]]
            self.inputs[key] = (prev[0], merged, prev[2] or masked)

    def _subtree(self, entry: _Entry, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        """Walk an indirect expression, noting the span of ``cols`` its columns take."""
        entry.start = len(self.cols)
        self.walk(entry.node, labels, masked, value)
        entry.end = len(self.cols)

    def _condition(self, cond: exp.Expression) -> None:
        """A condition that reads a column is CONDITIONAL (literals are dropped); only those are
        walked: one that reads none is walked and then forgotten (its flags and entries undone)."""
        if self.seen is not None:
            if self._reads_column(cond):
                self.indirect.append(_Entry(IndirectType.CONDITIONAL, cond))
                self.walk(cond, (), False, False)
            return
        entry = _Entry(IndirectType.CONDITIONAL, cond)
        at = len(self.indirect)
        self.indirect.append(entry)
        aggregate, system = self.aggregate, self.system
        self._subtree(entry, (), False, False)
        if entry.end == entry.start:
            del self.indirect[at:]
            self.aggregate, self.system = aggregate, system

    def _coalesce(
        self, node: exp.Expression, label: str | None, labels: tuple[str, ...], masked: bool, value: bool
    ) -> None:
        """Each argument that reads a column is CONDITIONAL (whether the next one is taken)."""
        args: list[exp.Expression] = [node.this, *node.expressions]
        inner = _with(labels, label or "COALESCE")
        if self.seen is not None:
            for arg in args:
                if self._reads_column(arg):
                    self.indirect.append(_Entry(IndirectType.CONDITIONAL, arg))
            for arg in args:
                self.walk(arg, inner, masked, value)
            return
        entries = [_Entry(IndirectType.CONDITIONAL, arg) for arg in args]
        self.indirect.extend(entries)
        for entry in entries:
            self._subtree(entry, inner, masked, value)
            entry.keep = entry.end > entry.start
        self._scan_rest(node, ("this", "expressions"))

    def _case(self, node: exp.Expression, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        if node.this is not None:  # simple CASE x WHEN …: x decides the branch
            self._condition(node.this)
        inner = _with(labels, "CASE")
        for branch in node.args.get("ifs") or []:
            self._condition(branch.this)
            self.walk(branch.args["true"], inner, masked, value)
            self._scan_rest(branch, ("this", "true"))
        if node.args.get("default") is not None:
            self.walk(node.args["default"], inner, masked, value)
        self._scan_rest(node, ("this", "ifs", "default"))

    def _window(self, node: exp.Expression, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        for key in node.args.get("partition_by") or []:
            entry = _Entry(IndirectType.WINDOW, key)
            self.indirect.append(entry)
            self._subtree(entry, (), False, False)
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                entry = _Entry(IndirectType.WINDOW, ordered.this)
                self.indirect.append(entry)
                self._subtree(entry, (), False, False)
                self._scan_rest(ordered, ("this",))
            self._scan_rest(order, ("expressions",))
        self._scan_rest(node, ("this", "partition_by", "order"))
        func = node.this
        if _no_arguments(func):
            self.system = True
        self.walk(func, labels, masked, value)

    def indirect_refs(self, entry: _Entry) -> tuple[ColumnRef, ...]:
        """``refs_of`` the entry's expression: from the columns its walk recorded when they are one
        column at most (any order is then the breadth-first one), else by ``refs_of`` itself."""
        if self.seen is not None:
            return tuple(refs_of(entry.node, True))
        found: ColumnRef | None = None
        for ref in self.cols[entry.start : entry.end]:
            if ref is not None and ref is not found and ref != found:
                if found is not None:
                    return tuple(refs_of(entry.node))
                found = ref
        return () if found is None else (found,)


def classify(expr: exp.Expression, shared: bool = False) -> Classified:
    """Classify one resolved expression (see the module example); ``shared``: it may share
    subexpressions (``Resolver._reuse``), each of which is then walked once."""
    if type(expr) is _COLUMN_CLASS and not shared:  # a plain column (two outputs in five): the walk's answer
        return _column_classified(expr)
    return _classify_walked(expr, shared)


def _classify_walked(expr: exp.Expression, shared: bool) -> Classified:
    """``classify`` by its walk."""
    w = _Walker(shared)
    w.walk(expr, (), False, True)
    if w.aggregate:
        dtype = DirectType.AGGREGATION
    elif isinstance(expr, _COLUMN_NODE):
        dtype = DirectType.IDENTITY
    else:
        dtype = DirectType.TRANSFORMATION
    if w.sources or w.unresolved:
        origin = Origin.COLUMN
    elif w.system or w.aggregate:
        origin = Origin.SYSTEM
    else:
        origin = Origin.CONSTANT
    inputs = tuple(direct_input(ref, tuple(labels), masked) for ref, labels, masked in w.inputs.values())
    kept = [e for e in w.indirect if e.keep]
    return Classified(
        dtype,
        origin,
        tuple(w.sources.values()),
        inputs,
        tuple((e.itype, e.node) for e in kept),
        tuple(w.indirect_refs(e) for e in kept),
        has_unresolved(expr, True) if shared else w.unbound,
    )


_COLUMN_CLASS: Final = exp.Column
_NO_INDIRECT: Final[tuple[tuple[IndirectType, exp.Expression], ...]] = ()
_NO_REFS: Final[tuple[tuple[ColumnRef, ...], ...]] = ()


def _column_classified(expr: exp.Expression) -> Classified:
    """``classify`` of one column node, as its walk answers: an IDENTITY of its column (a column
    without a reference reads none)."""
    meta = expr._meta
    ref: ColumnRef | None = meta.get(REF) if meta else None
    unbound = bool(meta and meta.get(UNRESOLVED))
    if ref is None:
        return Classified(DirectType.IDENTITY, Origin.COLUMN, (), (), _NO_INDIRECT, _NO_REFS, unbound)
    return Classified(
        DirectType.IDENTITY, Origin.COLUMN, (ref,), (direct_input(ref, (), False),), _NO_INDIRECT, _NO_REFS, unbound
    )
