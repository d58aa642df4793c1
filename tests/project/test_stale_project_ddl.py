"""A plain ``CREATE TABLE`` in another file of a project may be older than the table (that file runs at
other times; the table may have been altered since), as a ``CREATE TABLE IF NOT EXISTS`` may: a statement
that contradicts it is a WARNING with the SQL's edges kept. In the same script it stays an ERROR."""

from __future__ import annotations

import pytest

from headwater.model import Severity, Status
from headwater.project import ProjectContext

ORDERS = "CREATE TABLE db.orders (id INT, amount INT, region VARCHAR(10));\n"
WIDE = "CREATE TABLE db.t2 (x INT, y INT, z INT);\n"
NARROW = "CREATE TABLE db.g (country VARCHAR(10), n INT);\n"
INSERT = "INSERT INTO db.t2 SELECT id, amount FROM db.orders"
READ = "CREATE TABLE db.out AS SELECT country, size_growth FROM db.g"


def _last_event(dialect: str, files: list[str]):
    ctx = ProjectContext(dialect=dialect)
    done = [ctx.extract(f"{k:02d}.sql", text) for k, text in enumerate(files)]
    (e,) = done[-1].events
    return e


def _severity(e, code: str) -> Severity | None:
    return next((d.severity for d in e.diagnostics if d.code == code), None)


def _direct(e) -> list[tuple[str, str]]:
    return [(d.target_column, d.expression) for d in e.direct]


@pytest.mark.parametrize("dialect", ["spark", "postgres"])
def test_another_files_ddl_narrower_than_an_insert_is_a_warning(dialect: str) -> None:
    e = _last_event(dialect, [ORDERS + WIDE, INSERT])
    assert _severity(e, "column_count_mismatch") is Severity.WARNING
    assert _direct(e) == [("id", "orders.id"), ("amount", "orders.amount")]
    assert e.status is Status.PARTIAL


@pytest.mark.parametrize("dialect", ["spark", "postgres"])
def test_the_same_scripts_ddl_stays_an_error(dialect: str) -> None:
    e = _last_event(dialect, [ORDERS + WIDE + INSERT])
    assert _severity(e, "column_count_mismatch") is Severity.ERROR


@pytest.mark.parametrize("dialect", ["spark", "postgres"])
def test_a_column_another_files_ddl_lacks_is_kept_with_a_warning(dialect: str) -> None:
    e = _last_event(dialect, [NARROW, READ])
    assert _severity(e, "unknown_column") is None
    assert _severity(e, "column_not_in_catalog") is Severity.WARNING
    assert _direct(e) == [("country", "g.country"), ("size_growth", "g.size_growth")]


@pytest.mark.parametrize("dialect", ["spark", "postgres"])
def test_a_column_the_same_scripts_ddl_lacks_stays_an_error(dialect: str) -> None:
    e = _last_event(dialect, [NARROW + READ])
    assert _severity(e, "unknown_column") is Severity.ERROR


def test_an_altered_table_of_another_file_is_read_as_altered() -> None:
    """The file's ALTER is applied first: the added column is known (no diagnostic at all)."""
    e = _last_event("spark", [NARROW + "ALTER TABLE db.g ADD COLUMNS (size_growth INT);\n", READ])
    assert (e.diagnostics, e.status) == ((), Status.COMPLETE)
