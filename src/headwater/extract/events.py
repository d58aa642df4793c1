"""A lineage statement's event, made from its resolved relation: target columns, the direct and
indirect sections (every expression classified and rendered once), status and context.

The per-statement half of ``Extractor`` (``engine.py``) that runs over every output and every
recorded expression; a module of its own so that the compiled build compiles it (the engine itself
stays interpreted: its hooks are replaced by tests and callers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from sqlglot import exp
from sqlglot.generator import Generator

from headwater.extract.classify import classify, direct_input
from headwater.extract.columns import LEAF_KEYS, LeafKey, leaf_key, leaf_ref, release_leaves
from headwater.extract.doubts import incomplete_columns
from headwater.extract.guards import EmptyName
from headwater.extract.resolve import Resolver
from headwater.extract.result import RunInfo
from headwater.extract.scope import REF, RefKey, Relation, ref_key, refs_of
from headwater.extract.statements import Kind
from headwater.extract.trees import expand, flat_columns, tree_size, unlink
from headwater.model import (
    DATASET_INDIRECT_TYPES,
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    Severity,
    SourceCommand,
    Status,
    TableRef,
    Target,
    make_event_id,
)
from headwater.model.slots import slot_setters
from headwater.model.storage import is_storage

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_COLUMN: Final = exp.Column

if TYPE_CHECKING:
    from headwater.extract.engine import Extractor
    from headwater.extract.split import Piece


LEAF_TEXTS_KEPT: Final = 65536

# The event's values made without their frozen dataclasses' ``__init__`` (see ``direct_input``)
_NEW: Final = object.__new__
_DIRECT: Final = slot_setters(DirectLineage)
_INDIRECT: Final = slot_setters(IndirectLineage)
_FIELD: Final = slot_setters(Field)


def direct_lineage(
    target_column: str,
    expression: str,
    type: DirectType,
    origin: Origin,
    sources: tuple[ColumnRef, ...],
    inputs: tuple[DirectInput, ...],
    branch: int,
) -> DirectLineage:
    """``DirectLineage(…)`` with every field given, each set by its slot's setter."""
    made: DirectLineage = _NEW(DirectLineage)
    s = _DIRECT
    s[0](made, target_column)
    s[1](made, expression)
    s[2](made, type)
    s[3](made, origin)
    s[4](made, sources)
    s[5](made, inputs)
    s[6](made, branch)
    return made


def indirect_lineage(
    type: IndirectType, expression: str, sources: tuple[ColumnRef, ...], target_column: str | None
) -> IndirectLineage:
    """``IndirectLineage(…)`` with every field given, each set by its slot's setter."""
    made: IndirectLineage = _NEW(IndirectLineage)
    s = _INDIRECT
    s[0](made, type)
    s[1](made, expression)
    s[2](made, sources)
    s[3](made, target_column)
    return made


def target_field(name: str, type: str | None) -> Field:
    """``Field(name, type)``, each field set by its slot's setter."""
    made: Field = _NEW(Field)
    s = _FIELD
    s[0](made, name)
    s[1](made, type)
    return made


class LeafColumns:
    """A generator's handler of ``exp.Column`` that keeps the text of every base-table leaf
    (``leaf_key``) across events: the first time a leaf of that shape is met, the generator's own
    handler renders it (so the text is the generator's, whatever the dialect's quoting, folding or
    escaping); later, in any expression, the kept text is given. Every other column goes to the
    generator's handler. Installed once per generator (``leaf_texts``)."""

    def __init__(self, handler: Callable[[object, exp.Expression], str]) -> None:
        self.handler = handler
        self.texts: dict[LeafKey, str] = {}

    def __call__(self, generator: object, node: exp.Expression) -> str:
        known = LEAF_KEYS.get(id(node))  # a leaf ``base_leaf`` keeps: its key worked out when it was made
        key = known[1] if known is not None and known[0] is node else leaf_key(node)
        if key is None:
            return self.handler(generator, node)
        text = self.texts.get(key)
        if text is None:
            if len(self.texts) >= LEAF_TEXTS_KEPT:
                self.texts.clear()
            text = self.texts[key] = self.handler(generator, node)
        return text

    def kept(self, node: Any) -> str | None:
        """What the generator renders ``node`` as (``Generator.sql``: this handler's text, no comment
        added) when it is a leaf ``base_leaf`` keeps whose text is kept here; else None."""
        known = LEAF_KEYS.get(id(node))
        if known is None or known[0] is not node or known[1] is None or node.comments:
            return None
        return self.texts.get(known[1])

    def text(self, generator: object, node: Any) -> str | None:
        """``kept(node)``, the leaf rendered by the generator's handler and kept when it is not yet
        (the first time a leaf of its shape is met); None for a node that is not such a leaf."""
        known = LEAF_KEYS.get(id(node))
        if known is None or known[0] is not node or node.comments:
            return None
        key = known[1]
        if key is None:
            return None
        text = self.texts.get(key)
        if text is None:
            if len(self.texts) >= LEAF_TEXTS_KEPT:
                self.texts.clear()
            text = self.texts[key] = self.handler(generator, node)
        return text


