"""The governance layer end to end: a dataset → pipeline → entity → reasoning → decision chain
recorded through RecordLineage, then asked TraceOrigin and AnalyzeImpact."""

from __future__ import annotations

from typing import Any

from tests.service.grpc.conftest import RW, Apis

from headwater.service.grpc import governance_pb2 as gpb


def _groups(r: Any) -> dict[str, tuple[int, list[str], str]]:
    return {
        gpb.NodeType.Name(g.type): (g.count, list(g.sample_node_ids), gpb.ImpactSeverity.Name(g.severity))
        for g in r.groups
    }


def test_the_chain_is_recorded_with_the_seed_vocabulary(chained: Apis) -> None:
    g = chained.gov.GetLineage(
        gpb.GetLineageRequest(entity_id="crm.customers", direction=gpb.LINEAGE_DIRECTION_DOWNSTREAM, max_depth=5),
        metadata=RW,
    )
    by_id = {n.node_id: n for n in g.nodes}
    hops = sorted(
        (
            gpb.NodeType.Name(by_id[e.source_id].type),
            gpb.EdgeType.Name(e.type),
            gpb.NodeType.Name(by_id[e.target_id].type),
        )
        for e in g.edges
    )
    assert hops == [
        ("NODE_TYPE_DATASET", "EDGE_TYPE_READ", "NODE_TYPE_PIPELINE"),
        ("NODE_TYPE_ENTITY", "EDGE_TYPE_INFERRED_FROM", "NODE_TYPE_REASONING"),
        ("NODE_TYPE_PIPELINE", "EDGE_TYPE_PRODUCES", "NODE_TYPE_ENTITY"),
        ("NODE_TYPE_REASONING", "EDGE_TYPE_SUPPORTED_BY", "NODE_TYPE_DECISION"),
    ]
    # the pipeline costs no depth: the decision is three levels down
    assert {n.short_name: n.depth for n in g.nodes}["retention_offer"] == 3


def test_trace_origin_of_the_decision_reaches_the_crm_dataset(chained: Apis) -> None:
    t = chained.gov.TraceOrigin(gpb.TraceOriginRequest(entity_id="DECISION:domain.retention_offer"), metadata=RW)
    assert [(o.origin.name, o.system.name, o.depth) for o in t.origins] == [("crm.crm.customers", "crm", 3)]
    assert [s.name for s in t.source_systems] == ["crm"] and t.total_sources == 1
    assert [gpb.EdgeType.Name(e.type) for e in t.paths] == [
        "EDGE_TYPE_READ",
        "EDGE_TYPE_PRODUCES",
        "EDGE_TYPE_INFERRED_FROM",
        "EDGE_TYPE_SUPPORTED_BY",
    ]
    shallow = chained.gov.TraceOrigin(gpb.TraceOriginRequest(entity_id="retention_offer", max_depth=1), metadata=RW)
    assert [o.origin.short_name for o in shallow.origins] == []  # no root within one level: churn_risk has inputs
    assert shallow.total_sources == 0


def test_analyze_impact_follows_the_seed_scale(chained: Apis) -> None:
    drop = gpb.AnalyzeImpactRequest(target_id="crm.customers", change_type="SCHEMA_CHANGE")
    drop.change_details.update({"operation": "DROP_COLUMN", "columns": ["tenure"]})
    r = chained.gov.AnalyzeImpact(drop, metadata=RW)
    assert _groups(r) == {
        "NODE_TYPE_ENTITY": (1, ["domain.customer"], "IMPACT_SEVERITY_HIGH"),
        "NODE_TYPE_REASONING": (1, ["domain.churn_risk"], "IMPACT_SEVERITY_MEDIUM"),
        "NODE_TYPE_DECISION": (1, ["domain.retention_offer"], "IMPACT_SEVERITY_CRITICAL"),
        "NODE_TYPE_PIPELINE": (1, ["pipeline:scoring"], "IMPACT_SEVERITY_HIGH"),
    }
    assert (r.overall_severity, r.risk_level, r.total_affected_count) == (gpb.IMPACT_SEVERITY_CRITICAL, "critical", 4)
    update = gpb.AnalyzeImpactRequest(target_id="crm.customers", change_type="DATA_UPDATE")
    assert (
        _groups(chained.gov.AnalyzeImpact(update, metadata=RW))["NODE_TYPE_DECISION"][2] == "IMPACT_SEVERITY_CRITICAL"
    )
    comment = gpb.AnalyzeImpactRequest(target_id="crm.customers")
    comment.change_details.update({"operation": "COMMENT"})
    low = chained.gov.AnalyzeImpact(comment, metadata=RW)
    assert {g[2] for g in _groups(low).values()} == {"IMPACT_SEVERITY_LOW"}
    assert (low.overall_severity, low.risk_level) == (gpb.IMPACT_SEVERITY_LOW, "low")


def test_a_reasoning_computed_from_the_changed_column_is_high(chained: Apis) -> None:
    """By dependency: a REASONING that only filters on the updated column (INDIRECT) is MEDIUM; once
    one is computed from it (DIRECT) the REASONING group is HIGH, that one first."""
    src = gpb.DatasetRef(name="crm.customers", namespace="crm")

    def reasoning(name: str, expression: str, kind: int) -> None:
        out = gpb.DatasetRef(name=name, namespace="domain", type=gpb.NODE_TYPE_REASONING)
        mapping = gpb.FieldMapping(
            source_fields=[gpb.FieldRef(dataset=src, field="tenure")],
            target_field=gpb.FieldRef(dataset=out, field="value"),
            transform_expression=expression,
            transform_type=kind,
        )
        req = gpb.RecordLineageRequest(
            context=gpb.ExecutionContext(execution_id=name), inputs=[src], outputs=[out], field_mappings=[mapping]
        )
        assert chained.gov.RecordLineage(req, metadata=RW).recorded == 1

    def group() -> tuple[list[str], str]:
        req = gpb.AnalyzeImpactRequest(target_id="crm.customers.tenure", change_type="DATA_UPDATE")
        r = chained.gov.AnalyzeImpact(req, metadata=RW)
        (g,) = (g for g in r.groups if g.type == gpb.NODE_TYPE_REASONING)
        return list(g.sample_node_ids), gpb.ImpactSeverity.Name(g.severity)

    reasoning("loyal_flag", "tenure > 24", gpb.TRANSFORM_TYPE_FILTER)
    assert group() == (["domain.loyal_flag"], "IMPACT_SEVERITY_MEDIUM")
    reasoning("tenure_score", "tenure / 12.0", gpb.TRANSFORM_TYPE_EXPRESSION)
    assert group() == (["domain.tenure_score", "domain.loyal_flag"], "IMPACT_SEVERITY_HIGH")
