"""A ``LineageInfo`` as OpenLineage ``RunEvent``\\ s, built with openlineage-python's models.

Mapping (``docs/event-format.md``, "OpenLineage"):

- datasets are named per the OpenLineage naming spec by an ``OpenLineageNaming`` (catalog → namespace,
  ``db.table`` names): inputs are the event's source tables, the output its target; each carries a
  ``schema`` facet (the target's ordered columns with their types; for a source, the columns the
  statement reads, typed when a catalog is given);
- the job is ``job_namespace`` / the statement's job identity (``headwater.model.job``: a given name,
  ``file#ordinal``, else the fingerprint and target), with the ``sql`` and ``jobType`` facets
  (BATCH, the engine as integration, QUERY);
- the run carries ``externalQuery`` (the query id, the engine as source), ``processing_engine``
  (engine, its version where known, headwater's version as the adapter's) and the ``headwater`` facet:
  the event's query context, status and diagnostics, and what the store needs to restore the event
  exactly (``headwater_event``);
- the output's ``columnLineage`` facet has, per target column, the DIRECT inputs of its value (subtype
  IDENTITY / TRANSFORMATION / AGGREGATION, the expression as ``description``, ``masking`` from the input)
  and its INDIRECT WINDOW / CONDITIONAL inputs; the dataset-level JOIN / FILTER / GROUP_BY / SORT inputs
  go in the facet's ``dataset`` list as INDIRECT with that subtype;
- the run id is the event id when that is a UUID (it is derived from query id + target table), otherwise a
  UUID derived from it: the same event always gives the same run id, so receivers can deduplicate.

>>> from headwater.dispatch.sample import tiny_event
>>> e = tiny_event("q1")
>>> to_run_event(e).run.runId == e.event_id
True
>>> to_run_event(e).outputs[0].name, to_run_event(e).job.name
('db.t', 'db.t')
>>> [r.eventType.value for r in to_run_events(e, lifecycle=START_COMPLETE)]
['START', 'COMPLETE']
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import attr
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    RunFacet,
    column_lineage_dataset,
    error_message_run,
    external_query_run,
    job_type_job,
    processing_engine_run,
    schema_dataset,
    sql_job,
)
from openlineage.client.serde import Serde

from headwater import __version__
from headwater.model.codec import event_to_dict_head_and_tail, table_to_dict
from headwater.model.event import ColumnRef, LineageInfo, TableRef
from headwater.model.job import explicit_job_name
from headwater.model.ol_naming import OpenLineageNaming, event_place

DEFAULT_PRODUCER = "https://github.com/headwater/headwater"
HEADWATER_FACET = "headwater"
"""The run facet's key in ``run.facets``."""
HEADWATER_FACET_SCHEMA = "HeadwaterRunFacet.json"
"""The facet's JSON Schema, shipped in this package (``headwater_facet_schema()``)."""
HEADWATER_FACET_SCHEMA_URL = (
    "https://github.com/headwater/headwater/spec/facets/1-0-0/HeadwaterRunFacet.json#/$defs/HeadwaterRunFacet"
)
ENGINE_PROPERTY = "headwater.engine"
"""``external_catalog_properties`` key a producer may set: the engine that ran the statement."""
ENGINE_VERSION_PROPERTY = "headwater.engine.version"
UNKNOWN_VERSION = "unknown"
COMPLETE_ONLY, START_COMPLETE = "complete", "start"
LIFECYCLES = (COMPLETE_ONLY, START_COMPLETE)
DEFAULT_LIFECYCLE = START_COMPLETE
"""A run is START then COMPLETE / FAIL (the spec's lifecycle); ``complete`` is one event per run."""
FAILED_STATES = frozenset({"ERR", "ERROR", "FAIL", "FAILED", "ABORTED", "CANCELLED", "CANCELED", "KILLED"})
"""``QueryContext.state`` values of a statement that did not succeed (an audit log's ``ERR``)."""
_RUN_NAMESPACE = uuid.UUID("0b7c5c1e-2f0a-4a55-8f0e-3d2a9c6b7e14")

_Key = tuple[str, str, str]  # (dataset namespace, dataset name, field)