class LeafEquality:
    """A generator's handler of ``exp.EQ`` for a comparison with a kept leaf on either side (a join's
    key ``a = b``, a filter ``a = 1``): ``Generator.binary``'s text, ``left = right``, each side a
    leaf's text (``LeafColumns.text``: rendered once, then kept) or, for any other operand but a
    comparison of its own, the generator's text of it, as ``binary`` renders it; any other comparison
    goes to the generator's handler. Installed with ``LeafColumns`` for a generator whose ``EQ``
    handler, ``binary`` and ``maybe_comment`` are sqlglot's own (``leaf_texts``)."""

    def __init__(self, leaves: LeafColumns, handler: Callable[..., str]) -> None:
        self.leaves = leaves
        self.handler = handler

    def __call__(self, generator: Any, node: exp.Expression) -> str:
        args = node.args
        if len(args) == 2 and not node.comments:
            this = args.get("this")
            other = args.get("expression")
            if this is not None and other is not None:
                left = self.leaves.text(generator, this)
                right = self.leaves.text(generator, other)
                if left is not None or right is not None:  # a leaf compared
                    if left is None and type(this) is not _EQ:  # ``binary`` would flatten ``=`` in ``=``
                        left = generator.sql(this)
                    if right is None and type(other) is not _EQ:
                        right = generator.sql(other)
                    if left is not None and right is not None:
                        return f"{left} = {right}"
        made: str = self.handler(generator, node)
        return made


def leaf_texts(generator: object) -> LeafColumns | None:
    """Give ``generator`` (sqlglot's) a ``LeafColumns`` handler of columns, in a dispatch table of its
    own (the class's table, shared by every generator of the dialect, is left as it is); once. Returns
    the generator's ``LeafColumns`` (None: a generator this leaves alone)."""
    dispatch = getattr(generator, "_dispatch", None)
    if not isinstance(dispatch, dict):  # not sqlglot's generator as this was written for: left alone
        return None
    handler = dispatch.get(_COLUMN)
    if handler is None:
        return None
    if isinstance(handler, LeafColumns):
        return handler
    own = dict(dispatch)
    leaves = LeafColumns(handler)
    own[exp.Column] = leaves
    cls = type(generator)
    eq = own.get(_EQ)
    if (
        eq is _EQ_SQL
        and eq is not None
        and getattr(cls, "binary", None) is _BINARY
        and getattr(cls, "maybe_comment", None) is _MAYBE_COMMENT
    ):
        own[exp.EQ] = LeafEquality(leaves, eq)
    if getattr(cls, "function_fallback_sql", None) is _FALLBACK and getattr(cls, "function_name", None) is _NAME_OF:
        names = FunctionNames(getattr(getattr(generator, "dialect", None), "ORIGINAL_NAME_META_KEY", None))
        for func in _function_classes():
            if func not in own:  # rendered by ``function_fallback_sql`` before
                own[func] = names
    struct = own.get(exp.Struct)
    if struct is not None:
        own[exp.Struct] = StructMembers(struct)
    for nulls, words in ((exp.IgnoreNulls, "IGNORE NULLS"), (exp.RespectNulls, "RESPECT NULLS")):
        handler = own.get(nulls)
        if handler is not None:
            own[nulls] = NullsClause(handler, words)
    generator._dispatch = own  # type: ignore[attr-defined]
    return leaves


