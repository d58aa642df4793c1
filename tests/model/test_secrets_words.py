"""The narrow rule for column names reads whole words: a column whose name merely contains a
secret word's letters (``passenger_name``, ``passport_no``, ``compass``, ``secretary``) keeps the
literals compared with it, in the statement and in the event's expressions; a password column
written any usual way (``db_pass``, ``userpass``, ``user_pwd``, ``userPassword``, ``dbAuth``) is
masked as before."""

from __future__ import annotations

import pytest

from headwater.extract import extract_script
from headwater.model.secrets import is_sensitive, is_sensitive_column, redact_sql

KEPT = [
    "passenger_name",
    "passport_no",
    "compass",
    "bypass_flag",
    "secretary",
    "author",
    "passage",
    "o_orderkey",
    "credit_card",
    "credCard",
]
MASKED = [
    "db_pass",
    "userpass",
    "user_pwd",
    "userPassword",
    "dbAuth",
    "api_token",
    "client_secret",
    "PASSWD",
    "db.cred",
]


@pytest.mark.parametrize("name", KEPT)
def test_words_that_only_contain_a_hint_are_not_secrets(name: str) -> None:
    assert not is_sensitive_column(name)
    assert redact_sql(f"SELECT a FROM t WHERE {name} = 'Ann'") == f"SELECT a FROM t WHERE {name} = 'Ann'"


@pytest.mark.parametrize("name", MASKED)
def test_password_columns_stay_masked(name: str) -> None:
    assert is_sensitive_column(name)
    assert redact_sql(f"SELECT a FROM t WHERE {name} = 'hunter2'") == f"SELECT a FROM t WHERE {name} = '***'"


def test_property_names_keep_the_wide_rule() -> None:
    # a property map or a quoted name in SQL is masked by any part of the word, as before
    assert is_sensitive("passenger_pass") and is_sensitive("compass_password") and is_sensitive("passthrough")


def test_the_event_keeps_the_literal_of_a_passenger_column() -> None:
    sql = (
        "INSERT INTO flights_out SELECT f.id, f.passenger_name FROM flights f "
        "WHERE f.passenger_name = 'Ann Lee' AND f.db_pass = 'hunter2'"
    )
    [event] = extract_script(sql, dialect="mysql").events
    assert event.context.sql == (
        "INSERT INTO flights_out SELECT f.id, f.passenger_name FROM flights f "
        "WHERE f.passenger_name = 'Ann Lee' AND f.db_pass = '***'"
    )
    assert [i.expression for i in event.dataset_indirect] == [
        "flights.passenger_name = 'Ann Lee'",
        "flights.db_pass = '***'",
    ]
