"""The per-field view of an event: for each target column, its inputs as DIRECT / INDIRECT.

This is a second rendering of the facts already in the event, not a second extraction:

- DIRECT inputs are the ``inputs`` of the column's direct lineage entries (with their labels);
- INDIRECT inputs are the sources of the dataset-level entries (JOIN, FILTER, GROUP_BY, SORT,
  which apply to every column) and of the column's own WINDOW / CONDITIONAL entries, each tagged
  with the subtypes that brought it.

One input may be both DIRECT and INDIRECT. ``row_sources`` are the tables whose row sets the
column depends on, so a column with no input field (``COUNT(*)``) never reads as "no source".

>>> from headwater.extract import extract_script
>>> e = extract_script(
...     "INSERT INTO customer_summary SELECT customer_id, SUM(price * quantity) AS gross_amount, "
...     "COUNT(*) AS order_count FROM orders WHERE region = 'CN' GROUP BY customer_id", database="db"
... ).events[0]
>>> deps = field_dependencies(e)
>>> [(str(i.column.column), sorted(d.value for d in i.dependencies), i.subtypes)
...  for i in deps["order_count"].inputs]
[('region', ['INDIRECT'], ('FILTER',)), ('customer_id', ['INDIRECT'], ('GROUP_BY',))]
>>> deps["order_count"].origin.value, [t.name for t in deps["order_count"].row_sources]
('SYSTEM', ['orders'])
"""

from __future__ import annotations

from dataclasses import dataclass

from headwater.model.event import (
    DATASET_INDIRECT_TYPES,
    ColumnRef,
    Dependency,
    LineageInfo,
    Origin,
    TableRef,
)


@dataclass(frozen=True, slots=True)
class FieldInput:
    """One input field of a target column: how it is used, and what it passes through."""

    column: ColumnRef
    dependencies: frozenset[Dependency]
    subtypes: tuple[str, ...] = ()  # INDIRECT subtypes (JOIN, FILTER, …, WINDOW, CONDITIONAL)
    labels: tuple[str, ...] = ()  # DIRECT transformation labels
    masking: bool = False


@dataclass(frozen=True, slots=True)
class FieldLineage:
    target_column: str
    origin: Origin
    inputs: tuple[FieldInput, ...]
    row_sources: tuple[TableRef, ...]


def _origin(origins: list[Origin]) -> Origin:
    if Origin.COLUMN in origins:
        return Origin.COLUMN
    if Origin.SYSTEM in origins:
        return Origin.SYSTEM
    return Origin.CONSTANT


def field_dependencies(event: LineageInfo) -> dict[str, FieldLineage]:
    """Per target column, in target order: its DIRECT and INDIRECT inputs (see the module doc)."""
    dataset: dict[ColumnRef, list[str]] = {}
    for entry in event.dataset_indirect:
        if entry.type in DATASET_INDIRECT_TYPES:
            for ref in entry.sources:
                kinds = dataset.setdefault(ref, [])
                if entry.type.value not in kinds:
                    kinds.append(entry.type.value)
    out: dict[str, FieldLineage] = {}
    for field in event.target.columns:
        name = field.name
        direct = event.direct_for(name)
        labels: dict[ColumnRef, list[str]] = {}
        masked: dict[ColumnRef, bool] = {}
        for d in direct:
            for i in d.inputs:
                known = labels.setdefault(i.column, [])
                known.extend(x for x in i.labels if x not in known)
                masked[i.column] = masked.get(i.column, False) or i.masking
        indirect: dict[ColumnRef, list[str]] = {ref: list(kinds) for ref, kinds in dataset.items()}
        for entry in event.output_indirect_for(name):
            for ref in entry.sources:
                kinds = indirect.setdefault(ref, [])
                if entry.type.value not in kinds:
                    kinds.append(entry.type.value)
        inputs: list[FieldInput] = []
        for ref in [*labels, *(r for r in indirect if r not in labels)]:
            deps = set()
            if ref in labels:
                deps.add(Dependency.DIRECT)
            if ref in indirect:
                deps.add(Dependency.INDIRECT)
            inputs.append(
                FieldInput(
                    ref,
                    frozenset(deps),
                    tuple(indirect.get(ref, ())),
                    tuple(labels.get(ref, ())),
                    masked.get(ref, False),
                )
            )
        out[name] = FieldLineage(
            name,
            _origin([d.origin for d in direct]) if direct else Origin.COLUMN,
            tuple(inputs),
            event.sources,
        )
    return out
