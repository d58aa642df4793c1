"""What a diff finds: the changes per column, table and job, and the verdict on each.

Plain dataclasses; ``compare`` fills the changes, ``impact`` their downstream and verdicts, and the
``formats`` modules print them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from headwater.diff.snapshot import ColumnEdge
from headwater.store.results import ImpactGroup


class ColumnKind(StrEnum):
    """What happened to a written column, the strongest first."""

    REMOVED = "removed"
    RENAMED = "renamed"
    RETYPED = "retyped"
    EXPRESSION = "expression"
    """Its value is computed otherwise: a DIRECT edge added, removed, or of another type or expression."""
    INDIRECT = "indirect"
    """Only its JOIN / FILTER / GROUP_BY / SORT / WINDOW / CONDITIONAL inputs changed: other rows."""
    ADDED = "added"


class Verdict(StrEnum):
    SAFE = "SAFE"
    POSSIBLY_BREAKING = "POSSIBLY_BREAKING"
    BREAKING = "BREAKING"

    @property
    def rank(self) -> int:
        return list(Verdict).index(self)


def strongest(verdicts: list[Verdict]) -> Verdict:
    """The worst of ``verdicts`` (SAFE when there are none).

    >>> strongest([Verdict.SAFE, Verdict.BREAKING, Verdict.POSSIBLY_BREAKING]).value
    'BREAKING'
    """
    return max(verdicts, key=lambda v: v.rank, default=Verdict.SAFE)


@dataclass(frozen=True, slots=True)
class EdgeChange:
    """An edge with the same source in both states, of another transformation type or expression."""

    source: str
    dependency: str
    old_subtype: str
    new_subtype: str
    old_expression: str
    new_expression: str


@dataclass(frozen=True, slots=True)
class Reader:
    """A column downstream of a changed one (in the store the impact is read from), with the path to it."""

    column: str
    depth: int
    dependency: str
    path: tuple[str, ...]
    """The columns from the changed one to this one, both included."""
    broken: bool = False
    """It reads the changed column itself and does not change with it (a destructive change breaks it)."""


@dataclass(slots=True)
class Impact:
    """Downstream of one change: its readers, and ``analyze_impact``'s severities by node type."""

    change_type: str
    severity: str
    readers: list[Reader] = field(default_factory=list)
    groups: list[ImpactGroup] = field(default_factory=list)
    """The affected nodes by type (count, sample names, severity), as ``analyze_impact`` groups them."""
    truncated: bool = False


@dataclass(slots=True)
class ColumnChange:
    column: str
    """The column's name in the old state (removed, renamed) or the new one (otherwise)."""
    table: str
    kind: ColumnKind
    added: list[ColumnEdge] = field(default_factory=list)
    removed: list[ColumnEdge] = field(default_factory=list)
    changed: list[EdgeChange] = field(default_factory=list)
    renamed_to: str | None = None
    job: str | None = None
    file: str | None = None
    line: int | None = None
    """Where the statement that writes it is (the new state's, else the old one's)."""
    impact: Impact | None = None
    verdict: Verdict = Verdict.SAFE
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TableChange:
    table: str
    kind: str
    """``added`` or ``removed``."""
    columns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JobChange:
    job: str
    kind: str
    """``added``, ``removed``, ``changed`` (other edges) or ``moved`` (same edges, other file)."""
    old_file: str | None = None
    old_line: int | None = None
    new_file: str | None = None
    new_line: int | None = None
    moved_from: str | None = None
    """For a job moved under another name (``a.sql#2`` → ``b.sql#1``): its old name."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A statement of the new state that no longer extracts: it reads what the change removed."""

    file: str | None
    line: int | None
    column: int | None
    job: str | None
    code: str
    message: str

    @property
    def location(self) -> str:
        """``file:line``, ``file`` when the line is unknown (an extractor error), or ``?``.

        >>> Problem("a.sql", None, None, None, "x", "y").location
        'a.sql'
        """
        if not self.file:
            return "?"
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass(slots=True)
class DiffReport:
    old: str
    new: str
    """What was compared (``--from 2026-11-01``, ``main``, a directory)."""
    columns: list[ColumnChange] = field(default_factory=list)
    tables: list[TableChange] = field(default_factory=list)
    jobs: list[JobChange] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    impact_from: str = ""
    """Where the downstream was read (the deployed store, or the old state)."""
    verdict: Verdict = Verdict.SAFE
    reasons: list[str] = field(default_factory=list)

    @property
    def by_table(self) -> dict[str, list[ColumnChange]]:
        out: dict[str, list[ColumnChange]] = {}
        for c in self.columns:
            out.setdefault(c.table, []).append(c)
        return out
