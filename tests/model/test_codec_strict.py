"""The event decoder is strict: every bad field is refused with ``EventFormatError`` naming it, and no
other exception ever escapes, whatever JSON it is given (docs/event-format.md, "Validation")."""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from headwater.dispatch.sample import guide_event
from headwater.extract.context import now_iso
from headwater.history.record import format_time
from headwater.model import (
    EVENT_VERSION,
    EventFormatError,
    LineageInfo,
    Status,
    event_from_dict,
    event_from_json,
    event_to_dict,
    event_to_json,
)
from headwater.model.codec import MAX_EVENT_ID
from headwater.model.schema import event_json_schema
from headwater.store.names import to_us

SCHEMA = event_json_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
TIME_PATTERN = re.compile(SCHEMA["$defs"]["context"]["properties"]["timestamp"]["pattern"])
GUIDE = event_to_dict(guide_event())
DIAGNOSTIC = {"code": "unknown_column", "severity": "ERROR", "message": "column x is not in t"}


def guide_doc() -> dict[str, Any]:
    """The guide's event (direct[2] is total_amount with input labels ["SUM"]) and one diagnostic."""
    doc = copy.deepcopy(GUIDE)
    doc["diagnostics"] = [dict(DIAGNOSTIC)]
    return doc


def _set(*path: Any) -> Callable[[Any], Callable[[dict[str, Any]], None]]:
    def value(v: Any) -> Callable[[dict[str, Any]], None]:
        def change(d: dict[str, Any]) -> None:
            for key in path[:-1]:
                d = d[key]
            d[path[-1]] = v

        return change

    return value


