"""A headwater ``LineageInfo`` as ``Facts``.

- the job is ad-hoc SQL: its identity is the statement's fingerprint plus the target, unless the
  context's ``external_catalog_properties`` name one under ``headwater.job``;
- READ source dataset → job, WRITE job → target;
- MAPS_TO source field → target field: one DIRECT edge per direct input (subtype IDENTITY,
  TRANSFORMATION or AGGREGATION; labels and masking of the input), one INDIRECT edge per source of
  an output-level WINDOW / CONDITIONAL entry, and one INDIRECT edge per source of a dataset-level
  JOIN / FILTER / GROUP_BY / SORT entry to every target column.

A direct entry with origin COLUMN but no ``inputs`` (a producer that fills only ``sources``) uses
its sources as DIRECT inputs.
"""

from __future__ import annotations

from headwater.model import ColumnRef, Dependency, DirectInput, LineageInfo, Origin, TableRef, event_to_json
from headwater.store.facts import Facts, FactsBuilder, NodeKey
from headwater.store.names import now_us, short_of, sql_fingerprint, to_us
from headwater.store.types import EdgeType, NodeType

JOB_PROPERTY = "headwater.job"


def _dataset(b: FactsBuilder, t: TableRef) -> NodeKey:
    return b.dataset(t.catalog, t.database, t.name)


def job_name(event: LineageInfo, target: NodeKey) -> str:
    """The stable job identity of an event."""
    explicit = event.context.external_catalog_properties.get(JOB_PROPERTY)
    if explicit:
        return f"job:{explicit}"
    return f"sql:{sql_fingerprint(event.context.sql)}:{target[1]}"


def event_facts(event: LineageInfo) -> Facts:
    """Translate one event (no I/O)."""
    ctx = event.context
    t = to_us(ctx.timestamp) if ctx.timestamp else None
    facts = Facts(
        event_id=event.event_id,
        kind="headwater",
        run_key=event.event_id,
        event_us=t if t is not None else now_us(),
        status=event.status.value,
        payload=event_to_json(event),
    )
    b = FactsBuilder(facts)
    target = _dataset(b, event.target.table)
    name = job_name(event, target)
    job = b.node(
        NodeType.JOB,
        name,
        f"{short_of(target[1], field=False)}#{name.split(':')[1][:8]}",
        properties={"source_command": event.source_command.value, "sql": ctx.sql[:4000]},
    )
    facts.job = job
    datasets: dict[TableRef, NodeKey] = {event.target.table: target}
    fields: dict[ColumnRef, NodeKey] = {}

    def src_field(c: ColumnRef) -> NodeKey:
        key = fields.get(c)
        if key is None:
            ds = datasets.get(c.table)
            if ds is None:
                ds = datasets[c.table] = _dataset(b, c.table)
            key = fields[c] = b.field(ds, c.column)
        return key

    for s in event.sources:
        datasets.setdefault(s, _dataset(b, s))
    targets = {f.name: b.field(target, f.name) for f in event.target.columns}

    def tgt_field(column: str) -> NodeKey:
        key = targets.get(column)
        if key is None:
            key = targets[column] = b.field(target, column)
        return key

    for d in event.direct:
        dst = tgt_field(d.target_column)
        inputs = d.inputs
        if not inputs and d.origin == Origin.COLUMN:
            inputs = tuple(DirectInput(c) for c in d.sources)
        for i in inputs:
            b.edge(
                EdgeType.MAPS_TO,
                src_field(i.column),
                dst,
                subtype=d.type.value,
                dependency=Dependency.DIRECT.value,
                expression=d.expression,
                labels=tuple(i.labels),
                masking=i.masking,
            )
    for ind in event.output_indirect:
        if ind.target_column is None:
            continue
        dst = tgt_field(ind.target_column)
        for c in ind.sources:
            b.edge(
                EdgeType.MAPS_TO,
                src_field(c),
                dst,
                subtype=ind.type.value,
                dependency=Dependency.INDIRECT.value,
                expression=ind.expression,
            )
    all_targets = list(targets.values())
    for ind in event.dataset_indirect:
        for c in ind.sources:
            src = src_field(c)
            for dst in all_targets:
                b.edge(
                    EdgeType.MAPS_TO,
                    src,
                    dst,
                    subtype=ind.type.value,
                    dependency=Dependency.INDIRECT.value,
                    expression=ind.expression,
                )
    for table, ds in datasets.items():
        if table != event.target.table or table in event.sources:
            b.edge(EdgeType.READ, ds, job)
    b.edge(EdgeType.WRITE, job, target)
    return facts
