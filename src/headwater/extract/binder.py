"""The state one statement's resolution keeps, and the steps every binding pass shares.

``Binder`` is the root of the resolver's single-inheritance chain ``Binder`` → ``ColumnBinder``
(``columns.py``) → ``SourceBinder`` (``sources.py``) → ``Resolver`` (``resolve.py``): one class per
module, each a plain class with declared attributes, so that the compiled build (mypyc) makes every
one of them a native class. ``resolve``, ``relation`` and ``_aliased`` are the resolver's own
(``resolve.py``); the passes below it call them through this class.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Final

from sqlglot import exp

from headwater.catalog import Catalog, LayeredCatalog, Names, TableSchema
from headwater.extract.aliases import AliasRules, alias_rules
from headwater.extract.guards import Limits, WorkBudget
from headwater.extract.scope import Alts, Relation, Scope, Source
from headwater.extract.trees import clone, clone_within, size_within
from headwater.model import Diagnostic, IndirectType, Severity, TableRef

# sqlglot's classes and functions as constants of this module: the compiled build reads a ``Final``
# name directly, where ``exp.X`` in a function is two look-ups (the module ``exp``, then its attribute)
_COLUMN: Final = exp.Column
_STAR: Final = exp.Star

_IDENTIFIER: Final = exp.Identifier

# A resolved expression used a second time is copied when it has at most this many nodes, and shared
# above: a CTE or view chain that uses each level twice would otherwise double at every level.
SHARE_ABOVE: Final = 64

_UNKNOWN: Final = object()  # ``Binder.schema``: a table the catalog was not asked about yet


# how a dialect folds a name (``Names.table`` / ``Names.column``), told by what it makes of ``aB``
# Final literals: the compiled build uses their values, with no look-up
LOWER_UNQUOTED: Final = 0
UPPER_UNQUOTED: Final = 1
LOWER: Final = 2
UPPER: Final = 3
AS_WRITTEN: Final = 4
OTHER: Final = 5
_FOLD_KINDS: Final = {
    ("ab", "aB"): LOWER_UNQUOTED,
    ("AB", "aB"): UPPER_UNQUOTED,
    ("ab", "ab"): LOWER,
    ("AB", "AB"): UPPER,
    ("aB", "aB"): AS_WRITTEN,
}


def fold_kind(fold: Callable[[str, bool], str]) -> int:
    """Which of ``catalog.names``' folds ``fold`` is (``OTHER``: none of them; it is then called).

    >>> from headwater.catalog import Names
    >>> [fold_kind(Names.for_dialect(d).column) for d in ("postgres", "snowflake", "doris", "clickhouse")]
    [0, 1, 2, 4]
    """
    kind = _KNOWN_FOLDS.get(fold)
    if kind is None:  # told once per fold function (a dialect's ``Names`` keeps its functions)
        kind = _FOLD_KINDS.get((fold("aB", False), fold("aB", True)), OTHER)
        if len(_KNOWN_FOLDS) >= 64:
            _KNOWN_FOLDS.clear()
        _KNOWN_FOLDS[fold] = kind
    return kind


_KNOWN_FOLDS: Final[dict[Callable[[str, bool], str], int]] = {}  # ``fold_kind``'s answers, by the function


class Binder:
    """One statement's resolution state: what it read, its diagnostics and its memos."""

    view_nodes: Container[TableRef]
    """Views read as tables of their columns, not through (``ExtractOptions.view_nodes``): the views
    recorded as datasets of their own. Other views (a schema file's, a live database's) are read through."""

    def __init__(
        self,
        catalog: Catalog | LayeredCatalog,
        names: Names,
        catalog_name: str,
        database: str | None,
        statement_index: int,
        report_unknown_tables: bool = False,
        temp_views: dict[str, TableSchema] | None = None,
        budget: WorkBudget | None = None,
    ) -> None:
        self.catalog = catalog
        self.names = names
        # the dialect's folds as a case (``fold_kind``), so that every name the resolver binds is folded
        # here without the calls through ``Names``
        self._table_fold = fold_kind(names.table)
        self._dataset_fold = fold_kind(names.dataset)
        self.alias_rules: AliasRules = alias_rules(names.dialect)  # where select-list aliases are visible
        self._column_fold = fold_kind(names.column)
        self.catalog_name = catalog_name
        self.database = database
        self.statement_index = statement_index
        self.report_unknown_tables = report_unknown_tables
        self.temp_views: dict[str, TableSchema] = temp_views or {}
        self.view_nodes = ()
        self.tables: dict[TableRef, None] = {}
        self.via: dict[TableRef, None] = {}
        self.indirect: list[tuple[IndirectType, exp.Expression]] = []
        self.diagnostics: list[Diagnostic] = []
        self.incomplete = False
        self.unbound = False  # some column was marked unresolved (``ColumnBinder._unresolved``)
        self.top_query: exp.Expression | None = None  # the first query resolved: the statement's outermost
        self._memo: dict[int, Relation] = {}
        self._memo_hits: dict[int, int] = {}  # relations handed out again from the memo (by id)
        self._taken: set[int] = set()
        self._origin: int | None = None  # the relation the last bound column came from (see resolve)
        # One node per base column, shared by every tree that reads it: column SQL does not
        # depend on the parent, and nothing mutates resolved trees.
        self._columns: dict[tuple[str, str | None, str, str], exp.Column] = {}  # (catalog, database, table, column)
        self.budget: WorkBudget = budget or WorkBudget(Limits().max_work)
        self.shared = False  # some resolved expressions share subexpressions (see _reuse)
        self._sizes: dict[int, int] = {}  # size_within of the expressions handed out again (never mutated)
        # the catalog's answers of this statement, by the tables' fields (a ``TableRef`` hashes in Python)
        self.schemas: dict[tuple[str, str | None, str], TableSchema | None] = {}
        self._views: dict[TableRef, Relation] = {}  # each view is resolved once per statement
        self._loading_views: set[TableRef] = set()

    def schema(self, ref: TableRef) -> TableSchema | None:
        """``catalog.table(ref)``, asked once per statement (nothing changes the catalog while it resolves)."""
        key = (ref.catalog, ref.database, ref.name)
        found = self.schemas.get(key, _UNKNOWN)
        if found is not _UNKNOWN:
            return found  # type: ignore[return-value]  # an answer of the catalog's
        answer = self.schemas[key] = self.catalog.table(ref)
        return answer

    def _spend(self, units: int) -> None:
        """``self.budget.spend(units)``, its count and limit read here: in the compiled build a call
        into the interpreted ``WorkBudget`` costs more than the sum. Past the limit the budget itself
        is told (its ``spend`` raises ``LimitExceeded``)."""
        budget = self.budget
        spent: int = budget.spent + units
        if spent > budget.limit:
            budget.spend(units)
            return
        budget.spent = spent

    # ------------------------------------------------------------------ names

    def _fold(self, kind: int, fold: Callable[[str, bool], str], text: str, quoted: bool) -> str:
        if kind == LOWER_UNQUOTED:
            return text if quoted else text.lower()
        if kind == UPPER_UNQUOTED:
            return text if quoted else text.upper()
        if kind == LOWER:
            return text.lower()
        if kind == UPPER:
            return text.upper()
        if kind == AS_WRITTEN:
            return text
        return fold(text, quoted)

    def table_ident(self, ident: exp.Expression | str | None) -> str | None:
        """``Names.table_ident``: a table-like name normalised for the dialect."""
        if type(ident) is _IDENTIFIER and self._table_fold == LOWER_UNQUOTED:  # the common case, without a call
            args = ident.args  # type: ignore[union-attr]  # an Identifier's text and quoting, read from its
            text: str = args.get("this")  # type: ignore[assignment]  # arguments (``.this`` is a property: a call)
            return text if args.get("quoted") else text.lower()
        return self._ident(ident, self._table_fold, self.names.table)

    def dataset_ident(self, ident: exp.Expression | str | None) -> str | None:
        """``Names.dataset_ident``: a part of a stored table's name (not an alias, not a CTE name)."""
        if type(ident) is _IDENTIFIER and self._dataset_fold == LOWER_UNQUOTED:
            args = ident.args  # type: ignore[union-attr]  # as in ``table_ident``
            text: str = args.get("this")  # type: ignore[assignment]
            return text if args.get("quoted") else text.lower()
        return self._ident(ident, self._dataset_fold, self.names.dataset)

    def column_ident(self, ident: exp.Expression | str | None) -> str | None:
        """``Names.column_ident``: a column-like name normalised for the dialect."""
        if type(ident) is _IDENTIFIER and self._column_fold == LOWER_UNQUOTED:
            args = ident.args  # type: ignore[union-attr]  # an Identifier's text and quoting, read from its
            text: str = args.get("this")  # type: ignore[assignment]  # arguments (``.this`` is a property: a call)
            return text if args.get("quoted") else text.lower()
        return self._ident(ident, self._column_fold, self.names.column)

    def _ident(self, ident: exp.Expression | str | None, kind: int, fold: Callable[[str, bool], str]) -> str | None:
        if ident is None:
            return None
        if isinstance(ident, _IDENTIFIER):
            text: str = ident.this
            quoted = bool(ident.args.get("quoted"))
        elif isinstance(ident, str):
            text, quoted = ident, False
        else:
            text, quoted = ident.name, False
        if kind == LOWER_UNQUOTED:  # the common fold, without a call
            return text if quoted else text.lower()
        return self._fold(kind, fold, text, quoted)

    # ------------------------------------------------------------------ the resolver's own

    def relation(
        self, query: exp.Expression, parent: Scope | None = None, ctes: dict[str, Source] | None = None
    ) -> Relation:
        raise NotImplementedError

    def resolve(
        self, expr: exp.Expression, scope: Scope, alias_first: bool = False, alias_fallback: bool = False
    ) -> Alts:
        raise NotImplementedError

    def _aliased(self, rel: Relation, alias: exp.TableAlias | None) -> Relation:
        raise NotImplementedError

    # ------------------------------------------------------------------ diagnostics

    def diag(
        self,
        code: str,
        message: str,
        node: exp.Expression | None,
        severity: Severity = Severity.WARNING,
        construct: str | None = None,
    ) -> None:
        line = col = None
        if node is not None:
            # an identifier, or a bare ``*``: the nodes sqlglot gives a position
            ident = node if isinstance(node, (_IDENTIFIER, _STAR)) else node.find(_IDENTIFIER)
            meta = ident._meta if ident is not None else None
            if meta and ident is not None:
                line, col = meta.get("line"), meta.get("col")
                if line is not None and col is not None:
                    text = "*" if isinstance(ident, _STAR) else ident.this
                    col = max(1, col - len(text) + 1)  # sqlglot records the token's end
        d = Diagnostic(code, severity, message, self.statement_index, line, col, construct)
        if d not in self.diagnostics:
            self.diagnostics.append(d)
        if severity != Severity.INFO:
            self.incomplete = True

    # ------------------------------------------------------------------ resolved expressions

    def _record(self, kind: IndirectType, alts: Alts) -> None:
        for alt in alts:
            self.indirect.append((kind, alt))

    def _take(self, node: exp.Expression) -> exp.Expression:
        """A resolved expression to build on: the node itself the first time, a copy after.

        Resolved trees are never mutated once built, so the first user may own a relation's
        output; later users get copies, so that every inner node has one parent (SQL generation
        reads parent links). Base-column leaves are shared everywhere (see ``_columns``).
        """
        if isinstance(node, _COLUMN):
            return node
        key = id(node)
        if key in self._taken:
            return self._reuse(node)
        self._taken.add(key)
        return node

    def _reuse(self, node: exp.Expression) -> exp.Expression:
        """A resolved expression for one more parent: a copy when small, else the node itself, shared.

        Sharing keeps a chain of CTEs or views that reads each level twice linear instead of
        exponential; ``shared`` tells the engine to classify and render over the shared form.
        """
        size = self._sizes.get(id(node))
        if size is None:  # its first copy: copied and counted in one walk
            copy, size = clone_within(node, SHARE_ABOVE, self._sizes)
            if size == 0:  # a form ``clone_within`` leaves to the two walks
                size = size_within(node, SHARE_ABOVE)
            self._sizes[id(node)] = size
            if copy is not None:
                self._spend(size)
                return copy
        if size <= SHARE_ABOVE:
            self._spend(size)
            return clone(node)
        self.shared = True
        return node
