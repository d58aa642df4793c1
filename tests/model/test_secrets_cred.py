"""``credit`` is no secrets hint: TPC-DS's ``cd_credit_rating`` statements are not tokenized again for
redaction, and every name the rules mask for its ``cred`` still is."""

from __future__ import annotations

import pytest

from headwater.model import secrets
from headwater.model.secrets import may_hold_secret, redact_sql

TPCDS = (
    "INSERT INTO bench_1 SELECT cd_gender, cd_credit_rating, COUNT(*) FROM customer_demographics "
    "WHERE cd_credit_rating = 'Good' GROUP BY cd_gender, cd_credit_rating"
)


def test_a_credit_column_is_no_hint(monkeypatch) -> None:
    assert not may_hold_secret(TPCDS)

    def no_tokens(sql: str, dialect: str):
        raise AssertionError("tokenized for redaction")

    monkeypatch.setattr(secrets, "_tokens", no_tokens)
    assert redact_sql(TPCDS + " ") == TPCDS + " "


@pytest.mark.parametrize(
    ("sql", "masked"),
    [
        ("SELECT a FROM t WHERE creds = 'p1'", "SELECT a FROM t WHERE creds = '***'"),
        ("SELECT a FROM t WHERE db_cred = 'p1'", "SELECT a FROM t WHERE db_cred = '***'"),
        ("SELECT a FROM t WHERE api_credential = 'p1'", "SELECT a FROM t WHERE api_credential = '***'"),
        ("CREATE TABLE t WITH ('cred.file'='x1') AS SELECT 1", "CREATE TABLE t WITH ('cred.file'='***') AS SELECT 1"),
        # a key after credit: the keys' wide rule masks a property named so, as before
        ("CREATE TABLE t WITH ('credit_key'='x1') AS SELECT 1", "CREATE TABLE t WITH ('credit_key'='***') AS SELECT 1"),
        ("SELECT 'credit_key =x1'", "SELECT 'credit_key =***'"),
        ("SELECT credit_limit FROM t WHERE credit_limit = '5'", "SELECT credit_limit FROM t WHERE credit_limit = '5'"),
    ],
)
def test_cred_names_are_masked_as_before(sql: str, masked: str) -> None:
    assert redact_sql(sql) == masked
