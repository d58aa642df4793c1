"""One extraction session across the files of a project, every statement named as its job.

DDL, views, temporary views and CTAS targets of one file bind the statements of the files after
it, as if the files were one script. Each event gets its job's identity (``headwater.model.job``):
the ``-- name: …`` comment before the statement, else ``<file>#<ordinal>``, where the ordinal
counts the file's lineage statements (INSERT, CTAS, views; other DDL does not count) — written to
``context.external_catalog_properties`` with the file and line. A statement that writes several
tables (Hive's multi-insert) names one job per table: ``<job>→<table>``.

Query ids (and so event ids) come from the file, the ordinal and the statement's text: the same
project ingested again records nothing twice, however its files are grouped into commands.

>>> ctx = ProjectContext(dialect="spark")
>>> f1 = ctx.extract("01.sql", "CREATE TABLE s.a AS SELECT 1 AS x, 2 AS y")
>>> f2 = ctx.extract("02.sql", "-- name: load_b\\nINSERT INTO s.b SELECT * FROM s.a")
>>> e = f2.statements[0].events[0]
>>> e.context.external_catalog_properties["headwater.job"], [d.target_column for d in e.direct]
('load_b', ['x', 'y'])
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import overload

from sqlglot import exp

from headwater.catalog import Catalog, TableSchema
from headwater.extract import ExtractOptions, Extractor, RunInfo
from headwater.extract.context import generated_query_id
from headwater.extract.ddl import is_temporary, table_ref
from headwater.extract.result import StatementResult
from headwater.extract.split import Piece, iter_script, split_script
from headwater.model import LineageInfo, TableRef, make_event_id
from headwater.model.job import JOB_FILE_PROPERTY, JOB_LINE_PROPERTY, JOB_PROPERTY, file_job_name, given_name

LINEAGE_KINDS = frozenset({"insert", "ctas", "multi-insert", "view"})
"""Statement kinds that count for a job's ordinal in its file (whether or not they made an event)."""


@dataclass(frozen=True, slots=True)
class StatementOutcome:
    """One statement of a project file: the extractor's result, with its events named as jobs."""

    result: StatementResult
    job: str | None
    events: tuple[LineageInfo, ...]
    defined: tuple[tuple[TableRef, TableSchema], ...] = ()
    """The table a ``CREATE TABLE`` with columns defined, with its columns (``store.from_ddl``)."""


@dataclass(frozen=True, slots=True)
class FileExtraction:
    relpath: str
    statements: tuple[StatementOutcome, ...]

    @property
    def events(self) -> list[LineageInfo]:
        return [e for s in self.statements for e in s.events]