def headwater_facet_schema() -> str:
    """The text of the headwater run facet's JSON Schema."""
    from importlib.resources import files

    return files("headwater.model").joinpath(HEADWATER_FACET_SCHEMA).read_text(encoding="utf-8")


@attr.define
class HeadwaterRunFacet(RunFacet):
    """What headwater knew about the run beyond the standard facets (``docs/event-format.md``).

    ``event``: the headwater event without its lineage lists (version, event id, source command,
    status, target, sources, via, context, diagnostics); ``job``: the job identity (name, file, line);
    ``datasets``: the headwater table of each OpenLineage dataset the event names; ``labels``: the
    transformation labels of DIRECT inputs (``column``, index of the input field and of its
    transformation in ``columnLineage``).
    """

    event: dict[str, Any]
    job: dict[str, Any]
    datasets: list[dict[str, Any]] = attr.field(factory=list)
    labels: list[dict[str, Any]] = attr.field(factory=list)

    @staticmethod
    def _get_schema() -> str:
        return HEADWATER_FACET_SCHEMA_URL


def dataset_name(table: TableRef) -> str:
    """``db.table``, prefixed with the catalog when it is not ``internal`` (the default naming)."""
    return OpenLineageNaming().dataset(table)[1]


def run_id_for(event_id: str) -> str:
    """The run id of an event: its id when that is a UUID, else a UUID derived from it."""
    try:
        return str(uuid.UUID(event_id))
    except ValueError:
        return str(uuid.uuid5(_RUN_NAMESPACE, event_id))


def job_name_of(event: LineageInfo) -> str:
    """The OpenLineage job name: the name the statement was given (``headwater.model.job``: ``-- name:``,
    a project's ``FILE#N``, a producer's ``headwater.job``), else the spec's SQL job naming — the
    output's ``{schema}.{table}`` (``db.table``; ``catalog.db.table`` outside ``internal``), stable
    whatever the statement's text."""
    props = event.context.external_catalog_properties
    return explicit_job_name(props) or sql_job_name(event.target.table)


def sql_job_name(table: TableRef) -> str:
    """The OpenLineage SQL job name of a statement writing ``table`` (no name given).

    >>> sql_job_name(TableRef("internal", "Sales", "Orders")), sql_job_name(TableRef("hive", "s", "t"))
    ('sales.orders', 'hive.s.t')
    """
    parts = (table.catalog, table.database, table.name) if table.catalog != "internal" else (table.database, table.name)
    return ".".join(p for p in parts if p).lower()


def engine_of(event: LineageInfo, engine: str | None = None) -> tuple[str, str | None]:
    """The engine that ran the statement (upper case) and its version, where known: ``engine`` when
    given (a setting, ``--dialect``), else the event's ``headwater.engine`` (a hook sets it), else Doris.

    >>> from headwater.dispatch.sample import tiny_event
    >>> engine_of(tiny_event("q")), engine_of(tiny_event("q"), "postgres")
    (('DORIS', None), ('POSTGRES', None))
    """
    props = event.context.external_catalog_properties
    seen = props.get(ENGINE_PROPERTY)
    name = (engine or seen or "doris").upper()
    version = props.get(ENGINE_VERSION_PROPERTY) if seen and seen.upper() == name else None
    return name, version or None


class _Names:
    """OpenLineage names of an event's tables, remembering each one's headwater table."""

    def __init__(self, event: LineageInfo, naming: OpenLineageNaming) -> None:
        self.naming = naming
        self.place = event_place(event.context.external_catalog_properties)
        self.seen: dict[TableRef, tuple[str, str]] = {}

    def of(self, table: TableRef) -> tuple[str, str]:
        hit = self.seen.get(table)
        if hit is None:
            hit = self.seen[table] = self.naming.dataset(table, self.place)
        return hit

    def facet_rows(self) -> list[dict[str, Any]]:
        return [{"namespace": ns, "name": n, "table": table_to_dict(t)} for t, (ns, n) in self.seen.items()]


