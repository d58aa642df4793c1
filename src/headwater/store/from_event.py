"""A headwater ``LineageInfo`` as ``Facts``.

- the job is ad-hoc SQL: its identity is the statement's fingerprint plus the target, unless the
  context's ``external_catalog_properties`` name one under ``headwater.job``;
- READ source dataset → job, WRITE job → target;
- MAPS_TO source field → target field: one DIRECT edge per direct input (subtype IDENTITY,
  TRANSFORMATION or AGGREGATION; labels and masking of the input) and one INDIRECT edge per source
  of an output-level WINDOW / CONDITIONAL entry;
- a dataset-level JOIN / FILTER / GROUP_BY / SORT entry applies to every target column: it is stored
  once per source field (``FactsBuilder.indirect_all``: a MAPS_TO_ALL edge to the target dataset) and
  every query reads it as an INDIRECT MAPS_TO from that field to each target column.

Views are datasets: the event of a ``CREATE VIEW`` makes its target a dataset node with
``properties.dataset_type = VIEW``, and the view's columns map from its query as a table's do. An
event that read a view *through* (the Doris form: base tables in ``sources``, the view in ``via``)
also gets a READ of the view by its job; its column mappings stay on the base columns.
(``headwater ingest`` extracts with views as nodes, so its statements read the view's columns.)

A direct entry with no ``inputs`` has no DIRECT input, whatever its origin: ``CASE WHEN region =
'EAST' THEN 'CORE' ELSE 'OTHER' END`` depends on ``region`` only INDIRECTly (CONDITIONAL, an
output-level entry), and its ``sources`` are the guide's view of every column the expression reads.
"""

from __future__ import annotations

from dataclasses import replace

from headwater.model import ColumnRef, Dependency, LineageInfo, SourceCommand, TableRef, event_to_json
from headwater.model.event import DATASET_INDIRECT_TYPES
from headwater.model.job import (
    JOB_FILE_PROPERTY,
    JOB_LINE_PROPERTY,
    explicit_job_name,
    fallback_job_name,
    sql_fingerprint,
)
from headwater.model.secrets import is_redacted, redact_event
from headwater.store.errors import InvalidInput
from headwater.store.facts import Facts, FactsBuilder, Names, NodeKey, NodeSpec
from headwater.store.names import now_us, short_of, to_us
from headwater.store.nested import parent_edges
from headwater.store.types import EdgeType, NodeType

_DIRECT = Dependency.DIRECT.value
_INDIRECT = Dependency.INDIRECT.value
_MAPS_TO = EdgeType.MAPS_TO.value
_READ = EdgeType.READ.value
_WRITE = EdgeType.WRITE.value
_COMPACT_TYPES = frozenset(t.value for t in DATASET_INDIRECT_TYPES)


def job_name(event: LineageInfo, target: NodeKey) -> str:
    """The stable job identity of an event (``headwater.model.job`` says how producers name jobs)."""
    explicit = explicit_job_name(event.context.external_catalog_properties)
    if explicit:
        return f"job:{explicit}"
    return fallback_job_name(event.context.sql, target[1])


VIEW = "VIEW"
"""The ``dataset_type`` property of a dataset node that is a view."""


def _mark_view(facts: Facts, dataset: NodeKey) -> None:
    """Make ``dataset``'s node a view (``properties.dataset_type``) when this recording creates it."""
    spec = facts.nodes[dataset]
    facts.nodes[dataset] = replace(spec, properties={**(spec.properties or {}), "dataset_type": VIEW})


