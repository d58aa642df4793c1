"""Theme 14's ``ALTER TABLE a RENAME TO b``: one event (``--statements all``) that the store applies
as a rename (``store.rename``), and the catalog renamed for the statements after it."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model import SourceCommand, Status
from headwater.model.event import RENAMED_FROM
from tests.extract.helpers import catalog_of


@pytest.mark.parametrize(
    ("dialect", "sql", "old", "new"),
    [
        ("postgres", "ALTER TABLE sales.a RENAME TO b", "sales.a", "sales.b"),
        ("redshift", "ALTER TABLE a RENAME TO b", "db.a", "db.b"),
        ("snowflake", "ALTER TABLE db.a RENAME TO other.b", "DB.A", "OTHER.B"),
        ("mysql", "ALTER TABLE a RENAME TO b", "db.a", "db.b"),
        ("mysql", "RENAME TABLE a TO b", "db.a", "db.b"),
        ("doris", "ALTER TABLE a RENAME b", "db.a", "db.b"),
        ("spark", "ALTER TABLE db.a RENAME TO b", "db.a", "db.b"),
        ("bigquery", "ALTER TABLE db.a RENAME TO b", "db.a", "db.b"),
    ],
)
def test_a_rename_is_one_event_naming_the_old_table(dialect: str, sql: str, old: str, new: str) -> None:
    res = extract_script(sql, dialect=dialect, database="db", statements="all")
    (e,) = res.events
    assert e.source_command is SourceCommand.ALTER_TABLE
    assert ([s.qualified for s in e.sources], e.target.table.qualified) == ([old], new)
    assert e.context.external_catalog_properties[RENAMED_FROM] == f"internal.{old}"
    assert e.status is Status.COMPLETE and e.direct == ()


def test_mysql_renames_several_tables_at_once() -> None:
    res = extract_script("RENAME TABLE a TO b, c TO d", dialect="mysql", database="db", statements="all")
    assert [(e.sources[0].name, e.target.table.name) for e in res.events] == [("a", "b"), ("c", "d")]


@pytest.mark.parametrize("statements", ["doris", "all"])
def test_the_renamed_table_has_the_old_ones_columns(statements: str) -> None:
    sql = "ALTER TABLE a RENAME TO b;\nINSERT INTO c SELECT * FROM b;\nINSERT INTO d SELECT * FROM a;"
    res = extract_script(sql, dialect="postgres", catalog=catalog_of({"db.a": ["x", "y"]}), database="db",
                         statements=statements)  # fmt: skip
    into_c, into_d = res.events[-2:]
    assert [(d.target_column, [str(c) for c in d.sources]) for d in into_c.direct] == [
        ("x", ["internal.db.b.x"]),
        ("y", ["internal.db.b.y"]),
    ]
    assert into_d.status is not Status.COMPLETE  # a is gone: its columns are unknown


def test_the_doris_rules_make_no_rename_event() -> None:
    res = extract_script("ALTER TABLE a RENAME TO b", dialect="doris", database="db")
    assert res.events == () or list(res.events) == []
    assert res.statements[0].skip_reason.startswith("ddl")
