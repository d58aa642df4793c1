"""``record_lineage`` input (the seed's RecordLineageRequest) as ``Facts``.

With a ``pipeline_id`` the process node is the pipeline's JOB, or its STEP (contained in the JOB)
when ``step_id`` is given; inputs connect to it by READ (CONSUMES for entity-side inputs) and it
connects to outputs by WRITE (PRODUCES for entity-side outputs). Without a pipeline, each input
connects straight to each output: DERIVED_FROM, or USED_BY when the output is a REPORT or DECISION;
those edges belong to their output, which plays the job's part when it is recorded again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from headwater.store.errors import InvalidInput
from headwater.store.facts import Facts, FactsBuilder, NodeKey
from headwater.store.names import now_us, to_us
from headwater.store.types import (
    ENTITY_TYPES,
    TRANSFORM_TYPES,
    DatasetRef,
    EdgeType,
    ExecutionContext,
    FieldMapping,
    NodeType,
    TransformType,
)

_NS = uuid.UUID("9d3c7b1a-55e2-4f7a-9a0e-6c1f2e8b4d37")
_DATA_TYPES = {NodeType.DATASET, NodeType.EXTERNAL, *ENTITY_TYPES}


def _ref(b: FactsBuilder, ref: DatasetRef, path: str) -> NodeKey:
    if not ref.name:
        raise InvalidInput(f"{path}.name", "missing")
    if NodeType(ref.type) not in _DATA_TYPES:
        raise InvalidInput(f"{path}.type", f"{NodeType(ref.type).value!r} is not a dataset or entity type")
    key = b.dataset(ref.namespace or "default", *ref.name.split("."), type_=NodeType(ref.type).value)
    for f in ref.fields:
        b.field(key, f)
    return key


def lineage_facts(
    context: ExecutionContext,
    inputs: Sequence[DatasetRef],
    outputs: Sequence[DatasetRef],
    field_mappings: Sequence[FieldMapping] = (),
    metadata: Mapping[str, str] | None = None,
) -> Facts:
    """Translate one ``record_lineage`` call; raises ``InvalidInput`` naming the bad field."""
    metadata = dict(metadata or {})
    try:
        t = to_us(context.timestamp) if context.timestamp else now_us()
    except ValueError:
        raise InvalidInput("context.timestamp", f"not an ISO 8601 time: {context.timestamp!r}") from None
    assert t is not None
    payload = json.dumps(
        {
            "context": asdict(context),
            "inputs": [asdict(i) for i in inputs],
            "outputs": [asdict(o) for o in outputs],
            "field_mappings": [asdict(m) for m in field_mappings],
            "metadata": metadata,
        },
        sort_keys=True,
        default=str,
    )
    identity = (
        f"{context.pipeline_id}\x1f{context.execution_id}\x1f{context.step_id}" if context.execution_id else payload
    )
    event_id = metadata.get("event_id") or "rl:" + str(uuid.uuid5(_NS, identity))
    facts = Facts(event_id, "record", context.execution_id or event_id, t, status="COMPLETE", payload=payload)
    b = FactsBuilder(facts)
    ins = [_ref(b, r, f"inputs[{k}]") for k, r in enumerate(inputs)]
    outs = [_ref(b, r, f"outputs[{k}]") for k, r in enumerate(outputs)]
    if context.pipeline_id:
        props: dict[str, Any] = {"pipeline_id": context.pipeline_id}
        job = b.node(NodeType.JOB, f"pipeline:{context.pipeline_id}", context.pipeline_id, properties=props)
        if context.step_id:
            job = b.node(
                NodeType.STEP,
                f"pipeline:{context.pipeline_id}/{context.step_id}",
                context.step_name or context.step_id,
                parent=job,
                properties={"step_name": context.step_name},
            )
        facts.job = job
        for k in ins:
            b.edge(EdgeType.CONSUMES if k[0] in ENTITY_TYPES else EdgeType.READ, k, job)
        for k in outs:
            b.edge(EdgeType.PRODUCES if k[0] in ENTITY_TYPES else EdgeType.WRITE, job, k)
    else:
        for o in outs:
            kind = EdgeType.USED_BY if o[0] in (NodeType.REPORT, NodeType.DECISION) else EdgeType.DERIVED_FROM
            for i in ins:
                b.edge(kind, i, o, scope=o)
    for k, m in enumerate(field_mappings):
        path = f"field_mappings[{k}]"
        try:
            subtype, dependency = TRANSFORM_TYPES[TransformType(m.transform_type)]
        except ValueError:
            raise InvalidInput(f"{path}.transform_type", f"{m.transform_type!r} is not a TransformType") from None
        dst = b.field(_ref(b, m.target_field.dataset, f"{path}.target_field.dataset"), m.target_field.field)
        labels = ("UDF",) if m.transform_type == TransformType.UDF else ()
        for j, s in enumerate(m.source_fields):
            src = b.field(_ref(b, s.dataset, f"{path}.source_fields[{j}].dataset"), s.field)
            b.edge(
                EdgeType.MAPS_TO,
                src,
                dst,
                subtype=subtype,
                dependency=dependency,
                expression=m.transform_expression or None,
                labels=labels,
                masking=str(m.properties.get("masking", "")).lower() == "true",
                scope=None if facts.job else dst,
            )
    return facts