def _del(*path: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        del d[path[-1]]

    return change


# (case id, change, the message the decoder gives (a prefix when it ends with "..."), refused by the schema too)
BAD: list[tuple[str, Callable[[dict[str, Any]], None], str, bool]] = [
    # event_id
    ("id-int", _set("event_id")(123), "event_id: expected a non-empty string, got 123", True),
    ("id-null", _set("event_id")(None), "event_id: expected a non-empty string, got null", True),
    ("id-empty", _set("event_id")(""), 'event_id: expected a non-empty string, got ""', True),
    (
        "id-long",
        _set("event_id")("e" * 129),
        "event_id: 129 characters, longer than the 128 an event id may have",
        True,
    ),
    # version
    (
        "version-2",
        _set("version")("headwater.event/2"),
        'version: unsupported event version "headwater.event/2": this reader reads "headwater.event/1" only',
        True,
    ),
    ("version-int", _set("version")(1), 'version: expected "headwater.event/1", got 1', True),
    ("version-null", _set("version")(None), 'version: expected "headwater.event/1", got null', True),
    # unknown keys, everywhere
    ("top-extra", _set("extra")(1), "extra: unknown key (allowed here: version, event_id, ...", True),
    (
        "input-typo",
        _set("direct", 2, "inputs", 0, "masknig")(True),
        "direct[2].inputs[0].masknig: unknown key (allowed here: column, labels, masking)",
        True,
    ),
    (
        "context-extra",
        _set("context", "session")("s1"),
        "context.session: unknown key (allowed here: source_command, query_id, sql, ...",
        True,
    ),
    (
        "dataset-target-column",
        _set("dataset_indirect", 0, "target_column")("customer_id"),
        "dataset_indirect[0].target_column: unknown key (allowed here: type, expression, sources)",
        True,
    ),
    (
        "odd-key",
        _set("target", "table", "\ud800 x")(1),
        'target.table["\\ud800 x"]: unknown key (allowed here: catalog, database, name)',
        True,
    ),
    # context
    (
        "time-text",
        _set("context", "timestamp")("not a time"),
        'context.timestamp: expected an ISO 8601 time such as "2025-06-01T08:30:00.125Z", or null, got "not a time"',
        True,
    ),
    ("time-feb-30", _set("context", "timestamp")("2026-02-30T00:00:00Z"), "context.timestamp: expected an ...", False),
    ("time-hour-24", _set("context", "timestamp")("2026-01-01T24:00:00Z"), "context.timestamp: expected an ...", False),
    ("time-array", _set("context", "timestamp")([1]), "context.timestamp: expected an ...got an array", True),
    ("time-int", _set("context", "timestamp")(12345), "context.timestamp: expected an ...got 12345", True),
    ("time-empty", _set("context", "timestamp")(""), 'context.timestamp: expected an ...got ""', True),
    ("sql-null", _set("context", "sql")(None), "context.sql: expected a string, got null", True),
    ("sql-int", _set("context", "sql")(5), "context.sql: expected a string, got 5", True),
    ("query-id-int", _set("context", "query_id")(7), "context.query_id: expected a string, got 7", True),
    ("query-id-missing", _del("context", "query_id"), "context.query_id: missing", True),
    ("catalog-null", _set("context", "catalog")(None), "context.catalog: expected a string, got null", True),
    ("user-int", _set("context", "user")(1), "context.user: expected a string or null, got 1", True),
    (
        "duration-low",
        _set("context", "duration_ms")(-2),
        "context.duration_ms: expected an integer >= -1, got -2",
        True,
    ),
    (
        "duration-text",
        _set("context", "duration_ms")("5"),
        'context.duration_ms: expected an integer >= -1, got "5"',
        True,
    ),
    (
        "props-array",
        _set("context", "external_catalog_properties")([]),
        "context.external_catalog_properties: expected an object of strings, got an array",
        True,
    ),
    (
        "props-null",
        _set("context", "external_catalog_properties")(None),
        "context.external_catalog_properties: expected an object of strings, got null",
        True,
    ),
    (
        "props-value",
        _set("context", "external_catalog_properties")({"hive.port": 9083}),
        "context.external_catalog_properties.hive.port: expected a string, got 9083",
        True,
    ),
    (
        "command",
        _set("context", "source_command")("Insert"),
        'context.source_command: expected one of InsertIntoTableCommand, ...got "Insert"',
        True,
    ),
    # direct inputs and entries
    (
        "masking-text",
        _set("direct", 2, "inputs", 0, "masking")("yes"),
        'direct[2].inputs[0].masking: expected a boolean, got "yes"',
        True,
    ),
    (
        "masking-int",
        _set("direct", 2, "inputs", 0, "masking")(1),
        "direct[2].inputs[0].masking: expected a boolean, got 1",
        True,
    ),
    (
        "labels-text",
        _set("direct", 2, "inputs", 0, "labels")("SUM"),
        'direct[2].inputs[0].labels: expected an array of strings, got "SUM"',
        True,
    ),
    (
        "label-int",
        _set("direct", 2, "inputs", 0, "labels")(["SUM", 1]),
        "direct[2].inputs[0].labels[1]: expected a string, got 1",
        True,
    ),
    ("inputs-null", _set("direct", 2, "inputs")(None), "direct[2].inputs: expected an array, got null", True),
    ("branch-negative", _set("direct", 2, "branch")(-1), "direct[2].branch: expected an integer >= 0, got -1", True),
    ("branch-text", _set("direct", 2, "branch")("0"), 'direct[2].branch: expected an integer >= 0, got "0"', True),
    ("branch-bool", _set("direct", 2, "branch")(True), "direct[2].branch: expected an integer >= 0, got true", True),
    ("branch-fraction", _set("direct", 2, "branch")(1.5), "direct[2].branch: expected an integer >= 0, got 1.5", True),
    ("branch-float", _set("direct", 2, "branch")(1.0), "direct[2].branch: expected an integer >= 0, got 1.0", False),
    (
        "direct-type",
        _set("direct", 0, "type")("COPY"),
        'direct[0].type: expected one of IDENTITY, TRANSFORMATION, AGGREGATION, got "COPY"',
        True,
    ),
    (
        "direct-type-list",
        _set("direct", 0, "type")(["IDENTITY"]),
        "direct[0].type: expected one of IDENTITY, ...got an array",
        True,
    ),
    (
        "expression-null",
        _set("direct", 0, "expression")(None),
        "direct[0].expression: expected a string, got null",
        True,
    ),
    # indirect kinds per list
    (
        "output-join",
        _set("output_indirect", 0, "type")("JOIN"),
        'output_indirect[0].type: expected one of WINDOW, CONDITIONAL, got "JOIN" (a type of dataset_indirect entries)',
        True,
    ),
    (
        "dataset-window",
        _set("dataset_indirect", 0, "type")("WINDOW"),
        'dataset_indirect[0].type: expected one of JOIN, FILTER, GROUP_BY, SORT, got "WINDOW" '
        "(a type of output_indirect entries)",
        True,
    ),
    (
        "output-no-column",
        _del("output_indirect", 0, "target_column"),
        "output_indirect[0].target_column: missing",
        True,
    ),
    # names
    (
        "target-name",
        _set("target", "table", "name")(""),
        'target.table.name: expected a non-empty string, got ""',
        True,
    ),
    (
        "target-catalog",
        _set("target", "table", "catalog")(""),
        'target.table.catalog: expected a non-empty string, got ""',
        True,
    ),
    (
        "target-db-int",
        _set("target", "table", "database")(3),
        "target.table.database: expected a string or null, got 3",
        True,
    ),
    (
        "field-name",
        _set("target", "columns", 1, "name")(""),
        'target.columns[1].name: expected a non-empty string, got ""',
        True,
    ),
    (
        "field-type",
        _set("target", "columns", 1, "type")(16),
        "target.columns[1].type: expected a string or null, got 16",
        True,
    ),
    (
        "source-catalog",
        _set("sources", 0, "catalog")(""),
        'sources[0].catalog: expected a non-empty string, got ""',
        True,
    ),
    ("via-null", _set("via")(None), "via: expected an array, got null", True),
    (
        "column-name",
        _set("direct", 0, "sources", 0, "column")(""),
        'direct[0].sources[0].column: expected a non-empty string, got ""',
        True,
    ),
    (
        "column-table",
        _set("dataset_indirect", 0, "sources", 1, "table")(""),
        'dataset_indirect[0].sources[1].table: expected a non-empty string, got ""',
        True,
    ),
    (
        "input-column",
        _set("direct", 1, "inputs", 0, "column")("region"),
        'direct[1].inputs[0].column: expected an object, got "region"',
        True,
    ),
    # target columns are the target's columns
    (
        "direct-not-target",
        _set("direct", 0, "target_column")("nope"),
        'direct[0].target_column: "nope" is not one of the target\'s columns (target.columns)',
        False,
    ),
    (
        "direct-empty-target",
        _set("direct", 0, "target_column")(""),
        'direct[0].target_column: expected a non-empty string, got ""',
        True,
    ),
    (
        "output-not-target",
        _set("output_indirect", 1, "target_column")("region"),
        'output_indirect[1].target_column: "region" is not one of the target\'s columns (target.columns)',
        False,
    ),
    # top level
    ("status-null", _set("status")(None), "status: expected one of COMPLETE, PARTIAL, UNAVAILABLE, got null", True),
    ("sources-object", _set("sources")({}), "sources: expected an array, got an object", True),
    ("target-columns-text", _set("target", "columns")("a"), 'target.columns: expected an array, got "a"', True),
    ("context-missing", _del("context"), "context: missing", True),
    # diagnostics
    (
        "diag-index",
        _set("diagnostics", 0, "statement_index")(-1),
        "diagnostics[0].statement_index: expected an integer >= 0, got -1",
        True,
    ),
    (
        "diag-line-null",
        _set("diagnostics", 0, "line")(None),
        "diagnostics[0].line: expected an integer >= 1, got null",
        True,
    ),
    (
        "diag-construct",
        _set("diagnostics", 0, "construct")(None),
        "diagnostics[0].construct: expected a string, got null",
        True,
    ),
    ("diag-code", _set("diagnostics", 0, "code")(404), "diagnostics[0].code: expected a string, got 404", True),
    # what cannot be stored
    (
        "sql-surrogate",
        _set("context", "sql")("SELECT '\ud800'"),
        "context.sql: not valid Unicode (lone surrogate \\ud800)",
        False,
    ),
    (
        "label-surrogate",
        _set("direct", 2, "inputs", 0, "labels")(["\udfff"]),
        "direct[2].inputs[0].labels[0]: not valid Unicode (lone surrogate \\udfff)",
        False,
    ),
]


@pytest.mark.parametrize(("change", "message", "schema_refuses"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_document_is_refused_naming_the_field(
    change: Callable[[dict[str, Any]], None], message: str, schema_refuses: bool
) -> None:
    doc = guide_doc()
    change(doc)
    with pytest.raises(EventFormatError) as info:
        event_from_dict(doc)
    text = str(info.value)
    head, dots, tail = message.partition("...")
    assert text.startswith(head) and text.endswith(tail) if dots else text == message
    assert text.isascii(), "messages are plain ASCII (they go into HTTP responses and logs)"
    assert MESSAGE.match(text)
    # the schema agrees, except on what it cannot state (docs/event-format.md lists it)
    assert bool(list(VALIDATOR.iter_errors(doc))) is schema_refuses


def test_the_qa_cases_all_name_their_field() -> None:
    """Every case of the QA report is among the refused documents above."""
    names = {c[0] for c in BAD}
    for case in ["id-int", "id-empty", "id-long", "version-2", "time-text", "time-feb-30", "time-array"]:
        assert case in names
    for case in ["time-int", "sql-null", "query-id-int", "props-array", "masking-text", "labels-text"]:
        assert case in names
    for case in ["branch-negative", "output-join", "dataset-window", "target-name", "column-name"]:
        assert case in names
    for case in ["source-catalog", "top-extra", "direct-not-target", "output-not-target"]:
        assert case in names


def test_the_writers_forms_decode() -> None:
    """The guide event, the documented example's values, and the event with every optional key
    written all decode to the event they came from."""
    event = guide_event()
    assert event_from_dict(guide_doc()).diagnostics[0].code == "unknown_column"
    assert event_from_dict(event_to_dict(event)) == event
    assert event_from_json(event_to_json(event)) == event
    assert event_from_json(event_to_json(event).encode()) == event


def test_event_id_length() -> None:
    doc = guide_doc()
    doc["event_id"] = "é" * MAX_EVENT_ID  # characters, not bytes
    assert event_from_dict(doc).event_id == doc["event_id"]
    assert list(VALIDATOR.iter_errors(doc)) == []
    doc["event_id"] += "é"
    with pytest.raises(EventFormatError, match=r"^event_id: 129 characters"):
        event_from_dict(doc)


def test_documented_defaults_still_decode() -> None:
    """A hand-written event may leave out the keys docs/event-format.md lists (as older decoders allowed)."""
    doc = {
        "event_id": "e1",
        "source_command": "InsertIntoTableCommand",
        "target": {"table": {"catalog": "internal", "name": "t"}, "columns": [{"name": "a"}]},
        "sources": [{"catalog": "internal", "name": "s"}],
        "direct": [
            {
                "target_column": "a",
                "expression": "s.a",
                "type": "IDENTITY",
                "origin": "COLUMN",
                "sources": [{"catalog": "internal", "table": "s", "column": "a"}],
            },
            {
                "target_column": "a",
                "expression": "UPPER(s.b)",
                "type": "TRANSFORMATION",
                "origin": "COLUMN",
                "sources": [{"catalog": "internal", "table": "s", "column": "b"}],
                "inputs": [{"column": {"catalog": "internal", "table": "s", "column": "b"}}],
            },
        ],
        "dataset_indirect": [],
        "output_indirect": [],
        "context": {
            "source_command": "InsertIntoTableCommand",
            "query_id": "q1",
            "sql": "INSERT INTO t SELECT a FROM s",
        },
    }
    e = event_from_dict(doc)
    assert (e.version, e.status, e.via, e.diagnostics) == (EVENT_VERSION, Status.COMPLETE, (), ())
    assert e.target.table.database is None and e.target.columns[0].type is None
    assert (e.direct[0].inputs, e.direct[0].branch) == ((), 0)
    assert (e.direct[1].inputs[0].labels, e.direct[1].inputs[0].masking) == ((), False)
    c = e.context
    assert (c.user, c.client_ip, c.database, c.timestamp) == (None, None, None, None)
    assert (c.catalog, c.state, c.duration_ms, dict(c.external_catalog_properties)) == ("internal", "OK", -1, {})
    # written back, it is a complete document the schema accepts
    assert list(VALIDATOR.iter_errors(event_to_dict(e))) == []


@pytest.mark.parametrize(
    "timestamp",
    [
        "2025-06-01T08:30:00.125Z",  # the codec's and the docs' form
        now_iso(),  # what extraction writes
        format_time(datetime(2024, 5, 1, 10, tzinfo=UTC)),  # what history writes
        datetime.now(UTC).isoformat(timespec="milliseconds"),  # what the hooks write
        "2024-01-02 03:04:05",  # naive: UTC
        "2024-01-02T03:04:05.123456+05:30",
        "2024-01-02",
        None,
    ],
)
def test_timestamps_the_writers_make_are_accepted(timestamp: str | None) -> None:
    doc = guide_doc()
    doc["context"]["timestamp"] = timestamp
    assert event_from_dict(doc).context.timestamp == timestamp
    assert list(VALIDATOR.iter_errors(doc)) == []
    if timestamp is not None:
        to_us(timestamp)  # and the store reads it


def _decodes_time(value: str) -> bool:
    doc = guide_doc()
    doc["context"]["timestamp"] = value
    try:
        event_from_dict(doc)
    except EventFormatError as exc:
        assert str(exc).startswith("context.timestamp: ")
        return False
    return True


def _store_reads(value: str) -> bool:
    try:
        to_us(value)
    except ValueError:
        return False
    return True


iso_like = st.builds(
    lambda t, sep, spec, zone, pad: pad + t.isoformat(sep=sep, timespec=spec).replace("+00:00", zone) + pad,
    st.datetimes(timezones=st.none() | st.just(UTC)),
    st.sampled_from("T t_"),
    st.sampled_from(["hours", "minutes", "seconds", "milliseconds", "microseconds"]),
    st.sampled_from(["Z", "+00:00", "z", "Z ", ""]),
    st.sampled_from(["", " ", "\t"]),
)
time_texts = st.one_of(
    iso_like,
    st.text(st.sampled_from("0123456789-:.,+ TWZ"), max_size=30),
    st.text(max_size=30),
)


@settings(max_examples=400, deadline=None)
@given(time_texts)
@example("2026-02-30T00:00:00Z")
@example(" 2024-01-02T03:04:05Z ")
@example("2024W01")
@example("\ud800")
def test_a_timestamp_decodes_exactly_when_the_store_reads_it(value: str) -> None:
    """Decode-accepted == store-parseable (``headwater.store.names.to_us``); the schema's pattern is a
    first check that every accepted time passes."""
    accepted = _decodes_time(value)
    assert accepted == _store_reads(value)
    if accepted:
        assert TIME_PATTERN.search(value)


# ---------------------------------------------------------------- fuzz: nothing but EventFormatError

json_leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
EVENT_WORDS = [
    *("version", "event_id", "source_command", "status", "target", "sources", "via", "direct"),
    *("dataset_indirect", "output_indirect", "context", "diagnostics", "table", "columns", "catalog"),
    *("database", "name", "column", "target_column", "expression", "type", "origin", "branch", "inputs"),
    *("labels", "masking", "query_id", "sql", "timestamp", "external_catalog_properties", "code"),
    *("severity", "message", "line"),
]
json_values = st.recursive(
    json_leaves | st.sampled_from(["InsertIntoTableCommand", "IDENTITY", "COLUMN", "JOIN", "WINDOW", EVENT_VERSION]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(EVENT_WORDS) | st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=30,
)


_SEGMENT = r'(?:\.[\w.\-]+|\[\d+\]|\["(?:[^"\\]|\\.)*"(?:\.\.\.)?\])'
MESSAGE = re.compile(rf"^(?:event|[\w.\-]+)?{_SEGMENT}*: \S")
"""A message: the path of the field (the event's own keys bare, ``event`` for the whole), ": ", what is wrong."""


def _decode(value: Any) -> LineageInfo | None:
    try:
        return event_from_dict(value)
    except EventFormatError as exc:
        assert MESSAGE.match(str(exc)) and str(exc).isascii(), str(exc)
        return None


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_any_json_value_gives_an_event_or_an_event_format_error(value: Any) -> None:
    _decode(value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60) | json_values.map(json.dumps) | st.binary(max_size=30))
@example("[" * 100_000)
@example("1" * 5000)
@example('{"event_id": 1e400}')
@example('{"version": NaN}')
def test_any_text_gives_an_event_or_an_event_format_error(text: str | bytes) -> None:
    with contextlib.suppress(EventFormatError):
        event_from_json(text)


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside a document (not the document itself)."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield (*path, key)
        yield from _paths(value, (*path, key))


GUIDE_PATHS = list(_paths(guide_doc()))
# keys a document may leave out, by the kind of object they are in (docs/event-format.md)
DEFAULTED = {
    "event": {"version", "status", "via", "diagnostics"},
    "context": {"user", "client_ip", "database", "catalog", "state", "timestamp", "duration_ms"}
    | {"external_catalog_properties"},
    "direct": {"inputs", "branch"},
    "input": {"labels", "masking"},
    "field": {"type"},
    "table": {"database"},
}
DECODER_ONLY = re.compile(
    r"is not one of the target's columns|^context\.timestamp: |not valid Unicode|expected an integer >= -?\d, got -?\d[\d.e+]*$"
)


def _kind(path: tuple[Any, ...]) -> str:
    """What kind of object is at ``path`` in an event document."""
    names = [p for p in path if isinstance(p, str)]
    if not names:
        return "event"
    if names == ["context"]:
        return "context"
    if names == ["direct"]:
        return "direct"
    if names == ["direct", "inputs"]:
        return "input"
    if names == ["target", "columns"]:
        return "field"
    return "table"


mutations = st.lists(
    st.tuples(
        st.sampled_from(GUIDE_PATHS),
        st.sampled_from(["replace", "delete", "add"]),
        json_values | st.sampled_from(["", "lineage_orders", "customer_id", "2026-02-30T00:00:00Z", 1.0, -1]),
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations)
def test_a_mutated_event_gives_an_event_or_an_event_format_error(changes: list[tuple[tuple, str, Any]]) -> None:
    """Replace, delete or add values deep inside a valid event. Only ``EventFormatError`` may escape;
    what the decoder accepts, the schema accepts too (but for keys the decoder fills in), and what the
    schema accepts, the decoder accepts (but for the rules a schema cannot state)."""
    doc = guide_doc()
    for path, action, value in changes:
        parent: Any = doc
        for key in path[:-1]:
            if not isinstance(parent, dict | list):
                break
            try:
                parent = parent[key]
            except (KeyError, IndexError, TypeError):  # an earlier change replaced a container
                break
        else:
            key = path[-1]
            if isinstance(parent, dict):
                if action == "delete":
                    parent.pop(key, None)
                elif action == "add":
                    parent[f"x_{key}"] = value
                else:
                    parent[key] = value
            elif isinstance(parent, list) and isinstance(key, int) and key < len(parent):
                if action == "delete":
                    del parent[key]
                elif action == "add":
                    parent.insert(key, value)
                else:
                    parent[key] = value
    try:
        event = event_from_dict(doc)
    except EventFormatError as exc:
        assert MESSAGE.match(str(exc)) and str(exc).isascii(), str(exc)
        schema_errors = list(VALIDATOR.iter_errors(doc))
        assert schema_errors or DECODER_ONLY.search(str(exc)), f"only the decoder refuses: {exc}"
        return
    assert list(VALIDATOR.iter_errors(event_to_dict(event))) == []
    assert event_from_dict(event_to_dict(event)) == event
    for error in VALIDATOR.iter_errors(doc):
        assert error.validator == "required", error.message
        missing = set(error.validator_value) - set(error.instance)
        assert missing <= DEFAULTED[_kind(tuple(error.absolute_path))], (error.message, tuple(error.absolute_path))


# ---------------------------------------------------------------- what extraction makes


def test_every_golden_event_decodes_strictly() -> None:
    """The golden corpus' events (every dialect and construct it covers) pass the strict decoder."""
    from tests.golden.harness import all_cases, extract_case

    count = 0
    for case in all_cases():
        for event in extract_case(case).events:
            assert event_from_json(event_to_json(event)) == event, case.id
            count += 1
    assert count > 100


def test_the_documented_messages_are_the_decoders() -> None:
    """Each message shown under "Validation" in docs/event-format.md is what a bad document above gives."""
    doc_text = (Path(__file__).resolve().parents[2] / "docs" / "event-format.md").read_text(encoding="utf-8")
    block = re.search(r"### Validation\n.*?```text\n(.*?)\n```", doc_text, re.S)
    assert block is not None
    given_messages = set()
    for _, change, _, _ in BAD:
        doc = guide_doc()
        change(doc)
        with pytest.raises(EventFormatError) as info:
            event_from_dict(doc)
        given_messages.add(str(info.value))
    documented = block.group(1).splitlines()
    assert len(documented) >= 8
    assert [m for m in documented if m not in given_messages] == []
