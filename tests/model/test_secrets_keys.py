"""Which names ending in ``key`` are secrets: a key column (``o_orderkey``, ``customer_key``,
``sort_key``) is an identifier and its literals are kept; a secret key (``key``, ``api_key``,
``accessKey``, ``fs.s3a.secret.key``, ``azure.account.key`` …) stays masked everywhere; a
property named like a key (``'aws_key'``, ``?primary_key=``) is masked by the wide rule; and the
cheap pre-check (``may_hold_secret``) never lets one through while ignoring key columns."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openlineage.client.serde import Serde
from tests.shared_data import SHARED

from headwater.extract import extract_script
from headwater.model import event_to_json
from headwater.model import secrets as S
from headwater.model.openlineage import to_run_event
from headwater.model.secrets import (
    is_sensitive,
    is_sensitive_column,
    mask_value,
    may_hold_secret,
    redact,
    redact_event,
    redact_sql,
)
from headwater.store import open_store
from headwater.store.schema import event_document, events

SECRET_KEYS = [
    "key",
    "KEY",
    "keys",
    "api_key",
    "apikey",
    "APIKEY",
    "apiKey",
    "APIKey",
    "api.key",
    "api-key",
    "access_key",
    "accessKey",
    "AccessKeyId",
    "aws_access_key_id",
    "secret_key",
    "secretKey",
    "s3.secret_key",
    "s3.access_key",
    "AWS_SECRET_ACCESS_KEY",
    "aws_secret_access_key",
    "secretAccessKey",
    "private_key",
    "privateKey",
    "account_key",
    "encryption_key",
    "master_key",
    "signing_key",
    "client_key",
    "ssh_key",
    "auth_key",
    "sas",
    "sas_key",
    "fs.s3a.secret.key",
    "fs.s3a.access.key",
    "azure.account.key",
    "fs.azure.account.key.acct.blob.core.windows.net",
    "oss.access_key",
    "storage_account_key",
    "subscription-key",
    "ssl.key",
    "tls_key",
    "aes256_key",
    "api_key_2",
    "api_keys",
    "_key_",
    "Access Key",
]
ORDINARY_KEYS = [
    "o_orderkey",
    "l_orderkey",
    "c_custkey",
    "ps_partkey",
    "ps_suppkey",
    "n_nationkey",
    "r_regionkey",
    "orderkey",
    "customer_key",
    "customerKey",
    "CustomerKey",
    "partition_key",
    "partition_keys",
    "sort_key",
    "sortKey",
    "primary_key",
    "primaryKey",
    "surrogate_key",
    "natural_key",
    "business_key",
    "foreign_key",
    "hash_key",
    "dist_key",
    "cluster_key",
    "shard_key",
    "routing_key",
    "join_key",
    "cache_key",
    "idempotency_key",
    "record_key",
    "hoodie.datasource.write.recordkey.field",
    "key.format",
    "key.fields",
    "key_id",
    "keyspace",
    "monkey",
    "monkey_business",
    "turnkey",
]


@pytest.mark.parametrize("name", SECRET_KEYS)
def test_a_secret_key_stays_masked_in_every_form(name: str) -> None:
    assert is_sensitive(name) and is_sensitive_column(name)
    assert redact({name: "v", "uri": "u"}) == {"uri": "u"}
    assert mask_value(f"https://h/x?a=1&{name}=hunter2") == f"https://h/x?a=1&{name}=***"
    sql = f"CREATE TABLE t WITH ('connector'='x', '{name}'='hunter2') AS SELECT a FROM s"
    assert redact_sql(sql, "flink") == sql.replace("hunter2", "***")
    quoted = f'SELECT * FROM S3("uri" = "s3://b/f", "{name}" = "hunter2")'
    assert redact_sql(quoted, "doris") == quoted.replace("hunter2", "***")
    if name.replace("_", "").isalnum():  # a column name: the literal it is compared with
        where = f"INSERT INTO t SELECT a FROM s WHERE s.{name} = 'hunter2'"
        assert redact_sql(where, "spark") == where.replace("hunter2", "***")


@pytest.mark.parametrize("name", ORDINARY_KEYS)
def test_an_ordinary_key_column_keeps_its_literals(name: str) -> None:
    assert not is_sensitive_column(name)
    if name.replace("_", "").isalnum():
        where = f"INSERT INTO t SELECT a FROM s WHERE s.{name} = '42' OR {name} IN ('5', '6')"
        assert redact_sql(where, "spark") == where
        quoted = f"INSERT INTO t SELECT a FROM s WHERE `{name}` = '42'"  # a quoted column is a column
        assert redact_sql(quoted, "spark") == quoted


@pytest.mark.parametrize("name", [*ORDINARY_KEYS, "aws_key", "openai_key", "stripe.key", "awskey"])
def test_a_property_follows_the_wide_rule(name: str) -> None:
    masked = is_sensitive(name)
    assert redact({name: "v"}) == ({} if masked else {name: "v"})
    url = f"https://h/x?{name}=42"
    assert mask_value(url) == (url.replace("=42", "=***") if masked else url)
    sql = f"CREATE TABLE t WITH ('connector'='x', '{name}'='42') AS SELECT a FROM s"
    assert redact_sql(sql, "flink") == (sql.replace("'42'", "'***'") if masked else sql)


def test_the_wide_rule_masks_any_property_named_like_a_key() -> None:
    names = ["aws_key", "openai_key", "stripe.key", "awskey", "primary_key", "partition_keys", "monkey"]
    assert [n for n in names if not is_sensitive(n)] == []
    assert [n for n in names if is_sensitive_column(n)] == []  # as columns none of these is a secret
    assert [n for n in ("keyspace", "recordkey.field", "key.format", "key_id") if is_sensitive(n)] == []


def test_key_columns_keep_their_literals_end_to_end(tmp_path: Path) -> None:
    sql = (
        "INSERT INTO t SELECT o.o_orderkey, c.customer_key FROM orders o JOIN customers c "
        "ON o.o_custkey = c.c_custkey WHERE o.o_orderkey = '5' AND c.customer_key = 'C-17' AND c.sort_key = 'z'"
    )
    (event,) = extract_script(sql, dialect="spark", database="db").events
    assert event.context.sql == sql
    expressions = [i.expression for i in event.dataset_indirect]
    assert any("'C-17'" in x for x in expressions) and any("'5'" in x for x in expressions), expressions
    assert redact_event(event) is event
    assert json.loads(Serde.to_json(to_run_event(event)))["job"]["facets"]["sql"]["query"] == sql
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    store.record(event)
    with store.engine.connect() as conn:
        (stored,) = [
            event_document(p, z)
            for p, z in conn.execute(events.select().with_only_columns(events.c.payload, events.c.payload_zlib))
        ]
    assert stored is not None and "'C-17'" in stored and "***" not in stored


def test_a_secret_key_column_is_masked_end_to_end_beside_key_columns(tmp_path: Path) -> None:
    sql = (
        "INSERT INTO t SELECT s.o_orderkey FROM s WHERE s.o_orderkey = '5' AND s.api_key = 'hunter2' "
        "AND s.accessKey = 'hunter2'"
    )
    kept = sql.replace("'hunter2'", "'***'")
    (event,) = extract_script(sql, dialect="spark", database="db").events
    assert event.context.sql == kept
    text = event_to_json(event)
    assert "hunter2" not in text and "'5'" in text
    assert json.loads(Serde.to_json(to_run_event(event)))["job"]["facets"]["sql"]["query"] == kept
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    store.record(event)
    with store.engine.connect() as conn:
        for payload, packed in conn.execute(events.select().with_only_columns(events.c.payload, events.c.payload_zlib)):
            assert "hunter2" not in (event_document(payload, packed) or "")


def _corpus(name: str) -> list[str]:
    path = SHARED / "corpus" / name
    if not path.exists():
        pytest.skip(f"needs {path} (set HEADWATER_SHARED)")
    return [c.strip() for c in path.read_text().split("\n;\n") if c.strip()]


def test_the_pre_check_does_not_fire_on_tpch_key_columns() -> None:
    statements = _corpus("insert_tpch.sql")
    assert sum("key" in s for s in statements) >= 20
    assert [s[:40] for s in statements if may_hold_secret(s)] == []
    for s in statements:  # a real secret word still fires
        assert may_hold_secret(s + " AND s.api_key = 'x'")
        if "o_orderkey" in s or "l_orderkey" in s:
            assert may_hold_secret(s.replace("o_orderkey", "o_apikey").replace("l_orderkey", "l_access_key"))
    (event,) = extract_script(statements[2], dialect="generic", database="db").events
    exprs = "\x00".join(i.expression or "" for i in (*event.direct, *event.dataset_indirect, *event.output_indirect))
    assert "key" in exprs and not may_hold_secret(exprs)


def test_tpch_statements_are_not_tokenized_for_redaction() -> None:
    statements = _corpus("insert_tpch.sql")
    with mock.patch.object(S, "_tokens", side_effect=AssertionError("tokenized")):
        S._MEMO.clear()
        for s in statements:
            assert redact_sql(s, "generic") == s


# names built of words, for the property below: the pre-check must pass every secret the rule finds
_PARTS = ["key", "keys", "Key", "KEY", "api", "Api", "API", "access", "Access", "account", "order", "cust"]
_PARTS += ["customer", "sort", "primary", "part", "mon", "2", "256", "id", "Id", "format", "s3", "aes", "my"]
_SEPARATORS = ["", "_", ".", "-", "__", " "]
_name = st.lists(st.tuples(st.sampled_from(_PARTS), st.sampled_from(_SEPARATORS)), min_size=1, max_size=4).map(
    lambda parts: "".join(w + s for w, s in parts).strip(" ")
)
_CONTEXTS = [  # the name in SQL text; True where it is the whole name of a key; True where it is a property's
    ("{n}", True, False),
    ("'{n}'", True, True),
    ("SELECT a FROM s WHERE t.{n} = 'v1'", True, False),
    ("SELECT a FROM s WHERE x{n} = 'v1'", False, False),
    ("SELECT a FROM s WHERE {n}2 = 'v1'", False, False),
    ("SELECT a FROM s WHERE 7{n} = 'v1'", False, False),
    ("SELECT a FROM s WHERE 7_{n} = 'v1'", False, False),
    ("CREATE TABLE t WITH ('{n}'='v1') AS SELECT a FROM s", True, True),
    ('SELECT * FROM S3("{n}" = "v1")', True, True),
    ("SELECT 'https://h/p?{n}=v1' FROM s", True, True),
    ("SELECT a FROM s WHERE c = 'a;{n}=v1;b=2'", True, True),
]


@settings(max_examples=600, deadline=None, derandomize=True)
@given(name=_name, context=st.sampled_from(_CONTEXTS))
def test_the_pre_check_passes_every_secret_the_rule_masks(name: str, context: tuple[str, bool, bool]) -> None:
    template, whole, prop = context
    text = template.format(n=name)
    if whole and (is_sensitive(name) if prop else is_sensitive_column(name)):
        assert may_hold_secret(text), text
    if not may_hold_secret(text):  # nothing would be redacted with the pre-check out of the way
        with mock.patch.object(S, "may_hold_secret", return_value=True):
            S._MEMO.clear()
            for dialect in ("", "doris", "flink"):
                assert S._redact_sql(text, dialect) == text, text
            assert S.mask_value(text) == text
        S._MEMO.clear()


def test_the_pre_check_passes_every_secret_of_small_names() -> None:
    # every name of up to three words and two separators from a fixed list, lower-cased or not
    words = ["key", "keys", "api", "access", "order", "2", "customer"]
    for n in (1, 2, 3):
        for ws in itertools.product(words, repeat=n):
            for seps in itertools.product(["", "_", "."], repeat=n - 1):
                name = ws[0] + "".join(s + w for s, w in zip(seps, ws[1:], strict=True))
                for variant in (name, name.upper(), "".join(w.capitalize() for w in name.split("_"))):
                    if is_sensitive_column(variant):
                        assert may_hold_secret(variant) and may_hold_secret(f"t.{variant} = 'x'"), variant
                    if is_sensitive(variant):
                        assert may_hold_secret(f"'{variant}'='x'") and may_hold_secret(f"?{variant}=x"), variant


def test_names_not_ascii_keep_the_wider_rule() -> None:
    assert is_sensitive("schlüssel_key") and is_sensitive("ключ.key")
    assert may_hold_secret("WHERE schlüssel_key = 'x'")
    assert not is_sensitive("schlüssel")


def test_no_statement_with_a_small_name_hides_a_secret_from_the_pre_check() -> None:
    # what the tokenizer reads as a name may be less than the text shows (``7key``: 7 and ``key``)
    words = ["key", "api", "order", "7"]
    contexts = ["WHERE t.{n} = 'v1'", "WHERE {n} = 'v1'", "WHERE 7{n} = 'v1'", "WITH ('{n}'='v1')"]
    for n in (1, 2, 3):
        for ws in itertools.product(words, repeat=n):
            for seps in itertools.product(["", "_", "."], repeat=n - 1):
                name = ws[0] + "".join(s + w for s, w in zip(seps, ws[1:], strict=True))
                for variant in {name, name.upper(), name.title()}:
                    for context in contexts:
                        sql = "SELECT a FROM s " + context.format(n=variant)
                        if may_hold_secret(sql):
                            continue
                        with mock.patch.object(S, "may_hold_secret", return_value=True):
                            for dialect in ("", "mysql"):
                                assert S._redact_sql(sql, dialect) == sql, (sql, dialect)