class _InputFields:
    """Input fields in first-seen order, each with its de-duplicated transformations and their labels."""

    def __init__(self, names: _Names) -> None:
        self.names = names
        self._fields: dict[_Key, list[column_lineage_dataset.Transformation]] = {}
        self._labels: dict[tuple[_Key, int], list[str]] = {}

    def add(
        self, column: ColumnRef, transformation: column_lineage_dataset.Transformation, labels: Iterable[str] = ()
    ) -> None:
        ns, name = self.names.of(column.table)
        key = (ns, name, column.column)
        bucket = self._fields.setdefault(key, [])
        if transformation not in bucket:
            bucket.append(transformation)
        labels = list(labels)
        if labels:
            have = self._labels.setdefault((key, bucket.index(transformation)), [])
            have.extend(x for x in labels if x not in have)

    def build(self) -> list[column_lineage_dataset.InputField]:
        return [
            column_lineage_dataset.InputField(ns, name, field, transformations=list(ts))
            for (ns, name, field), ts in self._fields.items()
        ]

    def labels(self, column: str) -> list[dict[str, Any]]:
        index = {key: k for k, key in enumerate(self._fields)}
        return [
            {"column": column, "input": index[key], "transformation": t, "labels": labels}
            for (key, t), labels in self._labels.items()
        ]


def _transformation(type_: str, subtype: str, description: str, masking: bool) -> Any:
    return column_lineage_dataset.Transformation(type=type_, subtype=subtype, description=description, masking=masking)


def _column_lineage(
    event: LineageInfo, names: _Names, producer: str
) -> tuple[column_lineage_dataset.ColumnLineageDatasetFacet, list[dict[str, Any]]]:
    fields: dict[str, column_lineage_dataset.Fields] = {}
    labels: list[dict[str, Any]] = []
    for target in event.target.columns:
        inputs = _InputFields(names)
        for d in event.direct_for(target.name):
            for i in d.inputs:
                inputs.add(i.column, _transformation("DIRECT", d.type.value, d.expression, i.masking), i.labels)
        for ind in event.output_indirect_for(target.name):
            for c in ind.sources:
                inputs.add(c, _transformation("INDIRECT", ind.type.value, ind.expression, False))
        built = inputs.build()
        if built:
            fields[target.name] = column_lineage_dataset.Fields(inputFields=built)
            labels.extend(inputs.labels(target.name))
    dataset = _InputFields(names)
    for ind in event.dataset_indirect:
        for c in ind.sources:
            dataset.add(c, _transformation("INDIRECT", ind.type.value, ind.expression, False))
    facet = column_lineage_dataset.ColumnLineageDatasetFacet(fields=fields, dataset=dataset.build(), producer=producer)
    return facet, labels


def _read_columns(event: LineageInfo) -> dict[TableRef, list[str]]:
    """The columns the statement reads, per source table, in first-seen order."""
    seen: dict[TableRef, list[str]] = {t: [] for t in event.sources}
    refs: Iterable[ColumnRef] = (
        c
        for group in (
            (c for d in event.direct for c in d.sources),
            (c for i in event.output_indirect for c in i.sources),
            (c for i in event.dataset_indirect for c in i.sources),
        )
        for c in group
    )
    for c in refs:
        cols = seen.setdefault(c.table, [])
        if c.column not in cols:
            cols.append(c.column)
    return seen


def _schema(
    columns: Iterable[tuple[str, str | None]], producer: str, nested: bool = False
) -> schema_dataset.SchemaDatasetFacet:
    """The schema facet of ``columns``; ``nested``: a struct field read (``asset.id``, see
    ``extract.columns.struct_field``) is the field ``id`` nested in the column ``asset``."""
    if not nested:
        fields = [schema_dataset.SchemaDatasetFacetFields(name=n, type=t) for n, t in columns]
        return schema_dataset.SchemaDatasetFacet(fields=fields, producer=producer)
    tree: dict[str, Any] = {}  # name -> [type, children]
    for name, type_ in columns:
        level = tree
        parts = name.split(".")
        for k, part in enumerate(parts):
            node = level.setdefault(part, [None, {}])
            if k == len(parts) - 1:
                node[0] = type_ or node[0]
            level = node[1]

    def build(level: dict[str, Any]) -> list[schema_dataset.SchemaDatasetFacetFields]:
        return [
            schema_dataset.SchemaDatasetFacetFields(name=n, type=t, **({"fields": build(kids)} if kids else {}))
            for n, (t, kids) in level.items()
        ]

    return schema_dataset.SchemaDatasetFacet(fields=build(tree), producer=producer)