class NullsClause:
    """The generator's handler of ``IGNORE NULLS`` / ``RESPECT NULLS``, which moves the clause into the
    function's argument list and fails (``'NoneType' object has no attribute 'copy'``) when that argument
    holds a window's ``ORDER BY`` (``FIRST_VALUE(IF(LEAD(x) OVER (ORDER BY t) …) IGNORE NULLS)``, a
    resolved column): then ``FUNC(…) IGNORE NULLS``. The handler is given a copy (it changes the tree)."""

    def __init__(self, handler: Any, words: str) -> None:
        self.handler = handler
        self.words = words

    def __call__(self, generator: Any, node: Any) -> str:
        try:
            made: str = self.handler(generator, node.copy())
        except AttributeError:
            made = f"{generator.sql(node.this)} {self.words}"
        return made


class StructMembers:
    """The generator's handler of ``STRUCT(…)``, given members ``UNNEST(x) AS a`` parenthesised: sqlglot's
    BigQuery generator makes such a member ``alias_(UNNEST(x), a)``, which sets the identifier as the
    UNNEST's table alias, and then fails on it (``'Identifier' object has no attribute 'columns'``)."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def __call__(self, generator: Any, node: Any) -> str:
        members = node.expressions
        if any(type(m) is exp.PropertyEQ and type(m.expression) is exp.Unnest for m in members):
            node = node.copy()
            for m in node.expressions:
                if type(m) is exp.PropertyEQ and type(m.expression) is exp.Unnest:
                    m.set("expression", exp.Paren(this=m.expression))
        made: str = self.handler(generator, node)
        return made


_FALLBACK: Final = Generator.function_fallback_sql
_EQ: Final = exp.EQ
_EQ_SQL: Final = Generator.eq_sql
_BINARY: Final = Generator.binary
_MAYBE_COMMENT: Final = Generator.maybe_comment
_NAME_OF: Final = Generator.function_name
_FUNCTION_CLASSES: Final[list[type]] = []


def _function_classes() -> list[type]:
    """Every subclass of ``exp.Func`` sqlglot has defined (worked out once)."""
    if not _FUNCTION_CLASSES:
        found: list[type] = []
        seen: set[type] = set()
        stack: list[type] = [exp.Func]
        while stack:
            subclasses: list[type] = stack.pop().__subclasses__()
            for sub in subclasses:
                if sub not in seen:
                    seen.add(sub)
                    found.append(sub)
                    stack.append(sub)
        _FUNCTION_CLASSES.extend(found)
    return _FUNCTION_CLASSES


class FunctionNames:
    """A generator's handler of the functions that have none of their own: what its
    ``function_fallback_sql`` renders, with the function's name (``sql_name``, which sqlglot works
    out at every call, for most functions ``camel_to_snake_case`` of the class name) kept per class.
    A node carrying the dialect's original-name metadata goes to ``function_fallback_sql`` itself.
    Installed with ``LeafColumns`` (``leaf_texts``), for a generator that does not change how
    functions fall back."""

    def __init__(self, name_key: str | None) -> None:
        self.name_key = name_key
        self.names: dict[type, str] = {}

    def __call__(self, generator: Any, node: Any) -> str:
        meta = node._meta
        if self.name_key and meta and meta.get(self.name_key):
            text: str = generator.function_fallback_sql(node)
            return text
        cls = type(node)
        name = self.names.get(cls)
        if name is None:
            name = self.names[cls] = node.sql_name()
        args: list[object] = []
        values = node.args
        for key in node.arg_types:
            value = values.get(key)
            if isinstance(value, list):
                args.extend(value)
            elif value is not None:
                args.append(value)
        made: str = generator.func(name, *args)
        return made


_LEAF_INPUTS: Final[dict[int, tuple[ColumnRef, tuple[ColumnRef, ...], tuple[DirectInput, ...]]]] = {}


def leaf_lineage(ref: ColumnRef) -> tuple[tuple[ColumnRef, ...], tuple[DirectInput, ...]]:
    """What ``classify`` makes of a base-table leaf (``leaf_ref``): its one source, and its one input
    without labels or masking; made once per reference (references are kept across statements)."""
    kept = _LEAF_INPUTS.get(id(ref))
    if kept is not None and kept[0] is ref:
        return kept[1], kept[2]
    if len(_LEAF_INPUTS) >= LEAF_TEXTS_KEPT:
        _LEAF_INPUTS.clear()
    sources = (ref,)
    inputs = (direct_input(ref, (), False),)
    _LEAF_INPUTS[id(ref)] = (ref, sources, inputs)
    return sources, inputs


def columns_read(node: exp.Expression, shared: bool) -> list[ColumnRef]:
    """``refs_of(node, shared)``; for an expression one level deep (``trees.flat_columns``: a join or
    filter condition such as ``a = b``) from its columns as they stand, without the walk."""
    if not shared:  # a column, or two compared: ``refs_of`` reads their references without a walk
        t = type(node)
        if t is _COLUMN:
            return refs_of(node)
        if t is _EQ:
            args = node.args
            if len(args) == 2 and type(args.get("this")) is _COLUMN and type(args.get("expression")) is _COLUMN:
                return refs_of(node)
    columns = flat_columns(node)
    if columns is None:
        return refs_of(node, shared)
    seen: dict[RefKey, ColumnRef] = {}
    for column in columns:
        meta = column._meta
        if meta:
            ref = meta.get(REF)
            if ref is not None:
                key = ref_key(ref)
                if key not in seen:
                    seen[key] = ref
    return list(seen.values())


class Renderer:
    """SQL text of the resolved expressions of one event: each node rendered once (the node is held,
    so ids stay valid); over shared expressions (``Resolver._reuse``), each written out as a tree first.
    Base-table leaves are rendered once per generator (``LeafColumns``), a comparison ``=`` with one by
    ``LeafEquality`` without the generator's ``sql``."""

    def __init__(self, generator: object, shared: bool, budget: int, resolver: Resolver) -> None:
        self.leaves = leaf_texts(generator)
        dispatch = getattr(generator, "_dispatch", None)
        equality = dispatch.get(_EQ) if self.leaves is not None and isinstance(dispatch, dict) else None
        # the generator's handler of ``=`` when it is ``LeafEquality``: called directly for a comparison
        # without comments (``Generator.sql`` adds nothing to its text then)
        self.equality: LeafEquality | None = equality if isinstance(equality, LeafEquality) else None
        self.generator = generator
        self.sql = generator.sql  # type: ignore[attr-defined]  # sqlglot's Generator (or Athena's Trino one)
        self.shared = shared
        self.budget = budget
        self.resolver = resolver
        self.done: dict[int, tuple[exp.Expression, str]] = {}

    def text(self, node: exp.Expression) -> str:
        if not self.shared:
            done = self.done.get(id(node))
            if done is None:
                kept = self.leaves.text(self.generator, node) if self.leaves is not None else None  # a leaf
                if kept is None and self.equality is not None and type(node) is _EQ and not node.comments:
                    kept = self.equality(self.generator, node)
                text: str = kept.strip() if kept is not None else self.sql(node).strip()
                self.done[id(node)] = (node, text)
                return text
            return done[1]
        tree, abbreviated = expand(node, self.budget)
        if abbreviated:
            size = tree_size(node, {})
            self.resolver.diag(
                "expression_abbreviated",
                f"an expression of {size:,} nodes is shown abbreviated (… after {self.budget:,} nodes, "
                "HEADWATER_EXTRACT_MAX_EXPRESSION_NODES); its lineage is exact",
                None,
                Severity.INFO,
            )
        shown: str = self.sql(tree).strip()
        unlink(tree)  # freed now, not when the statement is done
        return shown


