"""Composes the passes: split → classify → (DDL | resolve → classify → bind target) → event.

>>> from headwater.extract import extract_script
>>> res = extract_script("INSERT INTO t SELECT UPPER(a) AS x FROM s", dialect="doris", database="db")
>>> e = res.events[0]
>>> e.target.table.qualified, [d.expression for d in e.direct], e.status.value
('db.t', ['UPPER(s.a)'], 'COMPLETE')
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import replace
from itertools import islice

import sqlglot
from sqlglot import exp
from sqlglot.generator import Generator

from headwater.catalog import Catalog, ColumnSchema, LayeredCatalog, Names, TableSchema
from headwater.catalog.names import MYSQL_FAMILY
from headwater.extract.beyond import RESULT_DATABASE, delete_query, merge_branches, update_queries
from headwater.extract.collector import collector_paused
from headwater.extract.context import generated_query_id, now_iso, redact, redact_event, redact_piece
from headwater.extract.ddl import Session, apply_statement, is_temporary, table_ref
from headwater.extract.deep import call_deep, in_deep_thread
from headwater.extract.events import lineage_event
from headwater.extract.exchange import table_moves, table_renames
from headwater.extract.guards import REFUSED, EmptyName, LimitExceeded, WorkBudget
from headwater.extract.prepass import blank_unparsed
from headwater.extract.resolve import Resolver
from headwater.extract.result import ExtractOptions, RunInfo, ScriptResult, StatementResult
from headwater.extract.reuse import StatementReuse
from headwater.extract.routines import ROUTINE_PROPERTY, SKIP_ROUTINE, Routine, batch_statements, routine_of
from headwater.extract.scope import Relation, refs_of
from headwater.extract.split import Piece, dialect_of, iter_script, split_script, sqlglot_dialect
from headwater.extract.statements import (
    NON_LINEAGE_COMMANDS,
    SKIP_INTERNAL,
    SKIP_NO_TABLE,
    Kind,
    clone_as_ctas,
    command_word,
    kind_of,
    select_into_as_ctas,
    skip_unsupported,
)
from headwater.extract.storage import copy_move, directory_ref, unload_parts
from headwater.extract.variant import variant_paths
from headwater.model import (
    Diagnostic,
    LineageInfo,
    QueryContext,
    Severity,
    SourceCommand,
    TableRef,
)
from headwater.model.event import RENAMED_FROM
from headwater.model.storage import storage_ref

INTERNAL_SCHEMA = "__internal_schema"
CONTROL_FLOW = (exp.IfBlock, exp.WhileBlock)  # T-SQL IF / WHILE: the statements in them are extracted


class Extractor:
    """Extracts lineage events from SQL, statement by statement, keeping session state.

    DDL and ``USE`` in one call affect the statements of later calls, as in a database session.
    """

    def __init__(
        self,
        catalog: Catalog | None = None,
        options: ExtractOptions | None = None,
        database: str | None = None,
        catalog_name: str = "internal",
        reuse: StatementReuse | None = None,
    ) -> None:
        self.options = options or ExtractOptions()
        self.dialect = sqlglot_dialect(self.options.dialect)
        self.dialect_impl = dialect_of(self.options.dialect)  # made once per name: a dialect is only settings
        self.names = Names.for_dialect(self.dialect)
        self.catalog = LayeredCatalog(catalog)
        self.session = Session(catalog_name, self.names.dataset_ident(database) if database else None)
        self._has_base = catalog is not None
        self.recorded_views: set[TableRef] = set()
        """With ``view_nodes``: the views this extractor made events for (read as tables of their columns)."""
        self.external_views: Container[TableRef] = ()
        """With ``view_nodes``: views recorded elsewhere (a store's), read as tables of their columns too."""
        self._made_generator: Generator | None = None
        self.reuse = reuse
        self.index = 0
        """The index of the next statement in this session."""

    @property
    def _generator(self) -> Generator:
        """This session's generator of expression texts, made at its first use (a query log's session of
        re-runs whose events all come from reuse never makes one)."""
        made = self._made_generator
        if made is None:
            generator = self.dialect_impl.generator()
            # Athena's generator hands each statement to a Hive or a Trino generator and cannot render
            # an expression itself: expressions are Trino's.
            made = self._made_generator = getattr(generator, "_trino_generator", generator)
        return made

    def run(self, sql: str, run: RunInfo | None = None) -> ScriptResult:
        """Extract every statement of ``sql`` (a script or a single statement)."""
        run = run or RunInfo()
        database, catalog = run.database, run.catalog
        if database or catalog:
            table = self.names.dataset  # ``dataset_ident`` of a string
            if database:
                self.session.database = table(database, False)
            if catalog:
                self.session.catalog = table(catalog, False) or self.session.catalog
        if self.reuse is not None:
            return self.reuse.run(self, sql, run)
        return self.extract_text(sql, run)

    def extract_text(self, sql: str, run: RunInfo) -> ScriptResult:
        """Split and extract ``sql`` as the session stands (``run`` without its session effects)."""
        pieces = iter_script(sql, self.options.dialect, self.options.limits)  # one tree at a time
        return ScriptResult(tuple(self.run_pieces(pieces, run)))

    def run_pieces(self, pieces: Iterable[Piece], run: RunInfo | None = None) -> Iterator[StatementResult]:
        """Extract the statements ``iter_script`` makes of a script, one result at a time (the
        session's database and catalog are taken from ``run`` as ``run`` does). Each statement
        runs with the collector paused (``collector.collector_paused``)."""
        for pair in self.piece_results(pieces, run, keep_trees=False):
            result = pair[1]
            del pair  # not holding the piece (its tree) while the next statement runs
            yield result

    def piece_results(
        self, pieces: Iterable[Piece], run: RunInfo | None = None, keep_trees: bool = True
    ) -> Iterator[tuple[Piece, StatementResult]]:
        """``run_pieces`` with the piece each result came from (a routine's piece makes several).

        ``pieces`` is taken one at a time (the first two at once: a script of one statement has no
        statement ids of its own); with ``iter_script``'s pieces, a statement is parsed and extracted
        with the collector paused; with ``keep_trees`` False (``run_pieces``) the pieces come without
        their trees, so a tree is garbage before the collector first sees it and a young collection
        frees it (it never ages into the generations the full collections walk)."""
        run = run or RunInfo()
        ahead = iter(pieces)
        buffered: list[Piece] | None = None
        several = False
        k = 0
        while True:
            with collector_paused():
                if buffered is None:  # in the first statement's pause: no collection while its tree is alive
                    buffered = list(islice(ahead, 2))
                    several = len(buffered) > 1
                    buffered.reverse()
                piece = buffered.pop() if buffered else next(ahead, None)
                if piece is None:
                    return
                results = self._piece(piece, k, several, run)
                if not keep_trees:
                    piece = piece.without_tree()
            for result in results:
                yield piece, result
            del piece  # the statement's tree is no longer held here while the next is parsed
            k += 1

    def _piece(self, piece: Piece, k: int, several: bool, run: RunInfo) -> list[StatementResult]:
        """The results of the ``k``-th piece of a script (of ``several``): one, or a routine's."""
        piece_run = run
        if run.query_id and several:  # one id per statement of a script
            piece_run = replace(run, query_id=f"{run.query_id}.{k + 1}")
        refused = piece.error is not None and piece.error.code in REFUSED  # never parse it again
        if piece.tree is None and piece.skip is None and not refused:
            piece = self._repaired(piece)
        if piece.skip is None and not refused and (piece.tree is None or isinstance(piece.tree, CONTROL_FLOW)):
            batch = batch_statements(piece.sql, self.options.dialect)
            if batch is not None:  # T-SQL statements without semicolons between them, IF … ELSE …
                return self._routine(piece, batch, piece_run, header=False)
        routine = routine_of(piece.sql, self.options.dialect) if piece.skip is None and not refused else None
        if routine is not None:
            return self._routine(piece, routine, piece_run)
        statement = self._statement
        result = call_deep(statement, piece, piece_run) if piece.deep else statement(piece, piece_run)
        if result.events:  # secrets in expressions too (a filter on a literal URL with its password)
            events = tuple(redact_event(e, self.options.dialect) for e in result.events)
            if any(a is not b for a, b in zip(events, result.events, strict=True)):  # else the same events
                result = replace(result, events=events)
        self.index += 1
        return [result]

    def _repaired(self, piece: Piece) -> Piece:
        """A statement sqlglot could not parse, parsed again after the narrow edits of ``prepass``
        (its text stays the original); the piece as it was when none applies or it still fails."""
        text = blank_unparsed(piece.sql, self.options.dialect)
        if text is None:
            return piece
        again = split_script("\n" * (piece.line - 1) + " " * (piece.column - 1) + text, self.options.dialect)
        if len(again) != 1 or again[0].tree is None:
            return piece
        return replace(again[0], index=piece.index, sql=piece.sql)

    def _routine(self, piece: Piece, routine: Routine, run: RunInfo, header: bool = True) -> list[StatementResult]:
        """A procedure, function, block or job: itself (no event), then each statement of its body,
        at its own line, with the routine's name in the context. ``header`` False: a batch of
        statements with no routine around them."""
        out = []
        if header:
            routine_result = StatementResult(
                self.index, piece.line, piece.column, piece.sql, "routine", skip_reason=SKIP_ROUTINE
            )
            out.append(routine_result)
            self.index += 1
        if routine.name:
            properties = {**run.external_catalog_properties, ROUTINE_PROPERTY: routine.name}
            run = replace(run, external_catalog_properties=properties)
        for k, stmt in enumerate(routine.statements):
            line = piece.line + piece.sql.count("\n", 0, stmt.offset)
            on_first = "\n" not in piece.sql[: stmt.offset]
            column = (
                (piece.column - 1 if on_first else 0) + stmt.offset - (piece.sql.rfind("\n", 0, stmt.offset) + 1) + 1
            )
            inner_run = replace(run, query_id=f"{run.query_id}.{k + 1}") if run.query_id else run
            if stmt.skip is not None:
                word = stmt.skip.split(":", 1)[0]
                diag = None
                if word == "dynamic-sql":
                    diag = Diagnostic(
                        "dynamic_sql",
                        Severity.WARNING,
                        f"{stmt.text[:60]!r} in {routine.name or 'a block'} runs SQL built at run time: "
                        "its lineage is not extracted",
                        self.index,
                        line,
                        column,
                    )
                out.append(
                    StatementResult(self.index, line, column, stmt.text, word, skip_reason=stmt.skip, error=diag)
                )
            else:
                padded = "\n" * (line - 1) + " " * (column - 1) + stmt.text
                inner = split_script(padded, self.options.dialect)
                body = replace(inner[0], index=self.index) if inner else piece
                out.append(self._statement(body, inner_run))
            self.index += 1
        return out

    # ------------------------------------------------------------------

    def _statement(self, piece: Piece, run: RunInfo) -> StatementResult:
        index = self.index
        piece = redact_piece(piece, self.options.dialect)  # secrets never reach an event or a message
        if piece.skip is not None:
            return StatementResult(index, piece.line, piece.column, piece.sql, "statement-set", skip_reason=piece.skip)
        if piece.tree is None:
            word = command_word(piece.sql)
            if word in NON_LINEAGE_COMMANDS:
                return StatementResult(
                    index, piece.line, piece.column, piece.sql, word.lower(), skip_reason=skip_unsupported(word)
                )
            err = piece.error
            if err is not None and err.statement_index != index:
                err = Diagnostic(err.code, err.severity, err.message, index, err.line, err.column)
            return StatementResult(index, piece.line, piece.column, piece.sql, "unparsed", error=err)
        tree = piece.tree
        if isinstance(tree, exp.Condition | exp.Tuple | exp.Identifier | exp.Star):
            err = Diagnostic(
                "parse_error",
                Severity.ERROR,
                f"statement {index + 1} is not a SQL statement: {piece.sql[:60]!r}",
                index,
                piece.line,
                piece.column,
            )
            return StatementResult(index, piece.line, piece.column, piece.sql, "unparsed", error=err)
        tree = clone_as_ctas(select_into_as_ctas(tree))
        if self.dialect == "snowflake":
            tree = variant_paths(tree)
        kind = kind_of(tree)
        try:
            if kind.name in ("insert", "ctas", "mv") and kind.skip is None:
                return self._lineage_statement(piece, tree, kind, run, index)
            if self.options.statements == "all" or (self.options.view_nodes and _is_view(tree)):
                result = self._beyond(piece, tree, run, index)
                if result is not None:
                    return result
            if isinstance(tree, exp.MultitableInserts):
                return self._multi_insert(piece, tree, run, index)
            apply_statement(tree, self.catalog, self.names, self.session)
        except EmptyName as err:
            diag = Diagnostic("empty_identifier", Severity.ERROR, str(err), index, piece.line, piece.column)
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, error=diag)
        except LimitExceeded as err:
            diag = Diagnostic(err.code, Severity.ERROR, str(err), index, piece.line, piece.column)
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, error=diag)
        except RecursionError:
            if not in_deep_thread():  # give it room: resolve it again in a deep worker
                return call_deep(self._statement, piece, run)
            diag = Diagnostic(
                "nesting_too_deep",
                Severity.ERROR,
                "the statement nests too deep to be resolved (HEADWATER_EXTRACT_MAX_NESTING)",
                index,
                piece.line,
                piece.column,
            )
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, error=diag)
        except Exception as err:  # lineage must never fail the statement: report instead
            diag = Diagnostic(
                "internal_error",
                Severity.ERROR,
                f"lineage extraction failed: {type(err).__name__}: {err}",
                index,
                piece.line,
                piece.column,
            )
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, error=diag)
        return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, skip_reason=kind.skip)

    def _lineage_statement(
        self, piece: Piece, tree: exp.Expression, kind: Kind, run: RunInfo, index: int
    ) -> StatementResult:
        target_node = tree.this
        column_list: list[str] | None = None
        if isinstance(target_node, exp.Schema):
            if kind.name in ("insert", "mv"):  # a materialized view's column list names its outputs
                column_list = [
                    self.names.column_ident(c.this if isinstance(c, exp.ColumnDef) else c) or ""
                    for c in target_node.expressions
                ]
            target_node = target_node.this
        directory = directory_ref(target_node, self.dialect) if isinstance(target_node, exp.Directory) else None
        if not isinstance(target_node, exp.Table) and directory is None:
            return StatementResult(
                index,
                piece.line,
                piece.column,
                piece.sql,
                kind.name,
                error=Diagnostic(
                    "unsupported_target",
                    Severity.ERROR,
                    f"cannot read the target {target_node.sql()}",
                    index,
                    piece.line,
                    piece.column,
                ),
            )
        target = directory or table_ref(target_node, self.names, self.session)
        if target.database == INTERNAL_SCHEMA:
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, skip_reason=SKIP_INTERNAL)

        resolver = self._resolver(index)
        resolver.diagnostics.extend(piece.notes)
        query = tree.expression
        try:
            ctes = resolver.ctes_of(tree, {}, None)  # INSERT … WITH may hang the WITH on the INSERT
            rel = resolver.relation(query, None, ctes)
            if kind.name == "ctas" and target in resolver.tables and self.catalog.table(target) is None:
                resolver, rel = self._self_read(piece, tree, target, resolver, rel, index)
        except LimitExceeded as err:  # pathological: an UNAVAILABLE event that says why
            resolver = self._resolver(index)
            resolver.diag(err.code, str(err), None, Severity.ERROR)
            event = lineage_event(
                self, piece, kind, run, index, target, column_list, Relation([], [], [], False), resolver
            )
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, events=(event,))
        partition, rel = self._partition(target_node, rel) if directory is None else (None, rel)
        if not resolver.tables and not resolver.via and self.options.statements == "doris":
            if kind.name in ("ctas", "mv"):
                self._register_ctas(target, rel)
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, skip_reason=SKIP_NO_TABLE)

        event = lineage_event(self, piece, kind, run, index, target, column_list, rel, resolver, partition, True)
        if kind.name in ("ctas", "mv") or directory is not None:  # later statements may read the path
            self._register_ctas(target, rel, column_list)
        return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, events=(event,))

    def _self_read(
        self, piece: Piece, tree: exp.Expression, target: TableRef, first: Resolver, rel: Relation, index: int
    ) -> tuple[Resolver, Relation]:
        """``CREATE OR REPLACE TABLE t AS … UNION ALL SELECT * FROM t``: a statement that reads, through a
        ``*``, the table it writes, whose columns nothing else gives. Its columns are taken to be the
        ones the statement writes (an INFO says so) and it is resolved again; the first reading stays
        when that one raises a doubt the first did not have, or changes the outputs."""
        if not rel.names or not all(rel.names) or not any(d.code == "star_unknown_columns" for d in first.diagnostics):
            return first, rel
        self.catalog.put(target, TableSchema(tuple(ColumnSchema(n) for n in rel.names)))
        resolver = self._resolver(index)
        resolver.diagnostics.extend(piece.notes)
        try:
            again = resolver.relation(tree.expression, None, resolver.ctes_of(tree, {}, None))
        except LimitExceeded:
            again = None
        had = {(d.code, d.message) for d in first.diagnostics}
        if (
            again is None
            or again.names != rel.names
            or any(d.severity != Severity.INFO and (d.code, d.message) not in had for d in resolver.diagnostics)
        ):
            self.catalog.drop(target)  # unknown again (the CREATE registers it next)
            return first, rel
        resolver.diag(
            "self_read_columns",
            f"{target.qualified} is read by the statement that writes it: its columns are taken to be the "
            "ones the statement writes",
            None,
            Severity.INFO,
        )
        return resolver, again

    def _resolver(self, index: int) -> Resolver:
        resolver = Resolver(
            self.catalog,
            self.names,
            self.session.catalog,
            self.session.database,
            index,
            self._has_base,
            self.session.temp_views,
            WorkBudget(self.options.limits.max_work),
        )
        if self.options.view_nodes:
            resolver.view_nodes = _ViewNodes(self.recorded_views, self.external_views)
        return resolver

    def _beyond(self, piece: Piece, tree: exp.Expression, run: RunInfo, index: int) -> StatementResult | None:
        """Lineage of the statements the Doris rules skip (``--statements all``); None: not one of them."""
        resolver = self._resolver(index)
        column_list: list[str] | None = None
        if isinstance(tree, exp.Query):
            kind = Kind("select", SourceCommand.SELECT)
            query_id = run.query_id or generated_query_id(piece.sql, index)
            target = TableRef(self.session.catalog, RESULT_DATABASE, query_id)
            rel = resolver.relation(tree, None, {})
        elif isinstance(tree, exp.Create) and str(tree.args.get("kind") or "").upper() == "VIEW":
            kind = Kind("view", SourceCommand.CREATE_VIEW)
            node = tree.this
            if isinstance(node, exp.Schema):
                column_list = [
                    self.names.column_ident(c.this if isinstance(c, exp.ColumnDef) else c) or ""
                    for c in node.expressions
                ]
                node = node.this
            target = table_ref(node, self.names, self.session)
            rel = resolver.relation(tree.expression, None, resolver.ctes_of(tree, {}, None))
            apply_statement(tree, self.catalog, self.names, self.session)
            if self.options.view_nodes:  # read as a table of its columns by later statements
                self.recorded_views.add(target)
                defined = self.catalog.table(target)
                if defined is not None and not defined.columns:
                    columns = tuple(ColumnSchema(n) for n in (column_list or rel.names))
                    self.catalog.put(target, replace(defined, columns=columns))
        elif isinstance(tree, exp.Update) and isinstance(tree.this, exp.Table):
            kind = Kind("update", SourceCommand.UPDATE)
            events = []
            for written, query, names in update_queries(tree):
                resolver = self._resolver(index)
                target = table_ref(written, self.names, self.session)
                rel = resolver.relation(query, None, resolver.ctes_of(tree, {}, None))
                _drop_unread_target(resolver, target, rel)
                column_list = [self.names.column_ident(n) or "" for n in names]
                events.append(lineage_event(self, piece, kind, run, index, target, column_list, rel, resolver))
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, events=tuple(events))
        elif isinstance(tree, exp.Delete) and isinstance(tree.this, exp.Table):
            kind = Kind("delete", SourceCommand.DELETE)
            written, query = delete_query(tree)
            target = table_ref(written, self.names, self.session)
            column_list = []
            rel = resolver.relation(query, None, resolver.ctes_of(tree, {}, None))
            _drop_unread_target(resolver, target, rel)
        elif isinstance(tree, exp.Merge) and isinstance(tree.this, exp.Table):
            kind = Kind("merge", SourceCommand.MERGE)
            target = table_ref(tree.this, self.names, self.session)
            column_list, rel = self._merge_relation(tree, resolver)
            _drop_unread_target(resolver, target, rel)
        elif renames := table_renames(tree, self.dialect):  # a is b from now on: the store renames
            kind = Kind("alter", SourceCommand.ALTER_TABLE)
            events = []
            for old, new in renames:
                resolver = self._resolver(index)
                source = table_ref(old, self.names, self.session)
                resolver.tables[source] = None
                target = table_ref(new, self.names, self.session)
                renamed = replace(
                    run, external_catalog_properties={**run.external_catalog_properties, RENAMED_FROM: str(source)}
                )
                events.append(
                    lineage_event(self, piece, kind, renamed, index, target, [], Relation([], [], []), resolver)
                )
            apply_statement(tree, self.catalog, self.names, self.session)
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, events=tuple(events))
        elif moves := table_moves(tree, self.dialect):  # SWAP WITH, EXCHANGE PARTITION, REPLACE WITH TABLE
            kind = Kind("alter", SourceCommand.ALTER_TABLE)
            events = []
            for written, read in moves:
                resolver = self._resolver(index)
                resolver.tables[table_ref(read, self.names, self.session)] = None
                target = table_ref(written, self.names, self.session)
                events.append(lineage_event(self, piece, kind, run, index, target, [], Relation([], [], []), resolver))
            self._move_schemas(moves)
            return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, events=tuple(events))
        elif isinstance(tree, exp.Copy) and (move := copy_move(tree, self.dialect)) is not None:
            kind = Kind("copy", SourceCommand.COPY)
            if move.table is not None:  # a path's rows into a table: its columns are unknown
                target = table_ref(move.table, self.names, self.session)
                resolver.tables[move.path] = None
                column_list = [self.names.column_ident(c) or "" for c in move.columns]
                rel = Relation([], [], [], False)
            else:  # a table's or a query's rows into a path
                target = move.path
                rel = resolver.relation(move.query, None, resolver.ctes_of(move.query, {}, None))
                self._register_ctas(target, rel)
        elif (unload := self._unload(tree)) is not None:
            kind = Kind("unload", SourceCommand.UNLOAD)
            target, query = unload
            rel = resolver.relation(query, None, resolver.ctes_of(query, {}, None))
            self._register_ctas(target, rel)
        elif isinstance(tree, exp.Insert) and isinstance(tree.expression, exp.Values):
            kind = Kind("insert", SourceCommand.INSERT_VALUES)
            node = tree.this
            if isinstance(node, exp.Schema):
                column_list = [self.names.column_ident(c) or "" for c in node.expressions]
                node = node.this
            target = table_ref(node, self.names, self.session)
            rel = resolver.relation(tree.expression, None, {})
        else:
            return None
        event = lineage_event(self, piece, kind, run, index, target, column_list, rel, resolver)
        return StatementResult(index, piece.line, piece.column, piece.sql, kind.name, events=(event,))

    def _unload(self, tree: exp.Expression) -> tuple[TableRef, exp.Query] | None:
        """Redshift ``UNLOAD ('select …') TO 's3://…'``: the path written and the query read; None
        for any other statement, or a query that does not parse."""
        if not (isinstance(tree, exp.Command) and str(tree.this).upper() == "UNLOAD"):
            return None
        parts = unload_parts(tree.expression.name if tree.expression is not None else "")
        path = storage_ref(parts[1]) if parts is not None else None
        if parts is None or path is None:
            return None
        try:
            query = sqlglot.parse_one(parts[0], read=self.dialect)
        except sqlglot.errors.ParseError:
            return None
        return (path, query) if isinstance(query, exp.Query) else None

    def _move_schemas(self, moves: list[tuple[exp.Table, exp.Table]]) -> None:
        """After a swap or a replace, each written table has the columns of the table it took rows from."""
        refs = [(table_ref(w, self.names, self.session), table_ref(r, self.names, self.session)) for w, r in moves]
        schemas = {read: self.catalog.table(read) for _, read in refs}
        for written, read in refs:
            schema = schemas[read]
            if schema is not None:
                self.catalog.put(written, schema)
            else:
                self.catalog.drop(written)

    def _merge_relation(self, tree: exp.Merge, resolver: Resolver) -> tuple[list[str], Relation]:
        """All WHEN branches as one relation: each assigned column's alternatives are its branches."""
        names: list[str] = []
        columns: dict[str, list] = {}
        for query, assigned in merge_branches(tree):
            rel = resolver.relation(query, None, {})
            for name, alts in zip(assigned, rel.columns, strict=False):
                key = self.names.column_ident(name) or ""
                if key not in columns:
                    names.append(key)
                    columns[key] = []
                columns[key].extend(alts)
        return names, Relation(names, list(names), [columns[n] for n in names])

    def _multi_insert(self, piece: Piece, tree: exp.MultitableInserts, run: RunInfo, index: int) -> StatementResult:
        """Hive/Spark ``FROM src INSERT … SELECT … INSERT … SELECT …``: one event per sink.

        Each INSERT is resolved on its own, over the shared FROM, so two sinks never share
        relations or lineage.
        """
        source = tree.args.get("source")
        events: list[LineageInfo] = []
        reasons: list[str] = []
        for insert in tree.expressions:
            query = insert.expression
            if source is not None and isinstance(query, exp.Select) and not query.args.get("from_"):
                insert = insert.copy()
                insert.expression.set("from_", exp.From(this=source.copy()))
            kind = kind_of(insert)
            if kind.skip is not None:
                reasons.append(kind.skip)
                continue
            result = self._lineage_statement(piece, insert, kind, run, index)
            events.extend(result.events)
            if result.skip_reason:
                reasons.append(result.skip_reason)
        skip = None if events else "; ".join(dict.fromkeys(reasons)) or None
        return StatementResult(
            index, piece.line, piece.column, piece.sql, "multi-insert", events=tuple(events), skip_reason=skip
        )

    def _partition(self, target: exp.Table, rel: Relation) -> tuple[list[str] | None, Relation]:
        """Hive-style ``PARTITION (dt = '…', hr)``: the partition columns in binding order, and the
        relation with the static values appended as constant outputs (dynamic ones come from the query)."""
        spec = target.args.get("partition")
        if not isinstance(spec, exp.Partition) or self.dialect in MYSQL_FAMILY:
            return None, rel  # Doris / StarRocks ``PARTITION (p1, p2)`` names partitions, not columns
        dynamic: list[str] = []
        static: list[tuple[str, exp.Expression]] = []
        for item in spec.expressions:
            if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column):
                static.append((self.names.column_ident(item.this.this) or "", item.expression))
            elif isinstance(item, exp.Column):
                dynamic.append(self.names.column_ident(item.this) or "")
        extended = Relation(
            rel.names + [n for n, _ in static],
            rel.labels + [n for n, _ in static],
            rel.columns + [[value.copy()] for _, value in static],
            rel.complete,
            rel.tables,
        )
        return dynamic + [n for n, _ in static], extended

    def _register_ctas(self, target: TableRef, rel: Relation, column_list: list[str] | None = None) -> None:
        names = column_list or rel.names
        columns = tuple(ColumnSchema(n) for n in names)
        self.catalog.put(target, TableSchema(columns, open=not column_list and not rel.complete))

    def context_for(
        self,
        sql: str,
        command: SourceCommand,
        run: RunInfo,
        index: int,
        tables: list[TableRef],
        schema: Callable[[TableRef], TableSchema | None] | None = None,
    ) -> QueryContext:
        """The query context of the statement ``sql`` (the ``index``-th of the session) reading and
        writing ``tables``, as the session stands (``schema``: the catalog's lookup, by default its own)."""
        return QueryContext(
            source_command=command,
            query_id=run.query_id or generated_query_id(sql, index),
            sql=sql,
            user=run.user,
            client_ip=run.client_ip,
            database=self.session.database,
            catalog=self.session.catalog,
            state="OK",
            timestamp=run.timestamp or now_iso(),
            duration_ms=run.duration_ms,
            external_catalog_properties=redact(
                {**run.external_catalog_properties, **self._table_properties(tables, schema or self.catalog.table)}
            ),
        )

    def _table_properties(
        self, tables: list[TableRef], schema_of: Callable[[TableRef], TableSchema | None]
    ) -> dict[str, str]:
        """Options declared on the tables (Flink ``WITH (…)``), keyed ``db.table.option``."""
        out: dict[str, str] = {}
        for ref in tables:
            schema = schema_of(ref)
            for key, value in schema.properties if schema is not None else ():
                out[f"{ref.qualified}.{key}"] = value
        return out

    def render(self, node: exp.Expression) -> str:
        """SQL text of a resolved expression (ours, analysed already: no copy, no preprocessing needed)."""
        return self._generator.sql(node).strip()