def _types(catalog: Any, table: TableRef) -> Mapping[str, str | None]:
    if catalog is None:
        return {}
    try:
        schema = catalog.table(table)
    except Exception:  # a live catalog that cannot answer: names without types
        return {}
    return {c.name.lower(): c.type for c in schema.columns} if schema is not None else {}


def _job(event: LineageInfo, naming: OpenLineageNaming, engine: str, producer: str) -> Job:
    return Job(
        naming.job_namespace,
        job_name_of(event),
        facets={
            "sql": sql_job.SQLJobFacet(query=event.context.sql, dialect=engine.lower(), producer=producer),
            "jobType": job_type_job.JobTypeJobFacet(
                processingType="BATCH", integration=engine, jobType="QUERY", producer=producer
            ),
        },
    )


def _job_identity(event: LineageInfo) -> dict[str, Any]:
    props = event.context.external_catalog_properties
    out: dict[str, Any] = {"name": job_name_of(event)}
    if props.get("headwater.job.file"):
        out["file"] = props["headwater.job.file"]
    if props.get("headwater.job.line"):
        out["line"] = props["headwater.job.line"]
    return out


def _run_facets(
    event: LineageInfo, engine: str, version: str | None, producer: str, headwater: HeadwaterRunFacet | None
) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "externalQuery": external_query_run.ExternalQueryRunFacet(
            event.context.query_id, engine.lower(), producer=producer
        ),
        "processing_engine": processing_engine_run.ProcessingEngineRunFacet(
            version=version or UNKNOWN_VERSION, name=engine, openlineageAdapterVersion=__version__, producer=producer
        ),
    }
    if headwater is not None:
        facets[HEADWATER_FACET] = headwater
    return facets


def to_run_event(
    event: LineageInfo,
    namespace: str | None = None,
    producer: str = DEFAULT_PRODUCER,
    naming: OpenLineageNaming | None = None,
    event_type: RunState = RunState.COMPLETE,
    engine: str | None = None,
    catalog: Any = None,
) -> RunEvent:
    """The event as a ``RunEvent`` (COMPLETE unless ``event_type`` says START).

    ``naming`` places catalogs in namespaces (``namespace`` alone: every table in that one namespace);
    ``engine`` names the engine (else the event's ``headwater.engine``, else Doris: ``engine_of``);
    ``catalog`` (a ``Catalog``) types the input schema facets.
    """
    if naming is None:
        naming = OpenLineageNaming(default_namespace=namespace or "headwater", job_namespace=namespace or "headwater")
    ctx = event.context
    names = _Names(event, naming)
    engine_name, engine_version = engine_of(event, engine)
    inputs = []
    for t, cols in _read_columns(event).items():
        types = _types(catalog, t)
        ns, name = names.of(t)
        facets = {"schema": _schema(((c, types.get(c.lower())) for c in cols), producer, nested=True)}
        inputs.append(InputDataset(ns, name, facets=facets))
    out_ns, out_name = names.of(event.target.table)
    complete = event_type == RunState.COMPLETE
    out_facets: dict[str, Any] = {"schema": _schema(((f.name, f.type) for f in event.target.columns), producer)}
    labels: list[dict[str, Any]] = []
    if complete:
        out_facets["columnLineage"], labels = _column_lineage(event, names, producer)
    for t in (*event.sources, *event.via):
        names.of(t)
    head, tail = event_to_dict_head_and_tail(event)
    headwater = HeadwaterRunFacet(
        event={**head, **tail}, job=_job_identity(event), datasets=names.facet_rows(), labels=labels, producer=producer
    )
    return RunEvent(
        eventTime=ctx.timestamp or datetime.now(UTC).isoformat(),
        producer=producer,
        run=Run(
            runId=run_id_for(event.event_id),
            facets=_run_facets(event, engine_name, engine_version, producer, headwater),
        ),
        job=_job(event, naming, engine_name, producer),
        eventType=event_type,
        inputs=inputs,
        outputs=[OutputDataset(out_ns, out_name, facets=out_facets)],
    )