def event_facts(event: LineageInfo, names: Names | None = None, expand_indirect: bool = False) -> Facts:
    """Translate one event (no I/O). ``names`` caches normalised names across the events of a batch;
    ``expand_indirect`` stores dataset-level entries as one MAPS_TO per target column (the former
    layout, kept to check that both layouts answer every query alike)."""
    if not is_redacted(event):  # a producer that sent a statement's secrets: the store keeps none
        event = redact_event(event)  # (an event extraction made in this process was redacted there)
    ctx = event.context
    try:
        t = to_us(ctx.timestamp) if ctx.timestamp else None
        if ctx.timestamp is not None and not isinstance(ctx.timestamp, str):
            raise TypeError
    except (TypeError, ValueError):
        raise InvalidInput("context.timestamp", f"{ctx.timestamp!r} is not an ISO 8601 time") from None
    props = ctx.external_catalog_properties
    explicit = explicit_job_name(props)
    line = props.get(JOB_LINE_PROPERTY, "")
    sql = ctx.sql
    fingerprint = sql_fingerprint(sql) if sql else None
    facts = Facts(
        event_id=event.event_id,
        kind="headwater",
        # a named job's statement may write several targets (one event each): the events of one run
        # (one query id) add to each other, a later run replaces them
        run_key=f"query:{ctx.query_id}" if explicit and 0 < len(ctx.query_id) <= 200 else event.event_id,
        event_us=t if t is not None else now_us(),
        status=event.status.value,
        payload=event_to_json(event),
        fingerprint=fingerprint,
        file=props.get(JOB_FILE_PROPERTY) or None,
        line=int(line) if line.isdigit() else None,
    )
    b = FactsBuilder(facts, names)
    names = b.names
    nodes = facts.nodes
    tt = event.target.table
    target = b.dataset(tt.catalog, tt.database, tt.name)
    if event.source_command is SourceCommand.CREATE_VIEW:
        _mark_view(facts, target)
    if explicit:  # a given or file name says what the job is (``marts/fct_sales.sql#2``): it is the short name
        name = f"job:{explicit}"
        short = explicit.lower()[:512]
    else:  # ``fallback_job_name``, with the fingerprint made once: the target and the fingerprint's start
        digest = fingerprint if fingerprint is not None else sql_fingerprint(sql)
        name = f"sql:{digest}:{target[1]}"
        short = f"{short_of(target[1], field=False)}#{digest[:8]}"
    job = b.node(
        NodeType.JOB,
        name,
        short,
        properties={"source_command": event.source_command.value, "sql": sql[:4000]},
    )
    facts.job = job
    datasets: dict[TableRef, NodeKey] = {tt: target}
    # by id(): the table and column objects live as long as the event; a table's entry holds its
    # dataset and the dataset's fields by raw column name (``Names.of``)
    by_id: dict[int, tuple[NodeKey, dict[str, NodeSpec]]] = {}
    fields: dict[int, NodeKey] = {}
    edges = facts.edges
    append = edges.append

    def src_field(c: ColumnRef) -> NodeKey:
        ct = c.table
        hit = by_id.get(id(ct))
        if hit is None:
            ds = datasets.get(ct)
            if ds is None:
                ds = datasets[ct] = b.dataset(ct.catalog, ct.database, ct.name)
            hit = by_id[id(ct)] = (ds, names.of(ds))
        ds, known = hit
        column = c.column
        spec = known.get(column) or names.new_field(ds, column, known)
        key = fields[id(c)] = spec.key
        if key not in nodes:
            nodes[key] = spec
        if "." in column:  # a struct field: its column too (``store.nested``)
            parent_edges(b, ds, column)
        return key

    for s in event.sources:
        if s not in datasets:
            datasets[s] = b.dataset(s.catalog, s.database, s.name)
    own = names.of(target)
    targets: dict[str, NodeKey] = {}
    for f in event.target.columns:
        column = f.name
        spec = own.get(column) or names.new_field(target, column, own)
        key = targets[column] = spec.key
        if key not in nodes:
            nodes[key] = spec

    def tgt_field(column: str) -> NodeKey:
        key = targets.get(column)
        if key is None:
            key = targets[column] = b.field(target, column)
        return key

    field_of = fields.get
    for d in event.direct:
        dst = targets.get(d.target_column) or tgt_field(d.target_column)
        subtype = d.type._value_
        expression = d.expression
        for i in d.inputs:
            c = i.column
            labels = i.labels
            append(
                (
                    _MAPS_TO,
                    field_of(id(c)) or src_field(c),
                    dst,
                    subtype,
                    _DIRECT,
                    expression,
                    (",".join(labels) or None) if labels else None,
                    i.masking,
                    None,
                )
            )
    out_types = set()
    for ind in event.output_indirect:
        if ind.target_column is None:
            continue
        dst = tgt_field(ind.target_column)
        subtype = ind.type._value_
        out_types.add(subtype)
        expression = ind.expression
        for c in ind.sources:
            append((_MAPS_TO, field_of(id(c)) or src_field(c), dst, subtype, _INDIRECT, expression, None, False, None))
    all_targets = list(targets.values())
    b.written(target, all_targets)
    for ind in event.dataset_indirect:
        subtype = ind.type._value_
        if subtype in _COMPACT_TYPES and subtype not in out_types:
            for c in ind.sources:
                b.indirect_all(field_of(id(c)) or src_field(c), target, subtype, ind.expression)
        else:  # a type that also maps column-level: one edge per target column, as it always was
            for c in ind.sources:
                src = field_of(id(c)) or src_field(c)
                for dst in all_targets:
                    append((_MAPS_TO, src, dst, subtype, _INDIRECT, ind.expression, None, False, None))
    b.finish(expand=expand_indirect)
    read = _READ
    sources = event.sources
    for table, ds in datasets.items():
        if table != tt or table in sources:
            append((read, ds, job, None, None, None, None, False, None))
    for view in event.via:  # read through (the Doris form): the view is an input of the job too
        if view.database is not None and view not in datasets:  # not a session's temporary view
            ds = datasets[view] = b.dataset(view.catalog, view.database, view.name)
            _mark_view(facts, ds)
            append((read, ds, job, None, None, None, None, False, None))
    append((_WRITE, job, target, None, None, None, None, False, None))
    return facts
