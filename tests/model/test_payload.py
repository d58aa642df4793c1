"""The runtime-neutral payload: lossless round trip, checked references, versioning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headwater.extract import Extractor, RunInfo
from headwater.model import (
    DATASET_INDIRECT_TYPES,
    OUTPUT_INDIRECT_TYPES,
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    LineageInfo,
    Origin,
    QueryContext,
    Severity,
    SourceCommand,
    Status,
    TableRef,
    Target,
)
from headwater.model.payload import PayloadError, decode, dumps, encode, loads

FIXTURE = Path(__file__).with_name("guide_event.payload.json")

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
tables = st.builds(TableRef, st.sampled_from(["internal", "hive"]), st.none() | names, names)
columns = st.builds(ColumnRef, tables, names)
refs = st.lists(columns, max_size=3).map(tuple)


@st.composite
def events(draw: st.DrawFn) -> LineageInfo:
    target = Target(draw(tables), tuple(draw(st.lists(st.builds(Field, names, st.none() | names), max_size=4))))
    target_names = [f.name for f in target.columns] or ["x"]
    tcol = st.sampled_from(target_names) | names
    direct = draw(
        st.lists(
            st.builds(
                DirectLineage,
                tcol,
                st.text(max_size=20),
                st.sampled_from(DirectType),
                st.sampled_from(Origin),
                refs,
                st.lists(
                    st.builds(DirectInput, columns, st.lists(names, max_size=2).map(tuple), st.booleans()), max_size=2
                ).map(tuple),
                st.integers(0, 3),
            ),
            max_size=4,
        )
    )
    ctx = draw(
        st.builds(
            QueryContext,
            st.sampled_from(SourceCommand),
            names,
            st.text(max_size=30),
            st.none() | names,
            st.none() | names,
            st.none() | names,
            names,
            st.just("OK"),
            st.none() | st.just("2026-01-01T00:00:00Z"),
            st.integers(-1, 10**6),
            st.dictionaries(names, st.text(max_size=5), max_size=2),
        )
    )
    return LineageInfo(
        event_id=draw(names),
        source_command=draw(st.sampled_from(SourceCommand)),
        target=target,
        sources=tuple(draw(st.lists(tables, max_size=3))),
        direct=tuple(direct),
        dataset_indirect=tuple(
            draw(
                st.lists(
                    st.builds(IndirectLineage, st.sampled_from(DATASET_INDIRECT_TYPES), st.text(max_size=20), refs),
                    max_size=3,
                )
            )
        ),
        output_indirect=tuple(
            draw(
                st.lists(
                    st.builds(
                        IndirectLineage, st.sampled_from(OUTPUT_INDIRECT_TYPES), st.text(max_size=20), refs, tcol
                    ),
                    max_size=3,
                )
            )
        ),
        context=ctx,
        status=draw(st.sampled_from(Status)),
        diagnostics=tuple(
            draw(
                st.lists(
                    st.builds(
                        Diagnostic,
                        names,
                        st.sampled_from(Severity),
                        st.text(max_size=20),
                        st.none() | st.integers(0, 9),
                        st.none() | st.integers(1, 99),
                        st.none() | st.integers(1, 99),
                        st.none() | names,
                        st.none() | names,
                    ),
                    max_size=2,
                )
            )
        ),
        via=tuple(draw(st.lists(tables, max_size=2))),
    )


@settings(max_examples=300, deadline=None)
@given(events())
def test_round_trip_is_lossless(event):
    assert decode(encode(event)) == event
    assert loads(dumps(event)) == event


def guide_event() -> LineageInfo:
    from headwater.cli.extract_cmd import guide_script

    run = RunInfo(query_id="guide-q1", user="lineage_user", client_ip="192.0.2.10", timestamp="2026-11-29T00:00:00Z")
    return Extractor().run(guide_script(), run).events[0]


def test_a_saved_payload_decodes_to_a_fresh_extraction():
    """The fixture was written once by ``dumps(guide_event())``; extraction must still agree with it."""
    assert loads(FIXTURE.read_text()) == guide_event()


def test_datasets_are_registered_once_with_their_referenced_fields():
    p = encode(guide_event())
    assert [d[:3] for d in p["datasets"]] == [
        ["internal", "lineage_demo", "lineage_customer_summary"],
        ["internal", "lineage_demo", "lineage_orders"],
        ["internal", "lineage_demo", "lineage_customers"],
    ]
    assert p["datasets"][1][3] == ["customer_id", "region", "amount", "status"]
    assert p["event"]["direct"][0][5] == [[1, 0]]


def test_payload_is_smaller_than_the_json_form():
    from headwater.model import event_to_json

    e = guide_event()
    assert len(dumps(e)) < len(event_to_json(e))


def _broken(mutate) -> dict:
    p = json.loads(dumps(guide_event()))
    mutate(p)
    return p


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda p: p["event"]["direct"][0][5].__setitem__(0, [9, 0]),
            "event.direct[0].sources: dataset 9 is not in the registry",
        ),
        (
            lambda p: p["event"]["direct"][0][5].__setitem__(0, [1, 99]),
            "event.direct[0].sources: field 99 is not a field of dataset 1",
        ),
        (lambda p: p["event"].__setitem__("target", 7), "event.target: dataset 7 is not in the registry"),
        (lambda p: p["event"]["output_indirect"][0].__setitem__(0, 42), "event.output_indirect[0]: field 42"),
        (lambda p: p["event"]["dataset_indirect"][0].__setitem__(0, "JOINED"), "'JOINED' is not a valid IndirectType"),
        (lambda p: p.__setitem__("format", "headwater.payload/2.0"), "major version 2 is not supported"),
        (lambda p: p.__setitem__("format", "something/1.0"), "format: expected"),
        (lambda p: p["event"].pop("direct"), "malformed payload"),
    ],
)
def test_bad_payloads_are_refused_with_the_place(mutate, message):
    with pytest.raises(PayloadError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        decode(_broken(mutate))


def test_a_newer_minor_version_is_read():
    assert decode(_broken(lambda p: p.__setitem__("format", "headwater.payload/1.7"))) == guide_event()
