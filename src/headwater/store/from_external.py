"""``record_lineage`` input (the seed's RecordLineageRequest) as ``Facts``.

With a ``pipeline_id`` the process node is the PIPELINE, or its PIPELINE_STEP (contained in the
PIPELINE) when ``step_id`` is given; inputs connect to it by READ (CONSUMES for entity-side inputs)
and it connects to outputs by WRITE (PRODUCES for entity-side outputs). Without a pipeline, each
input connects straight to each output by ``direct_edge_type``: ``metadata["edge_type"]`` when given,
else INFERRED_FROM into a REASONING, SUPPORTED_BY from a REASONING into a DECISION, USED_BY into a
REPORT or DECISION, DERIVED_FROM otherwise; those edges belong to their output, which plays the
job's part when it is recorded again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from headwater.model import qualified
from headwater.model.secrets import redact_document, redact_sql
from headwater.store.errors import InvalidInput
from headwater.store.facts import Facts, FactsBuilder, NodeKey
from headwater.store.names import now_us, to_us
from headwater.store.types import (
    DIRECT_EDGE_TYPES,
    ENTITY_TYPES,
    RECORDABLE_TYPES,
    TRANSFORM_TYPES,
    DatasetRef,
    EdgeType,
    ExecutionContext,
    FieldMapping,
    NodeType,
    TransformType,
)

_NS = uuid.UUID("9d3c7b1a-55e2-4f7a-9a0e-6c1f2e8b4d37")
EDGE_TYPE_KEY = "edge_type"
"""``metadata`` key choosing the edge of a recording without a pipeline (one of ``DIRECT_EDGE_TYPES``)."""


def direct_edge_type(source: str, target: str, chosen: str = "") -> EdgeType:
    """The edge from an input of type ``source`` to an output of type ``target`` without a pipeline.

    >>> direct_edge_type("ENTITY", "REASONING"), direct_edge_type("REASONING", "DECISION")
    (<EdgeType.INFERRED_FROM: 'INFERRED_FROM'>, <EdgeType.SUPPORTED_BY: 'SUPPORTED_BY'>)
    >>> direct_edge_type("DATASET", "DECISION"), direct_edge_type("DATASET", "DATASET", "TRIGGERED_BY")
    (<EdgeType.USED_BY: 'USED_BY'>, <EdgeType.TRIGGERED_BY: 'TRIGGERED_BY'>)
    """
    if chosen:
        return EdgeType(chosen)
    if target == NodeType.REASONING:
        return EdgeType.INFERRED_FROM
    if target == NodeType.DECISION and source == NodeType.REASONING:
        return EdgeType.SUPPORTED_BY
    if target in (NodeType.REPORT, NodeType.DECISION):
        return EdgeType.USED_BY
    return EdgeType.DERIVED_FROM


def _chosen_edge_type(metadata: Mapping[str, str], has_pipeline: bool) -> str:
    chosen = str(metadata.get(EDGE_TYPE_KEY, "")).strip().upper()
    if not chosen:
        return ""
    allowed = ", ".join(sorted(DIRECT_EDGE_TYPES))
    if chosen not in DIRECT_EDGE_TYPES:
        raise InvalidInput(f"metadata.{EDGE_TYPE_KEY}", f"{metadata[EDGE_TYPE_KEY]!r} is not one of {allowed}")
    if has_pipeline:
        raise InvalidInput(
            f"metadata.{EDGE_TYPE_KEY}", "applies without a pipeline only (a pipeline's edges are READ / WRITE)"
        )
    return chosen


def _ref(b: FactsBuilder, ref: DatasetRef, path: str) -> NodeKey:
    if not ref.name:
        raise InvalidInput(f"{path}.name", "missing")
    try:
        typ = NodeType(ref.type)
    except ValueError:
        typ = None
    if typ not in RECORDABLE_TYPES:
        allowed = ", ".join(sorted(RECORDABLE_TYPES))
        raise InvalidInput(
            f"{path}.type", f"{getattr(ref.type, 'value', ref.type)!r} is not a dataset or entity type ({allowed})"
        )
    key = b.dataset(ref.namespace or "default", *qualified.split(ref.name), type_=NodeType(ref.type).value)
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
    chosen = _chosen_edge_type(metadata, bool(context.pipeline_id))
    document = {
        "context": asdict(context),
        "inputs": [asdict(i) for i in inputs],
        "outputs": [asdict(o) for o in outputs],
        "field_mappings": [asdict(m) for m in field_mappings],
        "metadata": metadata,
    }
    identity = (
        f"{context.pipeline_id}\x1f{context.execution_id}\x1f{context.step_id}"
        if context.execution_id
        else json.dumps(document, sort_keys=True, default=str)  # the call as sent: its id as before
    )
    event_id = metadata.get("event_id") or "rl:" + str(uuid.uuid5(_NS, identity))
    stored = json.dumps(redact_document(document), sort_keys=True, default=str)  # no secret kept
    facts = Facts(event_id, "record", context.execution_id or event_id, t, status="COMPLETE", payload=stored)
    b = FactsBuilder(facts)
    ins = [_ref(b, r, f"inputs[{k}]") for k, r in enumerate(inputs)]
    outs = [_ref(b, r, f"outputs[{k}]") for k, r in enumerate(outputs)]
    if context.pipeline_id:
        props: dict[str, Any] = {"pipeline_id": context.pipeline_id}
        job = b.node(NodeType.PIPELINE, f"pipeline:{context.pipeline_id}", context.pipeline_id, properties=props)
        if context.step_id:
            job = b.node(
                NodeType.PIPELINE_STEP,
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
            for i in ins:
                b.edge(direct_edge_type(i[0], o[0], chosen), i, o, scope=o)
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
                expression=redact_sql(m.transform_expression) if m.transform_expression else None,
                labels=labels,
                masking=str(m.properties.get("masking", "")).lower() == "true",
                scope=None if facts.job else dst,
            )
    return facts
