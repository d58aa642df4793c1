"""The lineage event: ``LineageInfo`` and its parts.

Every class here is an immutable, slotted dataclass; every enum is a ``StrEnum`` whose
value is the word used in the JSON form (see ``docs/event-format.md``).

>>> t = TableRef("internal", "lineage_demo", "lineage_orders")
>>> str(ColumnRef(t, "amount"))
'internal.lineage_demo.lineage_orders.amount'
>>> t.short
'lineage_orders'
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

try:
    from _sha1 import sha1 as _sha1  # CPython's own SHA-1
except ImportError:  # pragma: no cover (a build without it)
    from hashlib import sha1 as _sha1

EVENT_VERSION = "headwater.event/1"
_EVENT_NAMESPACE = uuid.UUID("6f6b8f7e-1c5a-4d0e-9a53-0d4b1e7a8c21")
_NAMESPACE_BYTES = _EVENT_NAMESPACE.bytes
_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}  # a uuid's variant digit: high bits 10


class SourceCommand(StrEnum):
    """The command that produced the event, in the names Doris reports."""

    INSERT_INTO = "InsertIntoTableCommand"
    INSERT_OVERWRITE = "InsertOverwriteTableCommand"
    CREATE_TABLE = "CreateTableCommand"
    CREATE_MATERIALIZED_VIEW = "CreateMTMVCommand"
    # Opt-in statements beyond the Doris rules (``--statements all``).
    SELECT = "SelectCommand"
    CREATE_VIEW = "CreateViewCommand"
    UPDATE = "UpdateCommand"
    MERGE = "MergeIntoCommand"
    INSERT_VALUES = "InsertValuesCommand"
    DELETE = "DeleteFromTableCommand"
    ALTER_TABLE = "AlterTableCommand"
    COPY = "CopyCommand"
    UNLOAD = "UnloadCommand"


RENAMED_FROM = "headwater.renamed_from"
"""``context.external_catalog_properties`` key of an ``ALTER TABLE a RENAME TO b`` event (target b,
source a): the old table, ``catalog.db.a``. The store renames a to b (``store.rename``)."""


class DirectType(StrEnum):
    """How a target value is produced (the guide's order: aggregate, identity, other)."""

    IDENTITY = "IDENTITY"
    TRANSFORMATION = "TRANSFORMATION"
    AGGREGATION = "AGGREGATION"


class IndirectType(StrEnum):
    """Why an input affects a result without producing its value."""

    JOIN = "JOIN"
    FILTER = "FILTER"
    GROUP_BY = "GROUP_BY"
    SORT = "SORT"
    WINDOW = "WINDOW"
    CONDITIONAL = "CONDITIONAL"


DATASET_INDIRECT_TYPES = (IndirectType.JOIN, IndirectType.FILTER, IndirectType.GROUP_BY, IndirectType.SORT)
OUTPUT_INDIRECT_TYPES = (IndirectType.WINDOW, IndirectType.CONDITIONAL)


class Origin(StrEnum):
    """Where a target column's value comes from."""

    COLUMN = "COLUMN"
    CONSTANT = "CONSTANT"
    SYSTEM = "SYSTEM"


class Dependency(StrEnum):
    DIRECT = "DIRECT"
    INDIRECT = "INDIRECT"


class Status(StrEnum):
    COMPLETE = "COMPLETE"
    PARTIAL = "PARTIAL"
    UNAVAILABLE = "UNAVAILABLE"


class Severity(StrEnum):
    ERROR = "ERROR"
    WARNING = "WARNING"
    INFO = "INFO"


class _Frozen:
    """Immutable values are their own deep copy (they ride in sqlglot node metadata)."""

    __slots__ = ()

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: Any) -> Any:
        return self


@dataclass(frozen=True, slots=True, order=True)
class TableRef(_Frozen):
    """A table (or view) identified by catalog, database and name, already normalised."""

    catalog: str
    database: str | None
    name: str

    @property
    def short(self) -> str:
        return self.name

    @property
    def qualified(self) -> str:
        """``db.name`` (or ``name`` when there is no database), the dataset name used by sinks."""
        return f"{self.database}.{self.name}" if self.database else self.name

    def __str__(self) -> str:
        return f"{self.catalog}.{self.qualified}"


@dataclass(frozen=True, slots=True, order=True)
class ColumnRef(_Frozen):
    """A column of a base table."""

    table: TableRef
    column: str

    def __str__(self) -> str:
        return f"{self.table}.{self.column}"


@dataclass(frozen=True, slots=True)
class Field(_Frozen):
    """A target column: its name and, when known, its declared type."""

    name: str
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Target(_Frozen):
    """The table an event writes, with its ordered columns."""

    table: TableRef
    columns: tuple[Field, ...]


