"""Pass 4: classify a resolved target expression.

From one resolved expression: its direct type (the guide's order), its origin, the columns it
reads, the DIRECT inputs with their transformation labels, and the output-level indirect
expressions (WINDOW keys, CONDITIONAL conditions).

>>> import sqlglot
>>> from headwater.model import TableRef
>>> from headwater.extract.scope import column_node
>>> t = TableRef("internal", "db", "o")
>>> e = sqlglot.parse_one("CASE WHEN x = 'EAST' THEN 'CORE' ELSE UPPER(y) END")
>>> e = e.transform(lambda n: column_node(t, n.name) if isinstance(n, sqlglot.exp.Column) else n)
>>> c = classify(e)
>>> c.type.value, c.origin.value, [str(i.column) for i in c.inputs], c.inputs[0].labels
('TRANSFORMATION', 'COLUMN', ['internal.db.o.y'], ('CASE', 'UPPER'))
>>> [(k.value, x.sql()) for k, x in c.indirect]
[('CONDITIONAL', "o.x = 'EAST'")]
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from headwater.extract.scope import REF
from headwater.extract.trees import distinct_nodes
from headwater.model import ColumnRef, DirectInput, DirectType, IndirectType, Origin

ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Neg, exp.Pow)
MASKING_FUNCTIONS = {
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
_SYSTEM_FUNCS = (exp.Rand, exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime, exp.CurrentUser)
# Ranking and navigation functions: sqlglot types them as aggregates, SQL engines do not.
WINDOW_ONLY = (
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
ENGINE_AGGREGATES = frozenset(
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
ENGINE_FUNCTIONS = ENGINE_AGGREGATES | frozenset(
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


def anonymous_name(node: exp.Anonymous) -> str:
    return str(node.this).upper()


@dataclass(frozen=True, slots=True)
class Classified:
    type: DirectType
    origin: Origin
    sources: tuple[ColumnRef, ...]
    inputs: tuple[DirectInput, ...]
    indirect: tuple[tuple[IndirectType, exp.Expression], ...]


def function_label(node: exp.Expression) -> str | None:
    """The transformation label a node adds to the path of the inputs below it."""
    if isinstance(node, exp.Cast):
        return "CAST"
    if isinstance(node, ARITHMETIC):
        return "ARITHMETIC"
    if isinstance(node, exp.Anonymous):
        name = anonymous_name(node)
        return name if name in ENGINE_FUNCTIONS else "UDF"
    if isinstance(node, exp.Case):
        return "CASE"
    if isinstance(node, exp.Dot):
        return "FIELD"
    if isinstance(node, exp.Bracket):
        return "SUBSCRIPT"
    if isinstance(node, exp.Func):
        return node.sql_names()[0] if node.sql_names() else node.key.upper()
    return None


def is_masking(node: exp.Expression) -> bool:
    if isinstance(node, exp.Anonymous):
        name = str(node.this).upper()
        return name in MASKING_FUNCTIONS or "MASK" in name
    if isinstance(node, exp.Func):
        return bool({n.upper() for n in node.sql_names()} & MASKING_FUNCTIONS) or "MASK" in node.key.upper()
    return False


def _with(labels: tuple[str, ...], label: str) -> tuple[str, ...]:
    """The label path extended by ``label``; a label already on it is not repeated (inputs keep each
    label once anyway), so a path stays short however deep the expression."""
    return labels if label in labels else (*labels, label)


class _Walker:
    def __init__(self, shared: bool = False) -> None:
        # shared subexpressions: each is walked once per (labels, masked, value) context
        self.seen: set[tuple[int, tuple[str, ...], bool, bool]] | None = set() if shared else None
        self.sources: dict[ColumnRef, None] = {}
        self.inputs: dict[ColumnRef, tuple[list[str], bool]] = {}
        self.indirect: list[tuple[IndirectType, exp.Expression]] = []
        self.aggregate = False
        self.system = False
        self.unresolved = False

    def walk(self, node: exp.Expression, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        if isinstance(node, exp.Column):
            ref = node.meta.get(REF) if node._meta else None
            if ref is not None:
                self.sources[ref] = None
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
        if (isinstance(node, exp.AggFunc) and not isinstance(node, WINDOW_ONLY)) or (
            isinstance(node, exp.Anonymous) and anonymous_name(node) in ENGINE_AGGREGATES
        ):
            self.aggregate = True
            if not any(isinstance(v, exp.Expression) for v in node.args.values()) or isinstance(node.this, exp.Star):
                self.system = True
        elif isinstance(node, exp.Window):
            self._window(node, labels, masked, value)
            return
        elif isinstance(node, exp.Case):
            self._case(node, labels, masked, value)
            return
        elif isinstance(node, exp.If):
            self._condition(node.this)
            inner = _with(labels, "IF")
            for branch in ("true", "false"):
                if node.args.get(branch) is not None:
                    self.walk(node.args[branch], inner, masked, value)
            return
        elif isinstance(node, exp.Coalesce):
            args = [node.this, *node.expressions]
            for arg in args:
                if self._reads_column(arg):
                    self.indirect.append((IndirectType.CONDITIONAL, arg))
            inner = _with(labels, function_label(node) or "COALESCE")
            for arg in args:
                self.walk(arg, inner, masked, value)
            return
        elif isinstance(node, _SYSTEM_FUNCS) or (
            isinstance(node, exp.Func)
            and not any(isinstance(v, exp.Expression | list) and v for v in node.args.values())
        ):
            self.system = True
        label = function_label(node)
        if label is not None:
            labels = _with(labels, label)
            masked = masked or is_masking(node)
        for child in node.iter_expressions():
            self.walk(child, labels, masked, value)

    def _reads_column(self, node: exp.Expression) -> bool:
        nodes = node.walk() if self.seen is None else distinct_nodes(node)
        return any(isinstance(n, exp.Column) for n in nodes)

    def _input(self, ref: ColumnRef, labels: tuple[str, ...], masked: bool) -> None:
        prev = self.inputs.get(ref)
        if prev is None:
            self.inputs[ref] = (list(dict.fromkeys(labels)), masked)
        else:
            merged = prev[0] + [x for x in labels if x not in prev[0]]
            self.inputs[ref] = (merged, prev[1] or masked)

    def _condition(self, cond: exp.Expression) -> None:
        if self._reads_column(cond):  # literals are dropped
            self.indirect.append((IndirectType.CONDITIONAL, cond))
            self.walk(cond, (), False, False)

    def _case(self, node: exp.Case, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        if node.this is not None:  # simple CASE x WHEN …: x decides the branch
            self._condition(node.this)
        inner = _with(labels, "CASE")
        for branch in node.args.get("ifs") or []:
            self._condition(branch.this)
            self.walk(branch.args["true"], inner, masked, value)
        if node.args.get("default") is not None:
            self.walk(node.args["default"], inner, masked, value)

    def _window(self, node: exp.Window, labels: tuple[str, ...], masked: bool, value: bool) -> None:
        for key in node.args.get("partition_by") or []:
            self.indirect.append((IndirectType.WINDOW, key))
            self.walk(key, (), False, False)
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                self.indirect.append((IndirectType.WINDOW, ordered.this))
                self.walk(ordered.this, (), False, False)
        func = node.this
        if not any(isinstance(v, exp.Expression) for v in func.args.values()):
            self.system = True
        self.walk(func, labels, masked, value)


def classify(expr: exp.Expression, shared: bool = False) -> Classified:
    """Classify one resolved expression (see the module example); ``shared``: it may share
    subexpressions (``Resolver._reuse``), each of which is then walked once."""
    w = _Walker(shared)
    w.walk(expr, (), False, True)
    if w.aggregate:
        dtype = DirectType.AGGREGATION
    elif isinstance(expr, exp.Column):
        dtype = DirectType.IDENTITY
    else:
        dtype = DirectType.TRANSFORMATION
    if w.sources or w.unresolved:
        origin = Origin.COLUMN
    elif w.system or w.aggregate:
        origin = Origin.SYSTEM
    else:
        origin = Origin.CONSTANT
    inputs = tuple(DirectInput(ref, tuple(labels), masked) for ref, (labels, masked) in w.inputs.items())
    return Classified(dtype, origin, tuple(w.sources), inputs, tuple(w.indirect))
