"""Account passwords in SQL text and in sqlglot's log: ``IDENTIFIED [WITH plugin] BY|AS``, bare
(Oracle) or quoted, MySQL's ``PASSWORD('…')``, and statements that a message cuts off."""

from __future__ import annotations

import logging

import pytest

from headwater.extract import ExtractOptions, Extractor, extract_script
from headwater.model.secrets import _redact_by_pattern, redact_log_message, redact_sql


@pytest.mark.parametrize(
    ("sql", "dialect", "expected"),
    [
        (
            "CREATE USER u IDENTIFIED WITH mysql_native_password BY 'pw9'",
            "mysql",
            "CREATE USER u IDENTIFIED WITH mysql_native_password BY '***'",
        ),
        (
            "CREATE USER u IDENTIFIED WITH caching_sha2_password AS '$A$005$h'",
            "mysql",
            "CREATE USER u IDENTIFIED WITH caching_sha2_password AS '***'",
        ),
        ("CREATE USER u IDENTIFIED BY PASSWORD '*ABC'", "mysql", "CREATE USER u IDENTIFIED BY PASSWORD '***'"),
        ("SET PASSWORD FOR bob = PASSWORD('hunter4')", "mysql", "SET PASSWORD FOR bob = PASSWORD('***')"),
        ("CREATE USER bob IDENTIFIED BY hunter2", "oracle", "CREATE USER bob IDENTIFIED BY ***"),
        (
            'ALTER USER bob IDENTIFIED BY "hunter2" ACCOUNT UNLOCK',
            "oracle",
            'ALTER USER bob IDENTIFIED BY "***" ACCOUNT UNLOCK',
        ),
        ("CREATE USER u IDENTIFIED EXTERNALLY", "oracle", "CREATE USER u IDENTIFIED EXTERNALLY"),
        ("SELECT a AS b FROM t WHERE c = 'identified by'", "mysql", "SELECT a AS b FROM t WHERE c = 'identified by'"),
    ],
)
def test_account_passwords_masked_in_sql(sql: str, dialect: str, expected: str) -> None:
    assert redact_sql(sql, dialect) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CREATE USER bob IDENTIFIED BY 'hunt", "CREATE USER bob IDENTIFIED BY '***'"),
        ("CREATE USER bob IDENTIFIED BY hunter2", "CREATE USER bob IDENTIFIED BY ***"),
        ("ALTER ROLE x PASSWORD 'hunt", "ALTER ROLE x PASSWORD '***"),
        ("SET PASSWORD = PASSWORD('hunter4')", "SET PASSWORD = PASSWORD('***')"),
        ("WHERE note = 'abc", "WHERE note = 'abc"),
    ],
)
def test_pattern_masks_cut_off_and_bare_passwords(text: str, expected: str) -> None:
    assert _redact_by_pattern(text) == expected


def test_cut_off_fallback_warning_masked() -> None:
    statement = "CREATE USER " + "x" * 65 + " IDENTIFIED BY 'hunter2hunter2'"
    message = f"'{statement[:100]}' contains unsupported syntax. Falling back to parsing as a 'Command'."
    assert "hunter" in message
    masked = redact_log_message(message)
    assert "hunt" not in masked
    assert masked.endswith(" contains unsupported syntax. Falling back to parsing as a 'Command'.")


@pytest.mark.parametrize("dialect", ["mysql", "postgres", "oracle", "snowflake", "doris"])
def test_sqlglot_warnings_never_quote_a_password(dialect: str, caplog: pytest.LogCaptureFixture) -> None:
    script = (
        "CREATE USER bob IDENTIFIED BY 'hunter2';\n"
        "ALTER USER bob IDENTIFIED BY hunter3;\n"
        "CREATE USER carol WITH PASSWORD 'hunter4';\n"
        "CREATE USER dave IDENTIFIED WITH mysql_native_password BY 'hunter5';\n"
        "INSERT INTO t SELECT a FROM s;\n"
    )
    with caplog.at_level(logging.WARNING, logger="sqlglot"):
        result = extract_script(script, dialect=dialect)
        Extractor(options=ExtractOptions(dialect=dialect)).run("CREATE USER erin IDENTIFIED BY 'hunter6'")
    warned = [r.getMessage() for r in caplog.records if r.name == "sqlglot"]
    assert warned, "sqlglot warned of no fallback: the test no longer exercises the filter"
    assert not [m for m in warned if "hunter" in m]
    assert len(result.events) == 1  # the INSERT's lineage is untouched


def test_reruns_giving_password_a_literal_are_masked_with_reuse_on_and_off() -> None:
    from tests.extract.test_reuse import _both

    sqls = [f"INSERT INTO t SELECT a, b FROM s WHERE s.h = PASSWORD('hunter{v}') AND s.n = {v}" for v in "123"]
    plain, reused, _ = _both(sqls)
    assert plain == reused
    assert "hunter" not in str(reused) and "PASSWORD('***')" in str(reused[-1])