def target_columns(
    target: TableRef,
    column_list: list[str] | None,
    rel: Relation,
    kind: Kind,
    resolver: Resolver,
    partition: list[str] | None = None,
) -> tuple[Field, ...]:
    """The target columns the query's outputs bind to, in binding order.

    ``partition``: the columns of a ``PARTITION (…)`` clause, which the query gives after the
    other columns (dynamic ones from the select list, static ones as constants).
    """
    insert_like = kind.name in ("insert", "update", "merge") and not is_storage(target)  # a path: the query's
    schema = resolver.schema(target) if insert_like else None
    types = schema.column_types if schema else {}
    stated = column_list is not None  # the SQL names the columns it writes
    if partition and schema is not None and column_list is None:
        column_list = [c for c in schema.column_names if c not in partition]
    if partition and column_list is not None:
        column_list = [*column_list, *partition]
    if column_list is not None:
        names = column_list
        if schema is not None:
            for name in names:
                if name not in types and name not in (partition or ()):  # schemas may omit partition columns
                    resolver.diag(
                        "unknown_target_column",
                        f"column {name} is not in target {target.qualified}",
                        None,
                        Severity.ERROR,
                    )
    elif schema is not None:
        names = list(schema.column_names)
    else:
        names = list(rel.names)
        if insert_like:
            resolver.diag(
                "target_bound_by_name",
                f"the columns of target {target.qualified} are unknown: bound by the query's output names",
                None,
                Severity.INFO,
            )
    if rel.complete and len(names) != len(rel.columns):
        if schema is not None and schema.tentative and not stated:
            # the SQL runs: the CREATE TABLE IF NOT EXISTS is older than the table; which column each
            # output fills is unknown, so the outputs keep their own names (the partition's after them)
            resolver.diag(
                "column_count_mismatch",
                f"target {target.qualified} takes {len(names)} columns by its CREATE TABLE IF NOT EXISTS but "
                f"the query gives {len(rel.columns)}: that DDL is likely older than the table; the columns are "
                "named by the query's outputs, as the target's own names and order are unknown",
                None,
            )
            kept = [n for n in names if n in (partition or ())]
            names = [*rel.names[: len(rel.names) - len(kept)], *kept]
            return tuple(target_field(n, types.get(n)) for n in names)
        resolver.diag(
            "column_count_mismatch",
            f"target {target.qualified} takes {len(names)} columns but the query gives {len(rel.columns)}",
            None,
            Severity.ERROR,
        )
    return tuple(target_field(n, types.get(n)) for n in names)


