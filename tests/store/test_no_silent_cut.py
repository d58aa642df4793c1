"""Issue 36, item 1: a traversal answer says what the depth, the node cap or a type filter left out."""

from __future__ import annotations

from tests.store.helpers import record_sql

from headwater.store import LineageStore

CHAIN = ";\n".join(f"INSERT INTO w.t{i + 1} SELECT v FROM w.t{i}" for i in range(7))  # t0 → t1 → … → t7


def test_a_chain_cut_by_the_default_depth_is_truncated_with_what_lies_beyond(store: LineageStore):
    record_sql(store, CHAIN)
    g = store.get_downstream("w.t0")  # depth 3: t1, t2, t3
    assert [n.short for n in g.nodes if n.type == "DATASET"] == ["t0", "t1", "t2", "t3"]
    assert g.truncated and g.cut_by == ["depth"]
    assert g.more_by_type == {"DATASET": 4, "JOB": 4} and g.more_at_depth == 8
    assert g.depth_needed == 7
    typed = store.get_downstream("w.t0", node_types=["DATASET"])
    assert (typed.more_at_depth, typed.more_by_type, typed.depth_needed) == (4, {"DATASET": 4}, 7)


def test_an_answer_that_reaches_the_end_is_not_truncated(store: LineageStore):
    record_sql(store, CHAIN)
    g = store.get_downstream("w.t0", max_depth=7)
    assert not g.truncated and g.cut_by == [] and g.more_at_depth == 0 and g.depth_needed is None
    assert not store.get_upstream("w.t3", max_depth=3).truncated  # t0 is the end, at depth 3 exactly


def test_the_node_cap_is_named(store: LineageStore):
    record_sql(store, CHAIN)
    g = store.get_downstream("w.t0", max_depth=None, max_nodes=3)
    assert g.truncated and g.cut_by == ["max_nodes"]


def test_a_type_filter_keeps_the_bridges_over_the_hidden_jobs(store: LineageStore):
    record_sql(store, CHAIN)
    g = store.get_downstream("w.t0", max_depth=2, node_types=["DATASET"])
    assert [n.short for n in g.nodes] == ["t0", "t1", "t2"]
    assert g.edges == []  # READ and WRITE edges end at a job, which is hidden
    names = {n.id: n.short for n in g.nodes}
    assert [(names[b.source], [v.type for v in b.via], names[b.target]) for b in g.bridges] == [
        ("t0", ["JOB"], "t1"),
        ("t1", ["JOB"], "t2"),
    ]
    assert g.hidden_by_type == 2
    assert all(v.properties == {} for b in g.bridges for v in b.via)  # no SQL in every bridge
