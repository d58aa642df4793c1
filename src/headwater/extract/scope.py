"""What a query scope can see: its sources (tables, CTEs, derived tables) and its outputs.

A ``Relation`` is the resolved output of a query: for each output column, one resolved
expression per set-operation branch (its *alternatives*). A resolved expression is a sqlglot
tree whose base-table columns carry their ``ColumnRef`` in ``node.meta["hw"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from sqlglot import exp

from headwater.model import ColumnRef, TableRef
from headwater.model.storage import storage_uri

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_exp_to_identifier: Final = exp.to_identifier

REF: Final = "hw"  # meta key: the ColumnRef of a resolved base-table column
UNRESOLVED: Final = "hw_unresolved"  # meta key: a column that could not be bound
# argument of the COALESCE that a FULL / RIGHT JOIN … USING column is: its name (``STRUCT(k)`` names its
# field ``k``); an argument, not meta, so that copies keep it
USING_NAME: Final = "hw_using"

Alts = list[exp.Expression]


# ``Relation``, ``Source`` and ``Scope`` are dataclasses (their equality and text) with an ``__init__``
# of their own, which the compiled build compiles (a dataclass's generated one stays interpreted);
# each takes the fields in order, as the generated one would, a list or dictionary left out a new one


@dataclass(init=False)
class Relation:
    """Output columns of a query. ``complete`` is False when some outputs are unknown."""

    names: list[str]
    labels: list[str]
    columns: list[Alts]
    complete: bool = True
    tables: list[TableRef] = field(default_factory=list)
    correlated: list[exp.Expression] = field(default_factory=list)
    # the one source of unknown columns a ``*`` passed through: a name the relation does not list
    # can only be that source's column (``SELECT user_id FROM (SELECT *, … FROM u) x``)
    open: Source | None = None
    # the rows of an array's elements (UNNEST, EXPLODE: ``headwater.extract.unnest``): the name of the
    # column that is the whole element, listed first; the names after it are the element's struct fields
    element: str | None = None
    # the rows of a struct expression's ``.*`` (``s.*``, ``IF(c, cur, prev).*``): a name the relation
    # does not list is that field of the struct, resolved by this function
    fields: Callable[[str], Alts] | None = None
    _index: dict[str, int] | None = None
    # with ``fields``: the struct expression itself, resolved (the value of its unknown fields)
    whole: Callable[[], Alts] | None = None

    def __init__(
        self,
        names: list[str],
        labels: list[str],
        columns: list[Alts],
        complete: bool = True,
        tables: list[TableRef] | None = None,
        correlated: list[exp.Expression] | None = None,
        open: Source | None = None,
        element: str | None = None,
        fields: Callable[[str], Alts] | None = None,
        _index: dict[str, int] | None = None,
        whole: Callable[[], Alts] | None = None,
    ) -> None:
        self.names = names
        self.labels = labels
        self.columns = columns
        self.complete = complete
        self.tables = [] if tables is None else tables
        self.correlated = [] if correlated is None else correlated
        self.open = open
        self._index = _index
        self.element = element
        self.fields = fields
        self.whole = whole

    def index(self, name: str) -> int | None:
        if self._index is None:
            self._index = {}
            for i, n in enumerate(self.names):
                self._index.setdefault(n, i)
        return self._index.get(name)


@dataclass(init=False)
class Source:
    """A relation visible in a scope under ``alias``.

    Base tables have ``table`` (and ``columns`` when the schema is known); derived tables,
    CTEs and views produce a ``Relation`` lazily through ``load``.
    """

    alias: str
    table: TableRef | None = None
    columns: list[str] | None = None
    load: Callable[[], Relation] | None = None
    opaque: str | None = None  # a construct whose columns cannot be known (UNNEST, table function…)
    _relation: Relation | None = None
    _cols: frozenset[str] | None = field(default=None, repr=False, compare=False)  # ``columns`` as a set
    partial: bool = False  # a table whose ``columns`` are certain, and which may have others (``TableSchema.open``)
    defined: bool = False  # a view whose ``columns`` its own SQL gives: no stale catalog can lack one

    def __init__(
        self,
        alias: str,
        table: TableRef | None = None,
        columns: list[str] | None = None,
        load: Callable[[], Relation] | None = None,
        opaque: str | None = None,
        _relation: Relation | None = None,
        _cols: frozenset[str] | None = None,
        partial: bool = False,
        defined: bool = False,
    ) -> None:
        self.alias = alias
        self.table = table
        self.columns = columns
        self.load = load
        self.opaque = opaque
        self._relation = _relation
        self._cols = _cols
        self.partial = partial
        self.defined = defined

    @property
    def relation(self) -> Relation | None:
        if self.load is not None and self._relation is None:
            self._relation = self.load()
        return self._relation

    def known_columns(self) -> list[str] | None:
        """Normalised column names, or None when they are unknown."""
        if self.table is not None:
            return None if self.partial else self.columns
        rel = self.relation
        if rel is None or not rel.complete:
            return None
        if rel.element is not None and len(rel.names) > 1:  # an element of struct type: its fields
            return rel.names[1:]
        return rel.names

    def has(self, name: str) -> bool | None:
        """True/False when known; None when this source's columns are unknown."""
        if self.table is not None:
            cols = self._cols
            if cols is None:
                if self.columns is None:
                    return None
                cols = self._cols = frozenset(self.columns)
            if name in cols:
                return True
            return None if self.partial else False
        rel = self.relation
        if rel is None:
            return None
        if rel.index(name) is not None:  # a column a relation lists is certain, its others known or not
            return True
        return False if rel.complete else None