def _drop_unread_target(resolver: Resolver, target: TableRef, rel: Relation) -> None:
    """An UPDATE, MERGE or DELETE reads its target only where a value, ON or WHERE reads a column of it.

    ``UPDATE t SET c = 1`` writes ``t`` without reading it; ``… WHERE t.d < 0`` reads it.
    """
    if target not in resolver.tables:
        return
    nodes = [alt for alts in rel.columns for alt in alts] + [node for _, node in resolver.indirect]
    if not any(ref.table == target for node in nodes for ref in refs_of(node, resolver.shared)):
        del resolver.tables[target]


class _ViewNodes:
    """The views that are datasets of their own: those recorded here and those recorded elsewhere."""

    __slots__ = ("external", "recorded")

    def __init__(self, recorded: set[TableRef], external: Container[TableRef]) -> None:
        self.recorded, self.external = recorded, external

    def __contains__(self, ref: object) -> bool:
        return ref in self.recorded or ref in self.external


def _is_view(tree: exp.Expression) -> bool:
    """A ``CREATE VIEW`` of a catalog view (not a session-scoped temporary view)."""
    if not isinstance(tree, exp.Create) or str(tree.args.get("kind") or "").upper() != "VIEW":
        return False
    return not is_temporary(tree)


def extract_script(
    sql: str,
    *,
    dialect: str = "doris",
    catalog: Catalog | None = None,
    database: str | None = None,
    run: RunInfo | None = None,
    statements: str = "doris",
) -> ScriptResult:
    """Extract the lineage events of a whole script with a fresh session."""
    ex = Extractor(catalog, ExtractOptions(dialect=dialect, statements=statements), database=database)
    return ex.run(sql, run)
