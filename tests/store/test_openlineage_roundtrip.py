"""Round trip without loss: RunEvents headwater produced, ingested back, answer every query as the
headwater events recorded directly do (same nodes, edges, job identity, context and status).

The warehouse is extracted from SQL (not built by hand): a CTAS and a later INSERT into the same
table (two jobs), a masked column, a CASE, a window, a UNION, a join and filters, one statement with
a given job name. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from tests.pg_schema import fresh_schema_url

from headwater.extract import Extractor, RunInfo
from headwater.model import LineageInfo, make_event_id
from headwater.model.ol_naming import OpenLineageNaming, Place
from headwater.model.openlineage import run_event_json, to_run_events
from headwater.store import LineageStore, open_store
from headwater.store.engine import make_engine
from headwater.store.migrate import upgrade
from headwater.store.schema import events, nodes
from headwater.store.search import job_detail

DDL = """
CREATE TABLE shop.raw_orders (order_id BIGINT, customer_id BIGINT, amount DECIMAL(18, 2), status VARCHAR(16),
                              email VARCHAR(64), region VARCHAR(16), ts DATETIME);
CREATE TABLE shop.raw_customers (customer_id BIGINT, segment VARCHAR(8), name VARCHAR(64));
CREATE TABLE shop.ranked (customer_id BIGINT, region VARCHAR(16), amount DECIMAL(18, 2), rn BIGINT);
"""
STATEMENTS = [
    (
        "build_summary",
        """CREATE TABLE shop.summary AS
SELECT o.customer_id, SUM(o.amount) AS total, MD5(o.email) AS email_hash,
       CASE WHEN c.segment = 'VIP' THEN 'A' ELSE 'B' END AS tier
FROM shop.raw_orders o JOIN shop.raw_customers c ON o.customer_id = c.customer_id
WHERE o.status = 'PAID'
GROUP BY o.customer_id, o.email, c.segment""",
    ),
    (
        None,
        """INSERT INTO shop.summary
SELECT customer_id, CAST(amount * -1 AS DECIMAL(18, 2)), MD5(email), UPPER(region) FROM shop.raw_orders
WHERE status = 'REFUND'
UNION ALL
SELECT customer_id, 0, MD5(name), segment FROM shop.raw_customers""",
    ),
    (
        None,
        """INSERT INTO shop.ranked
SELECT customer_id, region, amount, ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount DESC)
FROM shop.raw_orders WHERE ts >= '2024-01-01' ORDER BY amount""",
    ),
]


def warehouse() -> list[LineageInfo]:
    ex = Extractor()
    ex.run(DDL, RunInfo(query_id="ddl"))
    out: list[LineageInfo] = []
    for k, (name, sql) in enumerate(STATEMENTS):
        props = {"headwater.job": name} if name else {}
        run = RunInfo(
            query_id=f"q{k}",
            user="etl",
            client_ip="10.0.0.7",
            database="shop",
            timestamp=f"2024-05-0{k + 1}T10:00:00Z",
            duration_ms=1200 + k,
            external_catalog_properties=props,
        )
        out.extend(ex.run(sql, run).events)
    assert len(out) == len(STATEMENTS)
    return out


@pytest.fixture(params=["sqlite", "postgresql"])
def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[LineageStore, LineageStore]]:
    if request.param == "sqlite":
        urls = [f"sqlite:///{tmp_path / name}.db" for name in ("direct", "openlineage")]
        for url in urls:
            upgrade(make_engine(url))
        yield open_store(urls[0]), open_store(urls[1])
        return
    with fresh_schema_url("hw_ol_a") as a, fresh_schema_url("hw_ol_b") as b:
        yield open_store(a), open_store(b)


def _plain(value: Any) -> Any:
    """A query answer as plain data (dataclasses to dicts), for equality and readable diffs."""
    if hasattr(value, "__dataclass_fields__"):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _by_name(value: Any, names: dict[int, str], key: str = "") -> Any:
    """Row ids replaced by the names they stand for (two stores number rows in the order they were
    written), random analysis ids dropped, and lists in a canonical order (ties of an id order are
    broken by id), except a path's edges, whose order is the answer."""
    if isinstance(value, dict):
        out = {k: _by_name(v, names, k) for k, v in value.items()}
        if {"type", "name", "short"} <= value.keys():  # a node
            out["id"], out["parent_id"] = None, names.get(value.get("parent_id"))  # type: ignore[arg-type]
        if {"source", "target", "type"} <= value.keys():  # an edge
            out.update(id=None, source=names[value["source"]], target=names[value["target"]])
            out["job_id"] = names.get(value.get("job_id"))  # type: ignore[arg-type]
        if "analysis_id" in out:
            out["analysis_id"] = None
        return out
    if isinstance(value, list):
        items = [_by_name(v, names) for v in value]
        return (
            items
            if key in ("path", "types")
            else sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
        )
    return value


