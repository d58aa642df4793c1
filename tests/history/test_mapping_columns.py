"""The usual column names are worked out once per set of columns (``mapping._usual_columns``): rows
of other columns, other cases or another order in one read each get their own."""

from __future__ import annotations

from headwater.history.mapping import parse_mapping, record_from_row


def test_rows_of_other_columns_in_one_read():
    rows = [
        {"stmt": "SELECT 1", "query_id": "a", "db": "x", "Time": "2024-05-01 10:00:00"},
        {"SQL": "SELECT 2", "QueryId": "b", "Database": "y"},
        {"stmt": "SELECT 3", "query_id": "c", "db": "x", "Time": "2024-05-01 10:00:01"},
        {"query": "SELECT 4", "sql": "SELECT 5", "user_name": "ann", "User": "bob"},
        {"Time": "2024-05-01 10:00:02", "db": "z", "stmt": "SELECT 6"},
    ]
    got = [(r.sql, r.query_id, r.database, r.user, r.timestamp is not None) for r in map(record_from_row, rows)]
    assert got == [
        ("SELECT 1", "a", "x", None, True),
        ("SELECT 2", "b", "y", None, False),
        ("SELECT 3", "c", "x", None, True),
        ("SELECT 5", None, None, "bob", False),
        ("SELECT 6", None, "z", None, True),
    ]


def test_a_mapping_comes_before_the_usual_names():
    m = parse_mapping("sql=q,database=meta.schema")
    row = {"q": "SELECT 1", "stmt": "SELECT 2", "db": "x", "meta": {"Schema": "y"}}
    r = record_from_row(row, m)
    assert (r.sql, r.database) == ("SELECT 1", "y")
    r = record_from_row({"stmt": "SELECT 2", "db": "x"})
    assert (r.sql, r.database) == ("SELECT 2", "x")
