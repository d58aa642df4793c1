"""A ``LineageInfo`` as an OpenLineage ``RunEvent`` (COMPLETE), built with openlineage-python's models.

Mapping (see ``docs/plugins.md``):

- inputs are the event's source tables, outputs its target, each named ``db.table`` (``catalog.db.table``
  outside the ``internal`` catalog) in ``namespace``; each carries a ``schema`` facet (the target's ordered
  columns with their types; for a source, the columns the statement reads);
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
>>> to_run_event(e).outputs[0].name
'db.t'
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    external_query_run,
    schema_dataset,
    sql_job,
)
from openlineage.client.serde import Serde

from headwater.model.event import ColumnRef, LineageInfo, TableRef

DEFAULT_PRODUCER = "https://github.com/headwater/headwater"
_RUN_NAMESPACE = uuid.UUID("0b7c5c1e-2f0a-4a55-8f0e-3d2a9c6b7e14")

_Key = tuple[str, str]  # (dataset name, field)


def dataset_name(table: TableRef) -> str:
    """``db.table``, prefixed with the catalog when it is not ``internal``."""
    return table.qualified if table.catalog == "internal" else f"{table.catalog}.{table.qualified}"


def run_id_for(event_id: str) -> str:
    """The run id of an event: its id when that is a UUID, else a UUID derived from it."""
    try:
        return str(uuid.UUID(event_id))
    except ValueError:
        return str(uuid.uuid5(_RUN_NAMESPACE, event_id))


class _InputFields:
    """Input fields in first-seen order, each with its de-duplicated transformations."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self._fields: dict[_Key, list[column_lineage_dataset.Transformation]] = {}

    def add(self, column: ColumnRef, transformation: column_lineage_dataset.Transformation) -> None:
        bucket = self._fields.setdefault((dataset_name(column.table), column.column), [])
        if transformation not in bucket:
            bucket.append(transformation)

    def build(self) -> list[column_lineage_dataset.InputField]:
        return [
            column_lineage_dataset.InputField(self.namespace, name, field, transformations=list(ts))
            for (name, field), ts in self._fields.items()
        ]


def _column_lineage(
    event: LineageInfo, namespace: str, producer: str
) -> column_lineage_dataset.ColumnLineageDatasetFacet:
    fields: dict[str, column_lineage_dataset.Fields] = {}
    for target in event.target.columns:
        inputs = _InputFields(namespace)
        for d in event.direct_for(target.name):
            for i in d.inputs:
                inputs.add(
                    i.column,
                    column_lineage_dataset.Transformation(
                        type="DIRECT", subtype=d.type.value, description=d.expression, masking=i.masking
                    ),
                )
        for ind in event.output_indirect_for(target.name):
            for c in ind.sources:
                inputs.add(
                    c,
                    column_lineage_dataset.Transformation(
                        type="INDIRECT", subtype=ind.type.value, description=ind.expression, masking=False
                    ),
                )
        built = inputs.build()
        if built:
            fields[target.name] = column_lineage_dataset.Fields(inputFields=built)
    dataset = _InputFields(namespace)
    for ind in event.dataset_indirect:
        for c in ind.sources:
            dataset.add(
                c,
                column_lineage_dataset.Transformation(
                    type="INDIRECT", subtype=ind.type.value, description=ind.expression, masking=False
                ),
            )
    return column_lineage_dataset.ColumnLineageDatasetFacet(fields=fields, dataset=dataset.build(), producer=producer)


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


def _schema(columns: Iterable[tuple[str, str | None]], producer: str) -> schema_dataset.SchemaDatasetFacet:
    return schema_dataset.SchemaDatasetFacet(
        fields=[schema_dataset.SchemaDatasetFacetFields(name=n, type=t) for n, t in columns],
        producer=producer,
    )


def to_run_event(event: LineageInfo, namespace: str = "headwater", producer: str = DEFAULT_PRODUCER) -> RunEvent:
    """The event as a COMPLETE ``RunEvent`` (job name: the target table, with the SQL as job facet)."""
    ctx = event.context
    inputs = [
        InputDataset(namespace, dataset_name(t), facets={"schema": _schema(((c, None) for c in cols), producer)})
        for t, cols in _read_columns(event).items()
    ]
    output = OutputDataset(
        namespace,
        dataset_name(event.target.table),
        facets={
            "schema": _schema(((f.name, f.type) for f in event.target.columns), producer),
            "columnLineage": _column_lineage(event, namespace, producer),
        },
    )
    run = Run(
        runId=run_id_for(event.event_id),
        facets={
            "externalQuery": external_query_run.ExternalQueryRunFacet(ctx.query_id, "headwater", producer=producer)
        },
    )
    job = Job(
        namespace,
        dataset_name(event.target.table),
        facets={"sql": sql_job.SQLJobFacet(query=ctx.sql, producer=producer)},
    )
    event_time = ctx.timestamp or datetime.now(UTC).isoformat()
    return RunEvent(
        eventTime=event_time,
        producer=producer,
        run=run,
        job=job,
        eventType=RunState.COMPLETE,
        inputs=inputs,
        outputs=[output],
    )


def run_event_json(event: LineageInfo, namespace: str = "headwater", producer: str = DEFAULT_PRODUCER) -> str:
    """The ``RunEvent`` as one line of JSON (openlineage-python's serialisation, keys sorted)."""
    return Serde.to_json(to_run_event(event, namespace=namespace, producer=producer))
