"""The Doris form through a view, recorded as the view hop: ``fct → v_customer_360 → top_customers``.

A Doris-compatible event (what ``headwater extract``, the dispatch path and its plugins emit) of a
statement that reads a view names the view's *base* columns in its lineage and lists the view in
``via``. When the store has the view's own lineage (its ``CREATE VIEW`` event, recorded by ``headwater
ingest`` or a producer with views as nodes), the event is recorded as if it read the view's columns,
as an extraction with views as nodes gives it:

- a value (a direct entry) taken from base columns becomes one taken from the view columns whose
  values are made of those base columns (the fewest that cover them, largest first; a column named
  as the target wins a tie); a view column passed through unchanged (same expression) is an
  IDENTITY mapping of the view column;
- a condition (an indirect entry) the view's own definition has (same type, same base columns: its
  joins, filters, groupings, a column's CASE or window) is dropped, since the view's lineage carries
  it; a condition of the statement on the view's columns (``WHERE revenue_rank <= 100``) is mapped to
  the view columns that cover its base columns (their values and their own CASE and window inputs);
- the base tables the statement reaches only through the view stop being its sources, the view is one,
  and it leaves ``via``.

What cannot be matched (a base column no view column is made of) stays on the base columns, as
does everything of a view the store has no lineage for. Views over views are taken one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import Connection

from headwater.model import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    IndirectLineage,
    LineageInfo,
    SourceCommand,
    TableRef,
)
from headwater.store.catalog import newest_writer_event
from headwater.store.names import dataset_name, field_name


def _key(c: ColumnRef) -> str:
    t = c.table
    return field_name(dataset_name(t.catalog, t.database, t.name), c.column)


def _table_key(t: TableRef) -> str:
    return dataset_name(t.catalog, t.database, t.name)


@dataclass(slots=True)
class ViewLineage:
    """What a view's ``CREATE VIEW`` event says, by normalised column names."""

    ref: TableRef
    values: dict[str, frozenset[str]] = field(default_factory=dict)  # view column -> base columns of its value
    expression: dict[str, str | None] = field(default_factory=dict)
    inputs: dict[str, frozenset[str]] = field(default_factory=dict)  # also its own CASE and window inputs
    own: set[tuple[str | None, str, frozenset[str]]] = field(default_factory=set)  # (column, type, sources)
    base: set[str] = field(default_factory=set)  # every base column the definition names
    tables: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, ref: TableRef, event: LineageInfo) -> ViewLineage:
        view = cls(ref)
        for d in event.direct:
            col = d.target_column.lower()
            keys = frozenset(_key(i.column) for i in d.inputs)
            view.values[col] = view.values.get(col, frozenset()) | keys
            view.expression[col] = d.expression if col not in view.expression else None  # branches: no one text
            view.base.update(keys, (_key(c) for c in d.sources))
        view.inputs = dict(view.values)
        for ind in (*event.output_indirect, *event.dataset_indirect):
            keys = frozenset(_key(c) for c in ind.sources)
            col = ind.target_column.lower() if ind.target_column else None
            view.own.add((col, ind.type.value, keys))
            view.base.update(keys)
            if col is not None:
                view.inputs[col] = view.inputs.get(col, frozenset()) | keys
        view.tables = {_table_key(t) for t in event.sources}
        view.tables.update(k.rsplit(".", 1)[0] for k in view.base)
        return view

    def column(self, name: str) -> ColumnRef:
        return ColumnRef(self.ref, name)


def _cover(needed: frozenset[str], candidates: dict[str, frozenset[str]], prefer: str | None) -> list[str] | None:
    """The view columns whose base columns, each set within ``needed``, together make ``needed``:
    largest first (ties: ``prefer``, then name order); None when they cannot.

    >>> _cover(frozenset({"a", "b"}), {"x": frozenset({"a"}), "y": frozenset({"a", "b"}), "z": frozenset()}, None)
    ['y']
    >>> _cover(frozenset({"a", "c"}), {"x": frozenset({"a"})}, None) is None
    True
    """
    usable = sorted(
        ((c, s) for c, s in candidates.items() if s and s <= needed),
        key=lambda cs: (-len(cs[1]), cs[0] != prefer, cs[0]),
    )
    left, chosen = set(needed), []
    for c, s in usable:
        if s & left:
            chosen.append(c)
            left -= s
        if not left:
            return chosen
    return None