def answers(store: LineageStore) -> dict[str, Any]:
    """Every query answer of the store: per node, lineage both ways, summary, origins (with and without
    indirect inputs), impact, trace and impact analysis; the stats; each job's statements."""
    with store.engine.connect() as conn:
        rows = list(conn.execute(select(nodes.c.id, nodes.c.type, nodes.c.name).order_by(nodes.c.name)))
    names = {nid: name for nid, _, name in rows}
    out: dict[str, Any] = {"stats": _plain(store.get_lineage_stats())}
    for nid, typ, name in rows:
        a: dict[str, Any] = {
            "resolve": _plain(store.resolve(nid)),
            "upstream": _plain(store.get_upstream(nid, max_depth=None)),
            "downstream": _plain(store.get_downstream(nid, max_depth=None)),
            "summary": _plain(store.get_lineage_summary(nid)),
        }
        if typ == "FIELD":
            a["origin"] = _plain(store.get_field_origin(nid))
            a["origin_indirect"] = _plain(store.get_field_origin(nid, include_indirect=True))
            a["impact"] = _plain(store.get_field_impact(nid))
        if typ in ("FIELD", "DATASET"):
            a["trace"] = _plain(store.trace_origin(nid))
            for change in ("SCHEMA_CHANGE", "DATA_UPDATE", "DELETE"):
                a[f"analyze {change}"] = _plain(store.analyze_impact(nid, change))
        if typ == "JOB":
            with store.engine.connect() as conn:
                detail = _plain(job_detail(conn, nid))
            for s in detail["statements"]:
                s["recorded_time"] = None  # when it was recorded, not what
                s["kind"] = None  # headwater / openlineage: the producer format, by design
            a["job"] = detail
        out[f"{typ} {name}"] = _by_name(a, names)
    return out


def _statuses(store: LineageStore) -> list[tuple[str, str]]:
    with store.engine.connect() as conn:
        return sorted(conn.execute(select(events.c.event_id, events.c.status)).all())  # type: ignore[arg-type]


def test_run_events_restore_what_direct_recording_records(two_stores: tuple[LineageStore, LineageStore]) -> None:
    direct, via_ol = two_stores
    evs = warehouse()
    direct.record_batch(evs)
    for e in evs:  # as a consumer receives them: JSON text
        assert via_ol.record_openlineage(json.loads(run_event_json(e))).recorded == 1
    want, got = answers(direct), answers(via_ol)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == want[key], key
    # the CTAS and the later INSERT into shop.summary are two jobs, both ways
    jobs = [k for k in want if k.startswith("JOB ")]
    assert len(jobs) == 3
    assert "JOB job:build_summary" in jobs
    assert _statuses(via_ol) == _statuses(direct) == sorted((e.event_id, e.status.value) for e in evs)


def test_start_then_complete_restores_the_same_lineage(two_stores: tuple[LineageStore, LineageStore]) -> None:
    direct, via_ol = two_stores
    evs = warehouse()
    direct.record_batch(evs)
    for e in evs:
        for run_event in to_run_events(e, lifecycle="start"):
            via_ol.record_openlineage(json.loads(run_event_json(run_event)))
    want, got = answers(direct), answers(via_ol)
    for a in (want, got):
        del a["stats"]["events_recorded"]  # START events are rows of their own
        for key in [k for k in a if k.startswith("JOB ")]:
            a[key]["job"]["statements"] = [s for s in a[key]["job"]["statements"] if s["status"] != "START"]
            a[key]["job"]["total_statements"] = len(a[key]["job"]["statements"])
    assert got == want
    statuses = dict(_statuses(via_ol))
    assert sorted(v for k, v in statuses.items() if k not in {e.event_id for e in evs}) == ["START"] * 3