@dataclass(init=False)
class Scope:
    """One SELECT: its sources in FROM order, visible CTEs, and its parent for correlation."""

    parent: Scope | None
    ctes: dict[str, Source]
    sources: dict[str, Source] = field(default_factory=dict)
    using: dict[str, Source] = field(default_factory=dict)
    # FULL / RIGHT JOIN … USING (k): the output ``k`` is COALESCE(left.k, right.k)
    merged: dict[str, tuple[Source, Source]] = field(default_factory=dict)
    # select-list aliases visible to the later items of the same list (lateral column aliases)
    lateral: dict[str, Alts] = field(default_factory=dict)
    aliases: dict[str, Alts] = field(default_factory=dict)
    # the bare GROUP BY names, while HAVING is read under ``aliases.GROUPED`` (a grouped name is the column)
    grouped: frozenset[str] = frozenset()
    outer_hit: bool = False
    joins: list[exp.Join] = field(default_factory=list)  # every join of the scope, nested ones too
    # a SEMI / ANTI join keeps one side's columns (``SourceBinder._keep_one_side``): the sources each
    # earlier join's ON condition sees, by the join's id (the other clauses see ``sources`` only)
    on_sources: dict[int, dict[str, Source]] = field(default_factory=dict)
    # an unqualified name's (known, possible) sources (``columns._candidates``); a new source clears it
    bound: dict[str, tuple[list[Source], list[Source]]] = field(default_factory=dict, repr=False, compare=False)

    def __init__(
        self,
        parent: Scope | None,
        ctes: dict[str, Source],
        sources: dict[str, Source] | None = None,
        using: dict[str, Source] | None = None,
        merged: dict[str, tuple[Source, Source]] | None = None,
        lateral: dict[str, Alts] | None = None,
        aliases: dict[str, Alts] | None = None,
        outer_hit: bool = False,
        joins: list[exp.Join] | None = None,
        bound: dict[str, tuple[list[Source], list[Source]]] | None = None,
        grouped: frozenset[str] = frozenset(),
        on_sources: dict[int, dict[str, Source]] | None = None,
    ) -> None:
        self.parent = parent
        self.ctes = ctes
        self.sources = {} if sources is None else sources
        self.using = {} if using is None else using
        self.merged = {} if merged is None else merged
        self.lateral = {} if lateral is None else lateral
        self.aliases = {} if aliases is None else aliases
        self.outer_hit = outer_hit
        self.joins = [] if joins is None else joins
        self.bound = {} if bound is None else bound
        self.grouped = grouped
        self.on_sources = {} if on_sources is None else on_sources

    def add(self, src: Source) -> None:
        self.bound.clear()
        key = src.alias
        if key in self.sources:  # one name twice (a CTE ``w`` and the table ``db.w``): both are read
            key = f"{key}\x00{len(self.sources)}"
        self.sources[key] = src