class TextLines(Sequence[str]):
    """The lines of ``text`` (cut at each ``\\n``, as the tokenizer counts them; a ``\\r`` before it
    dropped), each made when asked: a list of them costs ~140 bytes a line for as long as the file is
    extracted, this 8 (where each line starts).

    >>> lines = TextLines("SELECT 1;\\r\\n-- name: x\\nSELECT 2")
    >>> len(lines), lines[1], lines[-1]
    (3, '-- name: x', 'SELECT 2')
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts = array("q", [0])
        at = text.find("\n")
        while at >= 0:
            self._starts.append(at + 1)
            at = text.find("\n", at + 1)

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        k = range(len(self._starts))[i]
        start = self._starts[k]
        end = self._starts[k + 1] - 1 if k + 1 < len(self._starts) else len(self._text)
        return self._text[start:end].removesuffix("\r")


def name_before(lines: Sequence[str], line: int) -> str | None:
    """The ``-- name: …`` of the comment block just above line ``line`` (1-based), if any.

    >>> name_before(["SELECT 1;", "-- name: x", "", "INSERT INTO t SELECT 1"], 4)
    'x'
    >>> name_before(["-- name: x", "SELECT 1;", "INSERT INTO t SELECT 1"], 3) is None
    True
    """
    k = line - 1
    while k > 0 and (not lines[k - 1].strip() or lines[k - 1].lstrip().startswith("--")):
        k -= 1
    return given_name("\n".join(lines[k : line - 1]))


class ProjectContext:
    """An ``Extractor`` shared by the files of a project (``extract`` them in running order).

    ``view_nodes`` (the default): views are datasets of their own (``ExtractOptions.view_nodes``):
    those the project creates, and ``recorded_views`` (the store's, ``StoreCatalog``).
    """

    def __init__(
        self,
        catalog: Catalog | None = None,
        *,
        dialect: str = "doris",
        database: str | None = None,
        default_catalog: str = "internal",
        statements: str = "doris",
        view_nodes: bool = True,
        recorded_views: Container[TableRef] = (),
    ) -> None:
        self.dialect = dialect
        options = ExtractOptions(dialect=dialect, statements=statements, view_nodes=view_nodes)
        self.extractor = Extractor(catalog, options, database=database, catalog_name=default_catalog)
        self.extractor.external_views = recorded_views

    def split(self, text: str) -> list[Piece]:
        return split_script(text, self.dialect)

    def extract(
        self,
        relpath: str,
        text: str,
        pieces: Iterable[Piece] | None = None,
        on_statement: Callable[[StatementOutcome], None] | None = None,
    ) -> FileExtraction:
        """Extract one file (``pieces``: its statements, when already split; else they are parsed one
        at a time as extraction goes). With ``on_statement``, each outcome goes to it and is not kept
        (the result holds none): memory stays flat however many statements the file has."""
        out: list[StatementOutcome] = []
        for outcome in self.outcomes(relpath, text, pieces):
            if on_statement is not None:
                on_statement(outcome)
            else:
                out.append(outcome)
        return FileExtraction(relpath, tuple(out))

    def outcomes(self, relpath: str, text: str, pieces: Iterable[Piece] | None = None) -> Iterator[StatementOutcome]:
        """``extract``'s outcomes one at a time, as the caller takes them (none kept)."""
        lines = TextLines(text)
        pieces = iter_script(text, self.dialect) if pieces is None else pieces
        ordinal = 0
        made: list[tuple[TableRef, TableSchema]] = []  # this file's CREATE TABLE (…) DDL
        for piece, result in self.extractor.piece_results(pieces, RunInfo()):
            job = None
            events = result.events
            if result.kind in LINEAGE_KINDS or events:
                ordinal += 1
                job = file_job_name(relpath, ordinal, name_before(lines, piece.line) or given_name(piece.sql))
                events = tuple(_named(e, job, relpath, ordinal, piece, len(events) > 1) for e in events)
            defined = self._defined(piece) if result.kind == "ddl" else None
            if defined is not None:
                made.append(defined)
            stored = (defined,) if defined is not None and defined[0].database is not None else ()
            yield StatementOutcome(result, job, events, stored)
        self._older(made)  # once the file is done (the caller took every outcome)

    def _defined(self, piece: Piece) -> tuple[TableRef, TableSchema] | None:
        """The table ``piece`` (a DDL statement just run) defined with its columns, if it is a
        ``CREATE TABLE`` that lists them; as the session's catalog now has it."""
        tree = piece.tree
        if not (isinstance(tree, exp.Create) and str(tree.args.get("kind") or "").upper() == "TABLE"):
            return None
        if is_temporary(tree):  # session-scoped: nothing for the store to know
            return None
        schema_node = tree.this
        if not (isinstance(schema_node, exp.Schema) and isinstance(schema_node.this, exp.Table)):
            return None
        ex = self.extractor
        ref = table_ref(schema_node.this, ex.names, ex.session)
        schema = ex.catalog.table(ref)
        if schema is None or not schema.columns or schema.view_sql is not None:
            return None
        return ref, schema

    def _older(self, made: Sequence[tuple[TableRef, TableSchema]]) -> None:
        """For the files after this one, its ``CREATE TABLE`` DDL may be older than the table (the file
        runs at other times; the table may have been altered since), as a ``CREATE TABLE IF NOT EXISTS``
        is: tentative (``TableSchema.tentative``), with what the file's later statements (ALTER) made of it."""
        catalog = self.extractor.catalog
        for ref, _ in made:
            schema = catalog.table(ref)
            if schema is not None and not schema.tentative and schema.view_sql is None:
                catalog.put(ref, replace(schema, tentative=True))


def _named(event: LineageInfo, job: str, relpath: str, ordinal: int, piece: Piece, several: bool) -> LineageInfo:
    name = f"{job}→{event.target.table.qualified}" if several else job
    props = {
        **event.context.external_catalog_properties,
        JOB_PROPERTY: name,
        JOB_FILE_PROPERTY: relpath,
        JOB_LINE_PROPERTY: str(piece.line),
    }
    query_id = generated_query_id(f"{relpath}\x1f{piece.sql}", ordinal)
    context = replace(event.context, query_id=query_id, external_catalog_properties=props)
    return replace(event, event_id=make_event_id(query_id, event.target.table), context=context)
