"""Pure helpers over sqlglot trees used by the resolver: conjuncts, scope walks, cheap copies.

>>> import sqlglot
>>> [c.sql() for c in conjuncts(sqlglot.parse_one("a = 1 AND (b > 2 AND c)"))]
['a = 1', 'b > 2', 'c']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from copy import deepcopy
from typing import Final

from sqlglot import exp

from headwater.extract.scope import REF, UNRESOLVED
from headwater.extract.split import dialect_of

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_AND: Final = exp.And
_EXPRESSION: Final = exp.Expression
_PAREN: Final = exp.Paren
_TABLE: Final = exp.Table
_exp_var: Final = exp.var
_GROUPING_KEYS: Final[tuple[type, ...]] = (exp.Tuple, exp.GroupingSets, exp.Cube, exp.Rollup)  # one tuple object

# a tuple of classes typed ``tuple[type, ...]``: the compiled build keeps it as the one tuple object (a
# ``Final`` tuple of a fixed length is unboxed, and boxed again, a new tuple, at every ``isinstance``)
QUERY_TYPES: Final[tuple[type, ...]] = (exp.Query, exp.Subquery, exp.Values)


def conjuncts(node: exp.Expression | None) -> list[exp.Expression]:
    """The AND-ed parts of a predicate (parentheses unwrapped), left to right."""
    parts: list[exp.Expression] = []
    stack = [node] if node is not None else []
    while stack:  # the right operand is pushed first, so the left one's parts come out first
        part = stack.pop()
        while isinstance(part, _PAREN):
            part = part.this
        if isinstance(part, _AND):
            args = part.args
            right, left = args.get("expression"), args.get("this")
            if right is not None:
                stack.append(right)
            if left is not None:
                stack.append(left)
        else:
            parts.append(part)
    return parts


def reads_table(query: exp.Expression, name: str) -> bool:
    """True when ``query`` reads a table called ``name`` (a recursive CTE's self-reference)."""
    return any(t.name.lower() == name.lower() and not t.args.get("db") for t in query.find_all(_TABLE))


def grouping_keys(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, _GROUPING_KEYS):
        keys: list[exp.Expression] = []
        for e in node.expressions:
            keys.extend(grouping_keys(e))
        return keys
    return [node]


def scope_nodes(expr: exp.Expression) -> Iterator[exp.Expression]:
    """Nodes of ``expr`` that belong to its own scope: subqueries are yielded, not entered."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if node is not expr and isinstance(node, QUERY_TYPES):
            continue
        for value in node.args.values():
            if isinstance(value, _EXPRESSION):
                stack.append(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _EXPRESSION):
                        stack.append(v)


# identifiers and literals: their arguments are text and flags, never nodes (``scope.find_all``)
_IDENTIFIER: Final = exp.Identifier
_LITERAL: Final = exp.Literal
_COLUMN: Final = exp.Column


def flat_columns(node: exp.Expression) -> list[exp.Column] | None:
    """The columns of an expression one level deep — every argument a plain column (``t.x``), a
    literal, a list of those, or no node — in ``find_all``'s order (the arguments' order); None for
    any other expression (a deeper one, a query, a column itself, a ``*``), which is walked as always.

    >>> import sqlglot
    >>> [c.sql() for c in flat_columns(sqlglot.parse_one("a.x = b"))], flat_columns(sqlglot.parse_one("a + f(b)"))
    (['a.x', 'b'], None)
    """
    if type(node) is _COLUMN or isinstance(node, QUERY_TYPES):
        return None
    found: list[exp.Column] = []
    for value in node.args.values():
        if value is None or value is True or value is False or isinstance(value, str):
            continue
        if type(value) is list:
            for v in value:
                if type(v) is _COLUMN and type(v.this) is _IDENTIFIER:
                    found.append(v)
                elif type(v) is not _LITERAL:
                    return None
        elif type(value) is _COLUMN and type(value.this) is _IDENTIFIER:
            found.append(value)
        elif type(value) is not _LITERAL:
            return None
    return found


_OPERATORS: Final[tuple[type, ...]] = (exp.Binary, exp.Unary)
_OPERATOR_CLASSES: Final[dict[type, bool]] = {}  # ``substitute``: ``issubclass(cls, _OPERATORS)`` by class


def _operator_class(cls: type) -> bool:
    """``issubclass(cls, _OPERATORS)``, told once per class (a tuple's test walks the class's MRO twice)."""
    told = _OPERATOR_CLASSES.get(cls)
    if told is None:
        if len(_OPERATOR_CLASSES) >= 4096:
            _OPERATOR_CLASSES.clear()
        told = _OPERATOR_CLASSES[cls] = issubclass(cls, _OPERATORS)
    return told


def leaf_copy(node: exp.Expression) -> exp.Expression:
    """``type(node)(**node.args)`` of an identifier or a literal, as ``substitute`` and the clones make
    it inline: made without arguments, then given a copy of them. sqlglot's ``__init__`` only stores
    the arguments and sets the parent of the nodes among them, and a leaf holds none; calling a
    (compiled) class with keywords costs about twice as much as without, for their parsing.

    >>> import sqlglot
    >>> lit = sqlglot.parse_one("'x'")
    >>> copy = leaf_copy(lit)
    >>> copy == lit, copy is lit, copy.args == lit.args, copy.args is lit.args, copy.parent
    (True, False, True, False, None)
    """
    leaf: exp.Expression = type(node)()
    leaf.args = dict(node.args)
    return leaf


def substitute(node: exp.Expression, mapping: dict[int, exp.Expression], operand: bool = False) -> exp.Expression:
    """A copy of ``node`` with the nodes whose id is in ``mapping`` replaced.

    A replacement that is itself an operator gets parentheses when it lands as an operand
    (``2 * x`` with ``x = a + b`` is ``2 * (a + b)``). Unlike ``Expression.copy`` the copy keeps no
    comments, token positions or other metadata but the resolved column reference, which makes it
    several times cheaper.
    """
    cls = type(node)
    if cls is _LITERAL or cls is _IDENTIFIER:  # no node inside and none replaced (``mapping`` holds
        leaf: exp.Expression = cls()  # columns and queries): its arguments as they are (``leaf_copy``)
        leaf.args = dict(node.args)
        return leaf
    replacement = mapping.get(id(node))
    if replacement is not None:
        if operand and _operator_class(type(replacement)):
            return _PAREN(this=replacement)
        return replacement
    child_operand = _OPERATOR_CLASSES.get(cls)  # ``_operator_class(cls)``, inline: once per node copied
    if child_operand is None:
        child_operand = _operator_class(cls)
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if value is None or value is True or value is False or isinstance(value, str):  # no node: cheap tests first
            kwargs[key] = value
        elif isinstance(value, _EXPRESSION):
            kwargs[key] = substitute(value, mapping, child_operand)
        elif type(value) is list:
            kwargs[key] = [substitute(v, mapping, child_operand) if isinstance(v, _EXPRESSION) else v for v in value]
        else:
            kwargs[key] = value
    new = cls(**kwargs)
    meta = node._meta
    if meta and REF in meta:
        new.meta[REF] = meta[REF]
    return new


def clone(node: exp.Expression, memo: dict[int, exp.Expression] | None = None) -> exp.Expression:
    """A cheap copy of a resolved expression (see ``substitute``); base-column leaves are shared.

    A subexpression shared by several parents (see ``Resolver._reuse``) is copied once and stays
    shared in the copy, so copying never expands a shared expression.
    """
    if isinstance(node, _COLUMN) and node._meta and REF in node._meta:
        return node
    memo = {} if memo is None else memo
    done = memo.get(id(node))
    if done is not None:
        return done
    cls = type(node)
    if cls is _LITERAL or cls is _IDENTIFIER:  # no node inside: its arguments as they are (``leaf_copy``)
        leaf: exp.Expression = cls()
        leaf.args = dict(node.args)
        if node._meta and UNRESOLVED in node._meta:
            leaf.meta[UNRESOLVED] = node._meta[UNRESOLVED]  # True, or the table of a row value
        memo[id(node)] = leaf
        return leaf
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if value is None or value is True or value is False or isinstance(value, str):  # no node: cheap tests first
            kwargs[key] = value
        elif isinstance(value, _EXPRESSION):
            kwargs[key] = clone(value, memo)
        elif type(value) is list:
            kwargs[key] = [clone(v, memo) if isinstance(v, _EXPRESSION) else v for v in value]
        else:
            kwargs[key] = value
    new = cls(**kwargs)
    meta = node._meta
    if meta and UNRESOLVED in meta:
        new.meta[UNRESOLVED] = meta[UNRESOLVED]
    memo[id(node)] = new
    return new


class _Within:
    """The state of one ``clone_within``: nodes counted so far, and why it stopped, if it did."""

    __slots__ = ("count", "limit", "over", "sizes")

    def __init__(self, limit: int, sizes: dict[int, int]) -> None:
        self.count = 0
        self.limit = limit
        self.sizes = sizes
        self.over = False  # more than ``limit`` nodes


def clone_within(node: exp.Expression, limit: int, sizes: dict[int, int]) -> tuple[exp.Expression | None, int]:
    """``clone(node)`` and ``size_within(node, limit)`` in one walk: ``(copy, size)`` when the
    expression has at most ``limit`` nodes; ``(None, limit + 1)`` when it has more (the walk stops
    there); ``(None, 0)`` when it holds one subexpression twice or a leaf with nodes inside, which
    this walk does not count as ``size_within`` does: the caller then asks the two separately.
    ``sizes`` keeps ``size_within(leaf, limit)`` of the shared base-column leaves by id.

    >>> import sqlglot
    >>> a = sqlglot.parse_one("x + 1")
    >>> copy, size = clone_within(a, 64, {})
    >>> copy.sql(), size, clone_within(a, 3, {})[1], clone_within(exp.Mul(this=a, expression=a), 64, {})
    ('x + 1', 4, 4, (None, 0))
    """
    state = _Within(limit, sizes)
    copy = _clone_counted(node, state, {})
    if copy is None:
        return None, limit + 1 if state.over else 0
    return copy, state.count


def _clone_counted(node: exp.Expression, state: _Within, memo: dict[int, exp.Expression]) -> exp.Expression | None:
    """``clone``, counting the nodes of the tree as ``size_within`` does; None: stopped (``state``)."""
    meta = node._meta
    if isinstance(node, _COLUMN) and meta and REF in meta:  # a shared leaf: its nodes counted, itself kept
        size = state.sizes.get(id(node))
        if size is None:
            size = state.sizes[id(node)] = size_within(node, state.limit)
        state.count += size
        if state.count > state.limit:
            state.over = True
            return None
        return node
    if id(node) in memo:  # a subexpression met twice: ``size_within`` counts it at every use
        return None
    state.count += 1
    if state.count > state.limit:
        state.over = True
        return None
    cls = type(node)
    if cls is _LITERAL or cls is _IDENTIFIER:
        for value in node.args.values():
            if isinstance(value, _EXPRESSION) or type(value) is list:  # not the leaf ``clone`` expects
                return None
        leaf: exp.Expression = cls()  # ``leaf_copy``
        leaf.args = dict(node.args)
        if meta and UNRESOLVED in meta:
            leaf.meta[UNRESOLVED] = meta[UNRESOLVED]
        memo[id(node)] = leaf
        return leaf
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if value is None or value is True or value is False or isinstance(value, str):
            kwargs[key] = value
        elif isinstance(value, _EXPRESSION):
            copied = _clone_counted(value, state, memo)
            if copied is None:
                return None
            kwargs[key] = copied
        elif type(value) is list:
            items: list[object] = []
            for v in value:
                if isinstance(v, _EXPRESSION):
                    copied = _clone_counted(v, state, memo)
                    if copied is None:
                        return None
                    items.append(copied)
                else:
                    items.append(v)
            kwargs[key] = items
        else:
            kwargs[key] = value
    new = cls(**kwargs)
    if meta and UNRESOLVED in meta:
        new.meta[UNRESOLVED] = meta[UNRESOLVED]
    memo[id(node)] = new
    return new


_EXPR: Final = exp.Expr


def render_copy(node: exp.Expr) -> exp.Expr:
    """``node.copy()`` made for a generator to render: the same nodes, arguments, comments, types and
    hashes, linked as sqlglot's ``__deepcopy__`` links them (``set``, ``append``), but each node's
    metadata (token positions, flags) copied one level deep by ``dict`` instead of through
    ``copy.deepcopy``, which is most of what ``Expression.copy`` costs. A generator reads metadata;
    none writes into the metadata of a node it was given.

    >>> import sqlglot
    >>> item = sqlglot.parse_one("SELECT SUM(a * b) /* total */ FROM t").expressions[0]
    >>> c = render_copy(item)
    >>> c == item, c is item, c.parent, c.comments, c.this.this.meta == item.this.this.meta
    (True, False, None, [' total '], True)
    """
    root = type(node)()
    stack: list[tuple[exp.Expr, exp.Expr]] = [(node, root)]
    while stack:
        source, made = stack.pop()
        comments = source.comments
        if comments is not None:
            made.comments = list(comments)
        kind = source._type
        if kind is not None:
            made._type = deepcopy(kind)
        meta = source._meta
        if meta is not None:
            made._meta = dict(meta)
        if source._hash is not None:
            made._hash = source._hash
        for key, value in source.args.items():
            if isinstance(value, _EXPR):
                child = type(value)()
                stack.append((value, child))
                made.set(key, child)
            elif type(value) is list:
                made.args[key] = []
                for v in value:
                    if isinstance(v, _EXPR):
                        child = type(v)()
                        stack.append((v, child))
                        made.append(key, child)
                    else:
                        made.append(key, v)
            else:
                made.args[key] = value
    return root


def sql_text(node: exp.Expr, dialect: str) -> str:
    """``node.sql(dialect=sqlglot_dialect(dialect))``, the same text for less: the dialect made once per
    name (``split.dialect_of``), and the generator given ``render_copy(node)`` (so it renders a root without
    a parent and may change the copy as it likes, as with ``Expression.sql``'s own copy).

    >>> import sqlglot
    >>> item = sqlglot.parse_one("SELECT UPPER(o.region) FROM o", read="doris").expressions[0]
    >>> sql_text(item, "doris") == item.sql(dialect="doris") == "UPPER(o.region)"
    True
    """
    return dialect_of(dialect).generate(render_copy(node), copy=False)


def children(node: exp.Expression) -> Iterator[exp.Expression]:
    for value in node.args.values():
        if isinstance(value, _EXPRESSION):
            yield value
        elif type(value) is list:
            for v in value:
                if isinstance(v, _EXPRESSION):
                    yield v


def distinct_nodes(node: exp.Expression) -> Iterator[exp.Expression]:
    """Every node of a possibly shared expression once (iterative, so any depth)."""
    seen = {id(node)}
    queue = deque([node])
    while queue:  # breadth first, as ``Expression.find_all``
        n = queue.popleft()
        yield n
        for c in children(n):
            if id(c) not in seen:
                seen.add(id(c))
                queue.append(c)


def tree_size(node: exp.Expression, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` has written out as a tree (shared parts counted at every use),
    computed over the shared form with ``sizes`` as memo: never expands anything.

    >>> import sqlglot
    >>> a = sqlglot.parse_one("x + 1")
    >>> tree_size(exp.Mul(this=a, expression=a), {})  # Add, Column, Identifier, Literal: twice, and Mul
    9
    """
    stack: list[tuple[exp.Expression, bool]] = [(node, False)]
    while stack:  # post-order without recursion: children before parents
        n, ready = stack.pop()
        if id(n) in sizes:
            continue
        if ready:
            sizes[id(n)] = 1 + sum(sizes[id(c)] for c in children(n))
            continue
        stack.append((n, True))
        stack.extend((c, False) for c in children(n) if id(c) not in sizes)
    return sizes[id(node)]
    order: list[exp.Expression] = []
    seen = {id(node)}
    stack = [node]
    while stack:  # every distinct node once, parents before children
        n = stack.pop()
        order.append(n)
        for c in children(n):
            if id(c) not in seen and id(c) not in sizes:
                seen.add(id(c))
                stack.append(c)
    for n in reversed(order):  # children before parents
        sizes[id(n)] = 1 + sum(sizes[id(c)] for c in children(n))
    return sizes[id(node)]


def size_within(node: exp.Expression, limit: int) -> int:
    """``tree_size`` of ``node`` when it is at most ``limit``, else ``limit + 1``: at most ``limit + 1``
    nodes are visited, whatever the expression's size or sharing.

    >>> import sqlglot
    >>> a = sqlglot.parse_one("x + 1")
    >>> size_within(exp.Mul(this=a, expression=a), 64), size_within(exp.Mul(this=a, expression=a), 5)
    (9, 6)
    """
    count = 0
    stack = [node]
    while stack:
        n = stack.pop()
        count += 1
        if count > limit:
            return count
        for value in n.args.values():
            if isinstance(value, _EXPRESSION):
                stack.append(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _EXPRESSION):
                        stack.append(v)
    return count


ELLIPSIS: Final = "…"


def expand(node: exp.Expression, budget: int) -> tuple[exp.Expression, bool]:
    """A plain tree of a possibly shared expression, for rendering: every node has one parent.

    At most ``budget`` nodes are written out, breadth first; the subexpressions past the budget are
    replaced by ``…``. Returns the tree and whether it was abbreviated.
    """
    root = _shallow(node)
    count = 1
    abbreviated = False
    queue = [(node, root)]
    i = 0
    while i < len(queue):
        src, dst = queue[i]
        i += 1
        for key, value in src.args.items():
            if isinstance(value, _EXPRESSION):
                new, count, cut = _expand_child(value, count, budget, queue)
                abbreviated = abbreviated or cut
                dst.set(key, new)
            elif type(value) is list and any(isinstance(v, _EXPRESSION) for v in value):
                items = []
                for v in value:
                    if isinstance(v, _EXPRESSION):
                        new, count, cut = _expand_child(v, count, budget, queue)
                        abbreviated = abbreviated or cut
                        items.append(new)
                    else:
                        items.append(v)
                dst.set(key, items)
    return root, abbreviated


def unlink(tree: exp.Expression) -> None:
    """Let go of a tree made for one use (``expand``'s): its parent links are cleared, so reference
    counting frees it at once. A node's parent link makes a tree a cycle, which only the cyclic
    collector frees, and that waits until the statement is done (``collector.collector_paused``):
    a statement that renders a hundred large expressions would hold every copy until then.

    >>> import gc
    >>> shared = exp.column("a") + exp.column("b")
    >>> gc.disable()
    >>> _ = gc.collect()
    >>> tree, _ = expand(shared, 100)
    >>> unlink(tree)
    >>> del tree
    >>> gc.collect(), gc.enable()
    (0, None)
    """
    stack = [tree]
    while stack:
        node = stack.pop()
        node.parent = None
        for value in node.args.values():
            if isinstance(value, _EXPRESSION):
                stack.append(value)
            elif type(value) is list:
                stack.extend(v for v in value if isinstance(v, _EXPRESSION))


def _expand_child(
    value: exp.Expression, count: int, budget: int, queue: list[tuple[exp.Expression, exp.Expression]]
) -> tuple[exp.Expression, int, bool]:
    if count >= budget:
        return _exp_var(ELLIPSIS), count + 1, True
    new = _shallow(value)
    queue.append((value, new))
    return new, count + 1, False


def _shallow(node: exp.Expression) -> exp.Expression:
    """A copy of one node without its child expressions (they are set by ``expand``)."""
    kwargs: dict[str, object] = {}
    for key, value in node.args.items():
        if type(value) is list:
            if not any(isinstance(v, _EXPRESSION) for v in value):
                kwargs[key] = list(value)
        elif not isinstance(value, _EXPRESSION):
            kwargs[key] = value
    new = node.__class__(**kwargs)
    meta = node._meta
    if meta:
        if REF in meta:
            new.meta[REF] = meta[REF]
        if UNRESOLVED in meta:
            new.meta[UNRESOLVED] = meta[UNRESOLVED]
    return new