# what ``column_node`` makes of one base column, kept across statements: its reference, its table's
# label and whether each identifier is quoted (``exp.to_identifier``'s regular expression)
_LEAF_PARTS: Final[dict[tuple[str, str | None, str, str], tuple[ColumnRef, str, bool, bool]]] = {}


def column_node(table: TableRef, name: str) -> exp.Column:
    """A resolved base-table column, rendered ``table.column`` (a storage path's: ``"s3://b/k".column``)."""
    key = (table.catalog, table.database, table.name, name)
    parts = _LEAF_PARTS.get(key)
    if parts is None:
        label = storage_uri(table) if "://" in table.catalog else table.name
        quoted_name = bool(_exp_to_identifier(name).args.get("quoted"))
        quoted_label = bool(_exp_to_identifier(label).args.get("quoted"))
        if len(_LEAF_PARTS) >= 65536:
            _LEAF_PARTS.clear()
        parts = _LEAF_PARTS[key] = (ColumnRef(table, name), label, quoted_name, quoted_label)
    ref, label, quoted_name, quoted_label = parts
    node = _COLUMN(this=_IDENTIFIER(this=name, quoted=quoted_name), table=_IDENTIFIER(this=label, quoted=quoted_label))
    node.meta[REF] = ref
    return node


RefKey = tuple[str, str | None, str, str]


REF_KEYS_KEPT: Final = 65536
# ``ref_key``'s answers by the reference's id (the reference held, so the id stays its own): references
# are few and long-lived (``column_node`` keeps one per column), and their five fields cost the
# compiled build a generic attribute look-up each
_REF_KEYS: Final[dict[int, tuple[ColumnRef, RefKey]]] = {}


def ref_key(ref: ColumnRef) -> RefKey:
    """A column reference's fields, equal exactly when the references are: a dictionary key hashed
    by C code, not by the dataclasses' Python ``__hash__`` (two calls per reference)."""
    kept = _REF_KEYS.get(id(ref))
    if kept is not None and kept[0] is ref:
        return kept[1]
    table = ref.table
    key = (table.catalog, table.database, table.name, ref.column)
    if len(_REF_KEYS) >= REF_KEYS_KEPT:
        _REF_KEYS.clear()
    _REF_KEYS[id(ref)] = (ref, key)
    return key


def refs_of(node: exp.Expression, shared: bool = False) -> list[ColumnRef]:
    """Distinct base-table columns read by a resolved expression, in reading order.

    ``shared``: the expression may share subexpressions (see ``Resolver._reuse``); each is read once.
    """
    if not shared:  # a base column, or two compared (a join's key): their references without a walk
        t = type(node)
        if t is _COLUMN:
            ref = _ref_of(node)
            if ref is not None:  # a base column (``column_node``'s shape: no column below it)
                return [ref]
        elif t is _EQ:
            args = node.args
            left, right = args.get("this"), args.get("expression")
            if len(args) == 2 and type(left) is _COLUMN and type(right) is _COLUMN:
                a, b = _ref_of(left), _ref_of(right)
                if a is not None and b is not None:
                    return [a] if ref_key(a) == ref_key(b) else [a, b]
    return _refs_walked(node, shared)


def _refs_walked(node: exp.Expression, shared: bool) -> list[ColumnRef]:
    """``refs_of`` by walking the expression's column nodes."""
    seen: dict[RefKey, ColumnRef] = {}
    last: ColumnRef | None = None
    for n in columns_in(node, shared):
        meta = n._meta
        if meta:
            ref = meta.get(REF)
            if ref is not None and ref is not last:
                key = ref_key(ref)
                if key not in seen:
                    seen[key] = ref
                last = ref
    return list(seen.values())


def _ref_of(node: exp.Expression) -> ColumnRef | None:
    meta = node._meta
    ref: ColumnRef | None = meta.get(REF) if meta else None
    return ref


def has_unresolved(node: exp.Expression, shared: bool = False) -> bool:
    return any(n._meta and n._meta.get(UNRESOLVED) for n in columns_in(node, shared))