def lineage_event(
    ex: Extractor,
    piece: Piece,
    kind: Kind,
    run: RunInfo,
    index: int,
    target: TableRef,
    column_list: list[str] | None,
    rel: Relation,
    resolver: Resolver,
    partition: list[str] | None = None,
    schemas_kept: bool = False,
) -> LineageInfo:
    """The event of one resolved statement (the extractor's). ``schemas_kept``: the catalog has not
    changed since the statement was resolved, so the tables' schemas the resolver looked up still hold."""
    shared = resolver.shared
    render = Renderer(ex._generator, shared, ex.options.limits.max_expression_nodes, resolver)
    fields = target_columns(target, column_list, rel, kind, resolver, partition)
    direct: list[DirectLineage] = []
    output_indirect: dict[tuple[str, IndirectType, str], IndirectLineage] = {}
    unresolved_columns = 0
    for pos, field in enumerate(fields):
        alts = rel.columns[pos] if pos < len(rel.columns) else []
        unbound = not alts
        for branch, alt in enumerate(alts):
            ref = leaf_ref(alt)
            if ref is not None:  # a base-table column as it is: what classify gives it, without the walk
                sources, inputs = leaf_lineage(ref)
                text = render.text(alt)
                direct.append(
                    direct_lineage(field.name, text, DirectType.IDENTITY, Origin.COLUMN, sources, inputs, branch)
                )
                continue
            c = classify(alt, shared)  # one walk: refs and unbound flag too
            unbound = unbound or c.unbound
            direct.append(direct_lineage(field.name, render.text(alt), c.type, c.origin, c.sources, c.inputs, branch))
            for (itype, node), refs in zip(c.indirect, c.indirect_refs, strict=True):
                text = render.text(node)
                key = (field.name, itype, text)
                if key not in output_indirect:  # the first of one text is kept
                    output_indirect[key] = indirect_lineage(itype, text, refs, field.name)
        if unbound:
            unresolved_columns += 1

    dataset_indirect: dict[tuple[IndirectType, str], IndirectLineage] = {}
    by_type: dict[IndirectType, list[exp.Expression]] = {t: [] for t in DATASET_INDIRECT_TYPES}
    for t, node in resolver.indirect:
        nodes = by_type.get(t)
        if nodes is not None:
            nodes.append(node)
    for itype, nodes in by_type.items():  # the guide's order: JOIN, FILTER, GROUP_BY, SORT
        for node in nodes:
            text = render.text(node)
            if (itype, text) not in dataset_indirect:  # the first of one text is kept
                dataset_indirect[(itype, text)] = indirect_lineage(itype, text, tuple(columns_read(node, shared)), None)

    if not rel.complete and len(rel.columns) < len(fields):
        unresolved_columns = max(unresolved_columns, len(fields) - len(rel.columns))
    if (fields and unresolved_columns >= len(fields)) or (not fields and kind.name not in ("delete", "alter")):
        status = Status.UNAVAILABLE
    elif unresolved_columns or resolver.incomplete:
        status = Status.PARTIAL
    else:
        status = Status.COMPLETE
    if any(d.severity == Severity.ERROR for d in resolver.diagnostics) and status == Status.COMPLETE:
        status = Status.PARTIAL

    context = ex.context_for(
        piece.sql,
        kind.command or SourceCommand.INSERT_INTO,
        run,
        index,
        [target, *resolver.tables, *resolver.via],
        resolver.schema if schemas_kept else None,
    )
    release_leaves(resolver._columns.values())  # every expression is rendered: the trees may go
    diagnostics = tuple(
        d
        if d.line is not None
        else Diagnostic(d.code, d.severity, d.message, index, piece.line, piece.column, d.construct)
        for d in resolver.diagnostics
    )
    refuse_empty_names(target, fields, direct, [*dataset_indirect.values(), *output_indirect.values()])
    return LineageInfo(
        event_id=make_event_id(context.query_id, target),
        source_command=context.source_command,
        target=Target(target, fields),
        sources=tuple(resolver.tables),
        direct=tuple(direct),
        dataset_indirect=tuple(dataset_indirect.values()),
        output_indirect=tuple(output_indirect.values()),
        context=context,
        status=status,
        diagnostics=diagnostics,
        via=tuple(resolver.via),
        incomplete_columns=incomplete_columns(
            resolver.top_query, [f.name for f in fields], resolver.diagnostics if status is not Status.COMPLETE else ()
        ),
    )