def to_run_events(
    event: LineageInfo,
    naming: OpenLineageNaming | None = None,
    producer: str = DEFAULT_PRODUCER,
    lifecycle: str = COMPLETE_ONLY,
    engine: str | None = None,
    catalog: Any = None,
) -> list[RunEvent]:
    """The run's events: COMPLETE, or START then COMPLETE (same run id) with ``lifecycle="start"``.

    START carries the job, the inputs and the output with their schemas, no column lineage; its time
    is the statement's start (event time minus duration, when the duration is known). A statement
    whose context says it failed (``state`` in ``FAILED_STATES``) ends in FAIL instead of COMPLETE.
    """
    if lifecycle not in LIFECYCLES:
        raise ValueError(f"lifecycle must be one of {', '.join(LIFECYCLES)}, got {lifecycle!r}")
    kw: dict[str, Any] = {"naming": naming, "producer": producer, "engine": engine, "catalog": catalog}
    state = (event.context.state or "").upper()
    if state in FAILED_STATES:
        message = f"the statement failed (state {event.context.state})"
        return failed_run_events(event, message, naming=naming, producer=producer, engine=engine, lifecycle=lifecycle)
    complete = to_run_event(event, **kw)
    if lifecycle == COMPLETE_ONLY:
        return [complete]
    return [start_run_event(event, complete.eventTime, **kw), complete]


def start_run_event(event: LineageInfo, end_time: str, **kw: Any) -> RunEvent:
    """The START of ``event``'s run: its time the statement's start (``end_time`` minus the duration)."""
    start = to_run_event(event, event_type=RunState.START, **kw)
    return attr.evolve(start, eventTime=_start_time(end_time, event.context.duration_ms))


def failed_run_events(
    event: LineageInfo,
    error: str,
    naming: OpenLineageNaming | None = None,
    producer: str = DEFAULT_PRODUCER,
    engine: str | None = None,
    lifecycle: str = COMPLETE_ONLY,
) -> list[RunEvent]:
    """FAIL (``failed_run_event``), after its START with ``lifecycle="start"`` (same run id)."""
    fail = failed_run_event(event, error, naming=naming, producer=producer, engine=engine)
    if lifecycle == COMPLETE_ONLY:
        return [fail]
    start = start_run_event(event, fail.eventTime, naming=naming, producer=producer, engine=engine)
    return [start, fail]


def _start_time(end: str, duration_ms: int) -> str:
    if duration_ms <= 0:
        return end
    try:
        t = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return end
    from datetime import timedelta

    return (t - timedelta(milliseconds=duration_ms)).isoformat()


def failed_run_event(
    event: LineageInfo,
    error: str,
    naming: OpenLineageNaming | None = None,
    producer: str = DEFAULT_PRODUCER,
    engine: str | None = None,
) -> RunEvent:
    """A FAIL ``RunEvent`` for a statement the database rejected: the job and the error, no lineage.

    ``event`` is what extraction made of the statement (for its job identity and context); its
    run id is the one a success would have had.
    """
    naming = naming or OpenLineageNaming()
    engine_name, engine_version = engine_of(event, engine)
    head, tail = event_to_dict_head_and_tail(event)
    headwater = HeadwaterRunFacet(event={**head, **tail}, job=_job_identity(event), producer=producer)
    facets = _run_facets(event, engine_name, engine_version, producer, headwater)
    facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
        message=error, programmingLanguage="SQL", producer=producer
    )
    return RunEvent(
        eventTime=event.context.timestamp or datetime.now(UTC).isoformat(),
        producer=producer,
        run=Run(runId=run_id_for(event.event_id), facets=facets),
        job=_job(event, naming, engine_name, producer),
        eventType=RunState.FAIL,
        inputs=[],
        outputs=[],
    )


def run_event_json(
    event: LineageInfo | RunEvent,
    namespace: str | None = None,
    producer: str = DEFAULT_PRODUCER,
    naming: OpenLineageNaming | None = None,
    **kw: Any,
) -> str:
    """A ``RunEvent`` (or the COMPLETE one of ``event``) as one line of JSON (openlineage-python's
    serialisation, keys sorted)."""
    if isinstance(event, RunEvent):
        return Serde.to_json(event)
    return Serde.to_json(to_run_event(event, namespace=namespace, producer=producer, naming=naming, **kw))
