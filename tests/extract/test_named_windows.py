"""Issue 34, defect 4: a named window (``WINDOW w AS (…)``) gives the lineage of the same window inline."""

from __future__ import annotations

import pytest

from headwater.model import Status
from tests.extract.helpers import direct, one_event, output

SCHEMA = {"d.hist": ["id", "status", "sub_id", "valid_from", "amount"]}
# Snowflake has no WINDOW clause
DIALECTS = ["bigquery", "postgres", "mysql", "databricks", "duckdb", "trino", "sqlite"]


def _lineage(sql: str, dialect: str) -> tuple[list, list]:
    e = one_event(sql, SCHEMA, dialect=dialect, db="d")
    assert e.status is Status.COMPLETE, e.diagnostics
    return [(c.lower(), x.lower()) for c, x, _ in direct(e)], [(c.lower(), k, x.lower()) for c, k, x in output(e)]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_over_a_named_window_is_the_window_inline(dialect):
    named = _lineage(
        "INSERT INTO o SELECT id, LAG(status) OVER w AS prev FROM hist "
        "WINDOW w AS (PARTITION BY sub_id ORDER BY valid_from)",
        dialect,
    )
    inline = _lineage(
        "INSERT INTO o SELECT id, LAG(status) OVER (PARTITION BY sub_id ORDER BY valid_from) AS prev FROM hist",
        dialect,
    )
    assert named == inline
    assert [(c, k) for c, k, _ in named[1]] == [("prev", "WINDOW"), ("prev", "WINDOW")]
    assert [x.split(".")[-1] for _, _, x in named[1]] == ["sub_id", "valid_from"]


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "mysql", "databricks", "duckdb"])
def test_a_named_window_extended_by_an_order_and_a_frame(dialect):
    named = _lineage(
        "INSERT INTO o SELECT SUM(amount) OVER (w ORDER BY valid_from ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
        "AS run FROM hist WINDOW w AS (PARTITION BY sub_id)",
        dialect,
    )
    inline = _lineage(
        "INSERT INTO o SELECT SUM(amount) OVER (PARTITION BY sub_id ORDER BY valid_from "
        "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS run FROM hist",
        dialect,
    )
    assert named == inline
    assert [x.split(".")[-1] for _, _, x in named[1]] == ["sub_id", "valid_from"]


@pytest.mark.parametrize("dialect", ["bigquery", "postgres", "mysql", "duckdb"])
def test_a_window_defined_from_another_window(dialect):
    named = _lineage(
        "INSERT INTO o SELECT ROW_NUMBER() OVER w2 AS rn, FIRST_VALUE(status) OVER w1 AS first_status FROM hist "
        "WINDOW w1 AS (PARTITION BY sub_id), w2 AS (w1 ORDER BY valid_from)",
        dialect,
    )
    inline = _lineage(
        "INSERT INTO o SELECT ROW_NUMBER() OVER (PARTITION BY sub_id ORDER BY valid_from) AS rn, "
        "FIRST_VALUE(status) OVER (PARTITION BY sub_id) AS first_status FROM hist",
        dialect,
    )
    assert named == inline


def test_a_named_window_in_a_cte_and_in_qualify():
    e = one_event(
        "INSERT INTO o WITH r AS (SELECT id, ROW_NUMBER() OVER w AS rn FROM hist WINDOW w AS "
        "(PARTITION BY sub_id ORDER BY valid_from DESC)) SELECT id FROM r WHERE rn = 1",
        SCHEMA,
        dialect="bigquery",
        db="d",
    )
    filters = [x for k, x in ((i.type.value, i.expression) for i in e.dataset_indirect) if k == "FILTER"]
    assert filters == ["ROW_NUMBER() OVER (PARTITION BY hist.sub_id ORDER BY hist.valid_from DESC) = 1"]
    e = one_event(
        "INSERT INTO o SELECT id FROM hist WINDOW w AS (PARTITION BY sub_id ORDER BY valid_from) "
        "QUALIFY ROW_NUMBER() OVER w = 1",
        SCHEMA,
        dialect="bigquery",
        db="d",
    )
    filters = [i.expression for i in e.dataset_indirect if i.type.value == "FILTER"]
    assert filters == ["ROW_NUMBER() OVER (PARTITION BY hist.sub_id ORDER BY hist.valid_from) = 1"]


def test_window_names_in_a_subquery_are_its_own():
    """A subquery's WINDOW clause names its own windows, and the outer one's windows stay the outer's."""
    e = one_event(
        "INSERT INTO o SELECT id, MAX(amount) OVER w AS m, (SELECT MIN(h.amount) OVER w FROM hist h "
        "WINDOW w AS (PARTITION BY h.status) LIMIT 1) AS s FROM hist WINDOW w AS (PARTITION BY sub_id)",
        SCHEMA,
        dialect="bigquery",
        db="d",
    )
    assert [(c, x) for c, _, x in output(e)] == [("m", "hist.sub_id"), ("s", "hist.status")]