# sqlglot's classes as constants of this module (the compiled build reads them without a lookup)
_EXPR: Final = exp.Expr
_IDENTIFIER: Final = exp.Identifier
_LITERAL: Final = exp.Literal
_COLUMN: Final = exp.Column
_EQ: Final = exp.EQ
# this module runs compiled (the mypyc build: its ``__file__`` is the extension's, not a ``.py``)
_COMPILED: Final = not __file__.endswith(".py")


# ``find_all`` (compiled path), per ``types`` (the callers pass a few constant classes and tuples): whether
# identifiers or literals are asked for, and ``isinstance(n, types)`` by the class of ``n``, told once
_KINDS: Final[dict[type | tuple[type, ...], tuple[bool, dict[type, bool]]]] = {}


def find_all(node: exp.Expression, types: type | tuple[type, ...]) -> list[exp.Expression]:
    """``node.find_all(*types)`` as a list, in the same breadth-first order, without sqlglot's four
    nested generators (``find_all`` → ``walk`` → ``bfs`` → ``iter_expressions``).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("SELECT a + f(b, (SELECT c)) FROM t WHERE d")
    >>> [n.sql() for n in find_all(tree, exp.Column)] == [n.sql() for n in tree.find_all(exp.Column)]
    True
    """
    # identifiers and literals hold no node (their arguments are text and flags): unless they are
    # asked for, they are not visited, which leaves the order of the others as it is
    if not _COMPILED:
        leaves = issubclass(_IDENTIFIER, types) or issubclass(_LITERAL, types)
        return _find_all_interpreted(node, types, leaves)
    told = _KINDS.get(types)
    if told is None:
        if len(_KINDS) >= 64:
            _KINDS.clear()
        told = _KINDS[types] = (issubclass(_IDENTIFIER, types) or issubclass(_LITERAL, types), {})
    leaves, kinds = told  # ``kinds``: ``isinstance(n, types)`` by ``type(n)`` (a tuple's test walks each MRO)
    found: list[exp.Expression] = []
    queue: list[exp.Expr] = [node]
    i = 0
    while i < len(queue):
        n = queue[i]
        i += 1
        cls = type(n)
        hit = kinds.get(cls)
        if hit is None:
            if len(kinds) >= 4096:
                kinds.clear()
            hit = kinds[cls] = isinstance(n, types)
        if hit:
            found.append(n)  # type: ignore[arg-type]  # a node of the tree is an Expression
        for value in n.args.values():
            if isinstance(value, list):
                for v in value:
                    if isinstance(v, _EXPR):
                        queue.append(v)
            # the common arguments that are no node (a name, a flag, none) are told apart cheaply
            elif (
                value is not None
                and value is not True
                and value is not False
                and not isinstance(value, str)
                and (leaves or (type(value) is not _IDENTIFIER and type(value) is not _LITERAL))
                and isinstance(value, _EXPR)
            ):
                queue.append(value)
    return found


def _find_all_interpreted(node: exp.Expression, types: type | tuple[type, ...], leaves: bool) -> list[exp.Expression]:
    """``find_all`` for the interpreted build: each node's children are listed by sqlglot's own
    ``iter_expressions`` (compiled with sqlglotc, in C), so the loop here runs once per node, not
    once per argument. Same nodes in the same order (a leaf's children, none, are not asked for)."""
    found: list[exp.Expression] = []
    queue: list[exp.Expr] = [node]
    for n in queue:
        if isinstance(n, types):
            found.append(n)  # type: ignore[arg-type]  # a node of the tree is an Expression
        if leaves or (type(n) is not _IDENTIFIER and type(n) is not _LITERAL):
            queue.extend(n.iter_expressions())
    return found


def columns_in(node: exp.Expression, shared: bool) -> Iterator[exp.Column]:
    """The column nodes of a resolved expression; ``shared``: each shared subexpression once."""
    if not shared:
        return iter(find_all(node, _COLUMN))  # type: ignore[arg-type]  # only columns
    from headwater.extract.trees import distinct_nodes

    return (n for n in distinct_nodes(node) if isinstance(n, _COLUMN))