def test_direct_and_run_events_of_one_statement_are_one_recording(
    two_stores: tuple[LineageStore, LineageStore],
) -> None:
    store, _ = two_stores
    evs = warehouse()
    store.record_batch(evs)
    before = answers(store)
    res = store.record_openlineage([json.loads(run_event_json(e)) for e in evs])
    assert (res.recorded, res.duplicates) == (0, 3)
    assert answers(store) == before


def test_a_mapped_namespace_lands_on_the_directly_recorded_nodes(
    two_stores: tuple[LineageStore, LineageStore],
) -> None:
    """Issue 11 problem 3: RunEvents in ``mysql://127.0.0.1:3306`` made a second graph beside the direct
    one. With the catalog ↔ namespace mapping, a RunEvent without headwater's facet (another producer's)
    about the same tables lands on the same FIELD nodes."""
    store, _ = two_stores
    evs = warehouse()
    store.record(evs[0])
    naming = OpenLineageNaming({"internal": Place("mysql://127.0.0.1:3306")})
    doc = json.loads(run_event_json(evs[2], naming=naming))
    del doc["run"]["facets"]["headwater"]
    assert doc["outputs"][0]["namespace"] == "mysql://127.0.0.1:3306"
    unmapped = store.record_openlineage(doc, naming=OpenLineageNaming())
    assert unmapped.recorded == 1
    assert store.resolve("mysql://127.0.0.1:3306.shop.ranked.rn").name == "mysql://127.0.0.1:3306.shop.ranked.rn"
    store.delete_lineage(event_id=unmapped.event_ids[0], purge=True)
    doc["run"]["runId"] = "7d1c1d64-9a55-4c4c-9d2b-3f7b1c0e0001"  # a second run of the job
    assert store.record_openlineage(doc, naming=naming).recorded == 1
    origin = store.get_field_origin("internal.shop.ranked.amount")
    assert [o.field.name for o in origin.origins] == ["internal.shop.raw_orders.amount"]
    impact = store.get_field_impact("internal.shop.raw_orders.amount")
    assert {f.field.name for f in impact.impacted} >= {
        "internal.shop.summary.total",
        "internal.shop.ranked.amount",
    }


def test_a_fail_event_names_the_statements_job_and_asserts_nothing(
    two_stores: tuple[LineageStore, LineageStore],
) -> None:
    from headwater.model.openlineage import failed_run_event

    store, _ = two_stores
    evs = warehouse()
    store.record_batch(evs)
    before = answers(store)
    later = replace(evs[1], event_id=make_event_id("q1-retry", evs[1].target.table))
    res = store.record_openlineage(json.loads(run_event_json(failed_run_event(later, "ERROR 1105: locked"))))
    assert (res.recorded, res.edges_opened, res.edges_closed) == (1, 0, 0)
    after = answers(store)
    job = next(k for k in before if k.startswith("JOB sql:") and k.endswith("internal.shop.summary"))
    statuses = [s["status"] for s in after[job]["job"]["statements"]]
    assert sorted(statuses) == ["COMPLETE", "FAIL"]  # the same job as the statement's success
    for a in (before, after):
        del a["stats"]["events_recorded"]
        for key in [k for k in a if k.startswith("JOB ")]:
            del a[key]["job"]
    assert after == before


def test_a_damaged_headwater_facet_is_refused_naming_the_field(two_stores: tuple[LineageStore, LineageStore]) -> None:
    from headwater.store import InvalidInput

    store, _ = two_stores
    doc = json.loads(run_event_json(warehouse()[0]))
    doc["run"]["facets"]["headwater"]["datasets"] = doc["run"]["facets"]["headwater"]["datasets"][1:]
    with pytest.raises(InvalidInput, match=r"columnLineage\.fields\..*is not in run\.facets\.headwater\.datasets"):
        store.record_openlineage(doc)
    doc = json.loads(run_event_json(warehouse()[0]))
    doc["run"]["facets"]["headwater"]["labels"] = [{"column": "total", "input": "x", "transformation": 0}]
    with pytest.raises(InvalidInput, match=r"run\.facets\.headwater\.labels\[0\]"):
        store.record_openlineage(doc)
    doc = json.loads(run_event_json(warehouse()[0]))
    del doc["run"]["facets"]["headwater"]["event"]["context"]["sql"]
    with pytest.raises(InvalidInput, match=r"run\.facets\.headwater\.event.*context"):
        store.record_openlineage(doc)
    assert store.get_lineage_stats().events_recorded == 0
