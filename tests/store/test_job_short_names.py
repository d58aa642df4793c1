"""A job's short name is what a person calls it: the name its producer gave, or its target and digest.

The short name is what the explorer, the CLI's hops and search show for a job node. It used to be
``<target>#<the name's second colon field, 8 characters>``, which cut a given name (``t#load_ord``)
or a file name (``orders#marts/o``) in the middle.
"""

from __future__ import annotations

import dataclasses

from tests.store.helpers import events_of, file_events

from headwater.model.job import JOB_PROPERTY, sql_fingerprint
from headwater.store import LineageStore
from headwater.store.from_event import event_facts
from headwater.store.from_openlineage import run_event_facts
from headwater.store.search import search_nodes

T1 = "2026-11-01T10:00:00Z"
SQL = "INSERT INTO mart.orders SELECT id, amount FROM raw.orders"


def _job_short(store: LineageStore, dataset: str) -> list[tuple[str, str]]:
    up = store.get_upstream(dataset, max_depth=1, node_types=["JOB"])
    return sorted((n.name, n.short) for n in up.nodes if n.type == "JOB")


def test_a_project_files_job_is_named_by_its_file_and_ordinal(store: LineageStore) -> None:
    store.record_batch(file_events("marts/Orders.sql", SQL, T1))
    assert _job_short(store, "mart.orders") == [("job:marts/Orders.sql#1", "marts/orders.sql#1")]
    with store.engine.connect() as conn:  # the explorer's search finds it by what a person types
        hits = search_nodes(conn, "Marts/Orders.sql#1").hits
    assert [(h.node.name, h.match) for h in hits] == [("job:marts/Orders.sql#1", "exact")]


def test_a_given_name_is_the_short_name_whole(store: LineageStore) -> None:
    (event,) = events_of(f"-- name: load_orders_daily\n{SQL}")
    props = {**event.context.external_catalog_properties, JOB_PROPERTY: "load_orders_daily"}
    store.record(
        dataclasses.replace(event, context=dataclasses.replace(event.context, external_catalog_properties=props))
    )
    assert _job_short(store, "mart.orders") == [("job:load_orders_daily", "load_orders_daily")]


def test_an_unnamed_statement_is_its_target_and_digest() -> None:
    (event,) = events_of(SQL)
    facts = event_facts(event)
    assert facts.job is not None
    digest = sql_fingerprint(event.context.sql)
    assert facts.job == ("JOB", f"sql:{digest}:internal.mart.orders")
    assert facts.nodes[facts.job].short == f"orders#{digest[:8]}"


def test_a_dbt_node_has_one_short_name_whoever_reports_it() -> None:
    (event,) = events_of(SQL)
    props = {**event.context.external_catalog_properties, JOB_PROPERTY: "model.shop.fct_orders"}
    headwater = event_facts(
        dataclasses.replace(event, context=dataclasses.replace(event.context, external_catalog_properties=props))
    )
    openlineage = run_event_facts(
        {
            "eventType": "COMPLETE",
            "eventTime": T1,
            "run": {"runId": "0193d7a4-0000-7000-8000-000000000001"},
            "job": {
                "namespace": "shop",
                "name": "db.mart.fct_orders",
                "facets": {"dbt_node": {"unique_id": "model.shop.fct_orders"}},
            },
            "inputs": [],
            "outputs": [],
        }
    )
    assert headwater.job == openlineage.job == ("JOB", "job:model.shop.fct_orders")
    assert headwater.nodes[headwater.job].short == openlineage.nodes[openlineage.job].short == "model.shop.fct_orders"
