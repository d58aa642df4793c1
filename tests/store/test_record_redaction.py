"""The store masks the secrets of every event it is given but the very objects extraction redacted
(``secrets.is_redacted``): those it records as they are, without a second pass."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select
from tests.store.conftest import guide

from headwater.extract import extract_script
from headwater.model import LineageInfo, event_from_json, event_to_json
from headwater.model.secrets import is_redacted
from headwater.store import LineageStore, from_event
from headwater.store.schema import event_document, events, nodes

SECRET = "hunter2"


def _with_password(query_id: str) -> LineageInfo:
    """The guide's event, its statement and a filter expression quoting a password (a producer
    that did not redact): not made by extraction, so not marked."""
    e = guide(query_id)
    sql = e.context.sql + f" AND note = 'password={SECRET}' AND url = 'pg://u:{SECRET}@h'"
    ind = e.dataset_indirect[0]
    return dataclasses.replace(
        e,
        context=dataclasses.replace(e.context, sql=sql),
        dataset_indirect=(dataclasses.replace(ind, expression=f"url = 'pg://u:{SECRET}@h'"), *e.dataset_indirect[1:]),
    )


def _stored_texts(store: LineageStore) -> list[str]:
    """Every stored event document and node property text."""
    with store.engine.connect() as conn:
        docs = [event_document(r.payload, r.payload_zlib) or "" for r in conn.execute(select(events))]
        props = [str(r.properties) for r in conn.execute(select(nodes.c.properties))]
    return docs + props


@pytest.mark.parametrize("mode", ["record", "record_batch"])
def test_an_event_not_from_extraction_is_redacted(store: LineageStore, mode: str) -> None:
    sent = _with_password(f"secret-{mode}")
    assert not is_redacted(sent)
    if mode == "record":
        store.record(sent)
    else:
        store.record_batch([guide(f"other-{mode}"), sent])
    texts = _stored_texts(store)
    assert any("password=***" in t for t in texts)
    assert not any(SECRET in t for t in texts)


@pytest.mark.parametrize("mode", ["record", "record_batch"])
def test_a_copy_or_a_decoded_extracted_event_is_redacted_again(store: LineageStore, mode: str) -> None:
    """Only the object redaction returned is trusted: one decoded from its JSON, or a copy
    (``dataclasses.replace``) given a secret afterwards, goes through the store's redaction."""
    made = extract_script("INSERT INTO db.t SELECT a FROM db.s WHERE a > 0").events[0]
    assert is_redacted(made)
    decoded = event_from_json(event_to_json(made).replace("a > 0", f"a = 'pg://u:{SECRET}@h'"))
    copied = dataclasses.replace(
        made,
        event_id=made.event_id + "-copy",
        context=dataclasses.replace(
            made.context, sql=f"INSERT INTO db.t SELECT a FROM db.s WHERE n = 'password={SECRET}'"
        ),
    )
    assert not is_redacted(decoded) and not is_redacted(copied)
    if mode == "record":
        store.record(decoded)
        store.record(copied)
    else:
        store.record_batch([decoded, copied])
    assert not any(SECRET in t for t in _stored_texts(store))


def test_an_extracted_event_is_not_redacted_twice(store: LineageStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The extraction's own events skip the store's pass (the store's records of them are the same:
    extraction redacted them already)."""
    result = extract_script(f"INSERT INTO db.t SELECT a FROM db.s WHERE note = 'password={SECRET}'")
    made = result.events[0]
    assert is_redacted(made) and SECRET not in made.context.sql

    def refuse(event: LineageInfo, dialect: str = "") -> LineageInfo:
        raise AssertionError("redacted twice")

    monkeypatch.setattr(from_event, "redact_event", refuse)
    store.record(made)
    store.record_batch(result.events)  # a replay: nothing new
    texts = _stored_texts(store)
    assert any("password=***" in t for t in texts)
    assert not any(SECRET in t for t in texts)
