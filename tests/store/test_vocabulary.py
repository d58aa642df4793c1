"""The seed's whole vocabulary in the store: PIPELINE / PIPELINE_STEP for reported pipelines (and
the migration that retypes older stores), REASONING and SCHEMA nodes, and the entity-centric edges
``record_lineage`` draws without a pipeline."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import select
from tests.pg_schema import fresh_schema_url

from headwater.store import (
    DatasetRef,
    ExecutionContext,
    InvalidInput,
    LineageStore,
    NodeType,
    open_store,
)
from headwater.store.engine import make_engine
from headwater.store.migrate import head_revision, upgrade
from headwater.store.schema import nodes

ENTITY = DatasetRef("customer", "domain", NodeType.ENTITY)
REASONING = DatasetRef("churn_risk", "domain", NodeType.REASONING)
DECISION = DatasetRef("retention_offer", "domain", NodeType.DECISION)


def _hops(store: LineageStore, node: str) -> list[tuple[str, str, str]]:
    g = store.get_downstream(node, max_depth=10)
    by_id = {n.id: n for n in g.nodes}
    return sorted((by_id[e.source].short, e.type, by_id[e.target].short) for e in g.edges)


def test_pipelines_and_steps_have_their_own_types(store: LineageStore) -> None:
    raw = DatasetRef("raw.orders", "pg")
    store.record_lineage(ExecutionContext("etl", "e-1"), [raw], [ENTITY])
    store.record_lineage(ExecutionContext("etl", "e-1", "load", "Load"), [raw], [DatasetRef("mart.revenue", "dw")])
    g = store.get_downstream("raw.orders")
    assert {(n.type, n.name) for n in g.nodes if n.type != "DATASET"} == {
        ("PIPELINE", "pipeline:etl"),
        ("PIPELINE_STEP", "pipeline:etl/load"),
        ("ENTITY", "domain.customer"),
    }
    # a pipeline (or its step) is a process: it costs no level of depth, and can be deleted as a job
    assert {n.short: n.depth for n in g.nodes}["customer"] == 1
    # 'pipeline:etl' is the pipeline's full name, though PIPELINE: is also a type prefix
    assert store.resolve("pipeline:etl") == store.resolve("PIPELINE:pipeline:etl")
    assert store.delete_lineage(job="pipeline:etl/load").edges_closed == 2  # a step alone
    store.record_lineage(ExecutionContext("etl", "e-2", "load", "Load"), [raw], [DatasetRef("mart.revenue", "dw")])
    # a pipeline closes its steps with it (issue 38 item 5): its own 2 edges and the step's 2
    assert store.delete_lineage(job="PIPELINE:pipeline:etl").edges_closed == 4


def test_entity_centric_edges_without_a_pipeline(store: LineageStore) -> None:
    store.record_lineage(ExecutionContext("", "a"), [ENTITY], [REASONING])
    store.record_lineage(ExecutionContext("", "b"), [REASONING], [DECISION])
    schema = DatasetRef("contracts.customer_v2", "registry", NodeType.SCHEMA)
    store.record_lineage(ExecutionContext("", "c"), [schema], [ENTITY], metadata={"edge_type": "transformed_by"})
    store.record_lineage(
        ExecutionContext("", "d"), [DECISION], [DatasetRef("crm.offers", "crm")], metadata={"edge_type": "TRIGGERED_BY"}
    )
    assert _hops(store, "SCHEMA:registry.contracts.customer_v2") == [
        ("churn_risk", "SUPPORTED_BY", "retention_offer"),
        ("customer", "INFERRED_FROM", "churn_risk"),
        ("customer_v2", "TRANSFORMED_BY", "customer"),
        ("retention_offer", "TRIGGERED_BY", "offers"),
    ]
    stats = store.get_lineage_stats()
    assert stats.nodes_by_type["SCHEMA"] == 1 and stats.nodes_by_type["REASONING"] == 1
    assert {t: stats.edges_by_type[t] for t in ("TRANSFORMED_BY", "INFERRED_FROM", "SUPPORTED_BY", "TRIGGERED_BY")} == {
        "TRANSFORMED_BY": 1,
        "INFERRED_FROM": 1,
        "SUPPORTED_BY": 1,
        "TRIGGERED_BY": 1,
    }


def test_a_chosen_edge_type_is_checked(store: LineageStore) -> None:
    with pytest.raises(InvalidInput) as bad:
        store.record_lineage(ExecutionContext("", "x"), [ENTITY], [REASONING], metadata={"edge_type": "READ"})
    assert bad.value.field == "metadata.edge_type"
    assert "is not one of DERIVED_FROM, INFERRED_FROM, SUPPORTED_BY, TRANSFORMED_BY, TRIGGERED_BY, USED_BY" in str(
        bad.value
    )
    with pytest.raises(InvalidInput) as bad:
        store.record_lineage(ExecutionContext("p", "x"), [ENTITY], [REASONING], metadata={"edge_type": "DERIVED_FROM"})
    assert bad.value.field == "metadata.edge_type" and "without a pipeline only" in str(bad.value)
    with pytest.raises(InvalidInput) as bad:
        store.record_lineage(ExecutionContext("p", "x"), [DatasetRef("x", type=NodeType.PIPELINE)], [])
    assert bad.value.field == "inputs[0].type"
    assert store.get_lineage_stats().events_recorded == 0


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_migration_0003_retypes_reported_pipelines_and_steps(backend: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'old.db'}"
            if backend == "sqlite"
            else stack.enter_context(fresh_schema_url("hw_voc"))
        )
        engine = make_engine(url)
        stack.callback(engine.dispose)
        assert upgrade(engine, "0002") == "0002"
        with engine.begin() as conn:  # what record_lineage wrote before revision 0003
            for typ, name, short in (
                ("JOB", "pipeline:etl", "etl"),
                ("STEP", "pipeline:etl/load", "load"),
                ("JOB", "sql:abc:internal.db.t", "t"),
            ):
                conn.execute(nodes.insert().values(type=typ, name=name, short=short, created_us=1))
        assert upgrade(engine) == head_revision()  # 0003 and every later revision
        with engine.connect() as conn:
            rows = conn.execute(select(nodes.c.id, nodes.c.type).order_by(nodes.c.id)).all()
        assert [r.type for r in rows] == ["PIPELINE", "PIPELINE_STEP", "JOB"]
        store = open_store(url)
        stack.callback(store.close)
        # re-recording the pipeline step finds the retyped node: no second node for the same step
        store.record_lineage(ExecutionContext("etl", "e-2", "load"), [DatasetRef("raw.orders", "pg")], [])
        assert store.get_lineage_stats().nodes_by_type["PIPELINE_STEP"] == 1