class _Rewrite:
    def __init__(self, view: ViewLineage) -> None:
        self.view = view
        self.used = False
        self.chosen: dict[str, list[str]] = {}  # target column -> the view columns its value comes from

    def direct(self, d: DirectLineage) -> DirectLineage:
        view = self.view
        under = [i for i in d.inputs if _key(i.column) in view.base]
        if not under:
            return d
        cols = _cover(frozenset(_key(i.column) for i in under), view.values, d.target_column.lower())
        if cols is None:
            return d
        self.used = True
        self.chosen.setdefault(d.target_column.lower(), []).extend(cols)
        if len(cols) == 1 and len(under) == len(d.inputs) and view.expression.get(cols[0]) == d.expression:
            ref = view.column(cols[0])  # the view's column, passed on as it is
            return replace(
                d,
                expression=f"{view.ref.name}.{cols[0]}",
                type=DirectType.IDENTITY,
                sources=(ref,),
                inputs=(DirectInput(ref),),
            )
        keep = [i for i in d.inputs if i not in under]
        labels = tuple(dict.fromkeys(label for i in under for label in i.labels))
        masking = any(i.masking for i in under)
        inputs = (*keep, *(DirectInput(view.column(c), labels, masking) for c in cols))
        sources = (*(c for c in d.sources if _key(c) not in view.base), *(view.column(c) for c in cols))
        return replace(d, sources=tuple(dict.fromkeys(sources)), inputs=inputs)

    def indirect(self, ind: IndirectLineage) -> IndirectLineage | None:
        view = self.view
        under = frozenset(_key(c) for c in ind.sources if _key(c) in view.base)
        if not under:
            return ind
        rest = tuple(c for c in ind.sources if _key(c) not in under)
        # the view's own: a dataset-level one of its definition, or a CASE or window of a view column
        # the target's value comes from
        owners = self.chosen.get(ind.target_column.lower(), []) if ind.target_column else [None]
        if any((col, ind.type.value, under) in view.own for col in owners):
            self.used = True  # the view's own condition: its lineage carries it
            return replace(ind, sources=rest) if rest else None
        cols = _cover(under, view.inputs, None)
        if cols is None:
            return ind
        self.used = True
        return replace(ind, sources=(*rest, *(view.column(c) for c in cols)))


def _columns(event: LineageInfo) -> Iterable[ColumnRef]:
    for d in event.direct:
        yield from d.sources
        yield from (i.column for i in d.inputs)
    for ind in (*event.output_indirect, *event.dataset_indirect):
        yield from ind.sources


def read_through(event: LineageInfo, view: ViewLineage, read: TableRef | None = None) -> LineageInfo:
    """``event`` as reading ``view``'s columns instead of its base columns (the module docstring);
    ``read``: the name ``via`` gives the view, when it is another name of it (an alias)."""
    rw = _Rewrite(view)
    direct = tuple(rw.direct(d) for d in event.direct)
    output = tuple(x for x in (rw.indirect(i) for i in event.output_indirect) if x is not None)
    dataset = tuple(x for x in (rw.indirect(i) for i in event.dataset_indirect) if x is not None)
    if not rw.used:
        return event
    out = replace(event, direct=direct, output_indirect=output, dataset_indirect=dataset)
    named = {_table_key(c.table) for c in _columns(out)}
    sources = [t for t in event.sources if _table_key(t) not in view.tables or _table_key(t) in named]
    return replace(
        out,
        sources=tuple(dict.fromkeys([*sources, view.ref])),
        via=tuple(v for v in event.via if v not in (view.ref, read)),
    )


def through_views(
    conn: Connection, events: Sequence[LineageInfo], aliases: Mapping[str, tuple[str, str]] | None = None
) -> list[LineageInfo]:
    """``events`` with those read through views the store has the lineage of recorded as reading the
    views (``read_through``); the others as they are. ``aliases``: the node (type, name) of each ``via``
    name that is another name of a dataset (``store.aliases.canonical``): that dataset's lineage."""
    views: dict[TableRef, ViewLineage | None] = {}
    out = []
    for event in events:
        for _ in range(len(event.via)):  # a view over a view: the inner one first, then the outer
            before = event
            for ref in event.via:
                if ref.database is None:  # a session's temporary view: no node, no lineage
                    continue
                if ref not in views:
                    held = (aliases or {}).get(_table_key(ref))
                    recorded = newest_writer_event(conn, held[1] if held else _table_key(ref))
                    ok = recorded is not None and recorded.source_command is SourceCommand.CREATE_VIEW
                    views[ref] = (
                        ViewLineage.of(recorded.target.table if held else ref, recorded)
                        if ok and recorded is not None
                        else None
                    )
                view = views[ref]
                if view is not None:
                    event = read_through(event, view, ref)
            if event is before:
                break
        out.append(event)
    return out