@dataclass(frozen=True, slots=True)
class DirectInput(_Frozen):
    """A source column that takes part in computing a value (DIRECT), with what it passes through.

    ``labels`` are transformation labels (``CAST``, ``ARITHMETIC``, function names, ``UDF``);
    ``masking`` is true when a hashing or masking function sits on the path.
    """

    column: ColumnRef
    labels: tuple[str, ...] = ()
    masking: bool = False


@dataclass(frozen=True, slots=True)
class DirectLineage(_Frozen):
    """How one target column's value is produced (one entry per set-operation branch).

    ``sources`` is every source column the expression reads (the guide's view);
    ``inputs`` the subset that takes part in the value (DIRECT), with labels.
    """

    target_column: str
    expression: str
    type: DirectType
    origin: Origin
    sources: tuple[ColumnRef, ...]
    inputs: tuple[DirectInput, ...] = ()
    branch: int = 0


@dataclass(frozen=True, slots=True)
class IndirectLineage(_Frozen):
    """An expression that affects results without producing a value.

    Dataset-level entries (JOIN, FILTER, GROUP_BY, SORT) have ``target_column`` None and apply
    to every target column; output-level entries (WINDOW, CONDITIONAL) name their column.
    """

    type: IndirectType
    expression: str
    sources: tuple[ColumnRef, ...]
    target_column: str | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic(_Frozen):
    """Why something is missing or doubtful. ``line``/``column`` are 1-based in the script."""

    code: str
    severity: Severity
    message: str
    statement_index: int | None = None
    line: int | None = None
    column: int | None = None
    construct: str | None = None
    target_column: str | None = None


@dataclass(frozen=True, slots=True)
class IncompleteColumn(_Frozen):
    """A target column whose lineage is not known to be complete, and why: the codes of the WARNING and
    ERROR diagnostics that touch it (raised in its select item, or statement-wide), in order."""

    target_column: str
    codes: tuple[str, ...]


def _frozen_map(m: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType(dict(m or {}))


@dataclass(frozen=True, slots=True)
class QueryContext(_Frozen):
    """Who ran the statement, where, and when. ``duration_ms`` is -1 when unknown."""

    source_command: SourceCommand
    query_id: str
    sql: str
    user: str | None = None
    client_ip: str | None = None
    database: str | None = None
    catalog: str = "internal"
    state: str = "OK"
    timestamp: str | None = None
    duration_ms: int = -1
    external_catalog_properties: Mapping[str, str] = field(default_factory=lambda: _frozen_map(None))

    def __post_init__(self) -> None:
        if not isinstance(self.external_catalog_properties, MappingProxyType):
            object.__setattr__(self, "external_catalog_properties", _frozen_map(self.external_catalog_properties))


@dataclass(frozen=True, slots=True, weakref_slot=True)
class LineageInfo(_Frozen):
    """One lineage event: what a successful statement moved from where to where. (Weakly
    referable: ``secrets.is_redacted`` marks the exact objects ``redact_event`` returned.)"""

    event_id: str
    source_command: SourceCommand
    target: Target
    sources: tuple[TableRef, ...]
    direct: tuple[DirectLineage, ...]
    dataset_indirect: tuple[IndirectLineage, ...]
    output_indirect: tuple[IndirectLineage, ...]
    context: QueryContext
    status: Status = Status.COMPLETE
    diagnostics: tuple[Diagnostic, ...] = ()
    via: tuple[TableRef, ...] = ()
    version: str = EVENT_VERSION
    incomplete_columns: tuple[IncompleteColumn, ...] = ()

    def direct_for(self, column: str) -> tuple[DirectLineage, ...]:
        """The direct lineage entries of one target column (several for set operations)."""
        return tuple(d for d in self.direct if d.target_column == column)

    def output_indirect_for(self, column: str) -> tuple[IndirectLineage, ...]:
        return tuple(i for i in self.output_indirect if i.target_column == column)


def make_event_id(query_id: str, target: TableRef) -> str:
    """Deterministic event id: the same query id and target always give the same id.

    >>> a = make_event_id("q1", TableRef("internal", "db", "t"))
    >>> a == make_event_id("q1", TableRef("internal", "db", "t"))
    True
    >>> a == make_event_id("q2", TableRef("internal", "db", "t"))
    False
    >>> a == str(uuid.uuid5(_EVENT_NAMESPACE, "q1\x1finternal.db.t"))  # a version-5 UUID
    True
    """
    return event_id_of(f"{query_id}\x1f{target}".encode())


def event_id_of(name: bytes) -> str:
    """The event id of ``name`` (``f"{query_id}\x1f{target}"``, encoded): ``uuid.uuid5`` in the
    events' namespace without its UUID object, put together from the SHA-1's hex digest of namespace
    and name (version digit 5, variant digit by ``_VARIANT``), with the interpreter's own SHA-1 where
    it has one (no OpenSSL context to set up: a third fewer instructions than ``hashlib``'s)."""
    h = _sha1(_NAMESPACE_BYTES + name).hexdigest()
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"