# the references ``_named`` found named, by id (the reference held, so the id stays its own):
# references are few and long-lived (one per base column), their fields Python attribute reads
_NAMED: Final[dict[int, ColumnRef]] = {}


def _named(c: ColumnRef) -> bool:
    """The column and its table have names (not empty); a named reference is remembered."""
    if _NAMED.get(id(c)) is c:
        return True
    if not c.column or not c.table.name:
        return False
    if len(_NAMED) >= LEAF_TEXTS_KEPT:
        _NAMED.clear()
    _NAMED[id(c)] = c
    return True


def _unnamed_source(direct: Sequence[DirectLineage], indirect: Sequence[IndirectLineage]) -> bool:
    """Some source column of the entries has an empty name or table name (loops: no list made)."""
    for d in direct:
        for c in d.sources:
            if not _named(c):
                return True
        for i in d.inputs:
            if not _named(i.column):
                return True
    for e in indirect:
        for c in e.sources:
            if not _named(c):
                return True
    return False


def refuse_empty_names(
    target: TableRef, fields: Sequence[Field], direct: Sequence[DirectLineage], indirect: Sequence[IndirectLineage]
) -> None:
    """Raise ``EmptyName`` when the event would name a table or column with an empty identifier.

    >>> refuse_empty_names(TableRef("internal", None, ""), (), (), ())
    Traceback (most recent call last):
    ...
    headwater.extract.guards.EmptyName: an empty identifier names the target table: no lineage can be recorded
    """
    what = None
    if not target.name:
        what = "the target table"
    elif any(not f.name for f in fields):
        what = "a target column"
    elif _unnamed_source(direct, indirect):
        what = "a source table or column"
    if what is not None:
        raise EmptyName(f"an empty identifier names {what}: no lineage can be recorded")
