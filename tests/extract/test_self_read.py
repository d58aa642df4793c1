"""A CREATE TABLE … AS that reads, through a ``*``, the table it writes (an incremental self-union)."""

from __future__ import annotations

from tests.extract.helpers import codes, dataset, direct, one_event


def test_star_over_the_table_the_statement_writes_takes_its_written_columns():
    """``CREATE OR REPLACE TABLE lf AS WITH base AS (… UNION ALL SELECT * FROM lf) SELECT … FROM base``
    with ``lf`` defined nowhere else: its columns are the ones the statement writes, so each branch
    binds by position (BigQuery, bigquery-etl's ``login_flows_v1``)."""
    e = one_event(
        "CREATE OR REPLACE TABLE d.lf AS WITH base AS (SELECT flow_id, MIN(ts) AS started FROM d.ev "
        "GROUP BY flow_id UNION ALL SELECT * FROM d.lf) SELECT flow_id, MIN(started) AS started FROM base "
        "GROUP BY flow_id",
        dialect="bigquery",
        db=None,
    )
    assert direct(e) == [
        ("flow_id", "ev.flow_id", "IDENTITY"),
        ("flow_id", "lf.flow_id", "IDENTITY"),
        ("started", "MIN(MIN(ev.ts))", "AGGREGATION"),
        ("started", "MIN(lf.started)", "AGGREGATION"),
    ]
    assert dataset(e)[-1] == ("GROUP_BY", "lf.flow_id")
    assert e.status.value == "COMPLETE"
    assert codes(e) == ["self_read_columns"]


def test_a_self_read_naming_a_column_it_does_not_write_stays_unknown():
    """The written columns are only an assumption: a column of the table the statement does not
    write (``extra``) keeps the first reading (the ``*`` unknown), never an ``unknown_column``."""
    e = one_event(
        "CREATE OR REPLACE TABLE d.lf AS SELECT flow_id FROM d.ev UNION ALL SELECT * FROM d.lf WHERE extra > 0",
        dialect="bigquery",
        db=None,
    )
    assert direct(e) == [("flow_id", "ev.flow_id", "IDENTITY")]
    assert codes(e) == ["star_unknown_columns"]
    assert e.status.value == "PARTIAL"


def test_a_self_read_whose_new_doubt_has_a_code_the_first_had_still_stays_unknown():
    """The first reading's doubts are compared by their message too: an ``unknown_column`` on another
    name (``extra``) is a new doubt even when the statement had one already (``zz``)."""
    e = one_event(
        "CREATE OR REPLACE TABLE d.lf AS WITH c AS (SELECT 1 AS a FROM d.k) SELECT c.zz AS flow_id FROM c "
        "UNION ALL SELECT * FROM d.lf WHERE extra > 0",
        dialect="bigquery",
        db=None,
    )
    assert codes(e) == ["unknown_column", "star_unknown_columns"]
    assert dataset(e) == [("FILTER", "lf.extra > 0")]
