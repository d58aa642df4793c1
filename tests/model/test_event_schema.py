"""The event's JSON Schema: hand-built events validate, the codec round-trips, malformed events are refused."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headwater.model import (
    DATASET_INDIRECT_TYPES,
    OUTPUT_INDIRECT_TYPES,
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    DirectType,
    EventFormatError,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    QueryContext,
    Severity,
    SourceCommand,
    Status,
    TableRef,
    Target,
    event_from_dict,
    event_from_json,
    event_to_dict,
    event_to_json,
    make_event_id,
)
from headwater.model.schema import event_json_schema

DOC = Path(__file__).resolve().parents[2] / "docs" / "event-format.md"
VALIDATOR = jsonschema.Draft202012Validator(event_json_schema())

ORDERS = TableRef("internal", "lineage_demo", "lineage_orders")
CUSTOMERS = TableRef("internal", "lineage_demo", "lineage_customers")
SUMMARY = TableRef("internal", "lineage_demo", "lineage_customer_summary")


def col(table: TableRef, name: str) -> ColumnRef:
    return ColumnRef(table, name)


def minimal_event(command: SourceCommand = SourceCommand.INSERT_INTO) -> LineageInfo:
    """Only what every event has: no optional part filled."""
    target = TableRef("internal", "db", "t")
    ctx = QueryContext(command, "q1", "INSERT INTO t SELECT a FROM s")
    return LineageInfo(
        make_event_id("q1", target),
        command,
        Target(target, (Field("a"),)),
        (TableRef("internal", "db", "s"),),
        (DirectLineage("a", "s.a", DirectType.IDENTITY, Origin.COLUMN, (col(TableRef("internal", "db", "s"), "a"),)),),
        (),
        (),
        ctx,
    )


def full_event() -> LineageInfo:
    """Every optional part filled: view, set-operation branches, labels, masking, all indirect kinds,
    the whole query context, diagnostics with and without positions, a table without database."""
    view = TableRef("internal", "lineage_demo", "paid_orders")
    legacy = TableRef("hive", None, "legacy_orders")
    ctx = QueryContext(
        source_command=SourceCommand.INSERT_OVERWRITE,
        query_id="3c4a1f7e9b2d4e61-a8f05c3d2b1e7f90",
        sql="INSERT OVERWRITE TABLE lineage_customer_summary SELECT …",
        user="lineage_user",
        client_ip="192.0.2.10",
        database="lineage_demo",
        catalog="internal",
        state="OK",
        timestamp="2025-06-01T08:30:00.125Z",
        duration_ms=184,
        external_catalog_properties={"type": "hms", "hive.metastore.uris": "thrift://hms:9083"},
    )
    return LineageInfo(
        event_id=make_event_id(ctx.query_id, SUMMARY),
        source_command=SourceCommand.INSERT_OVERWRITE,
        target=Target(
            SUMMARY,
            (
                Field("customer_id", "BIGINT"),
                Field("region_label", "VARCHAR(16)"),
                Field("customer_seq", "BIGINT"),
                Field("email_hash"),
            ),
        ),
        sources=(ORDERS, CUSTOMERS, legacy),
        direct=(
            DirectLineage(
                "customer_id",
                "lineage_orders.customer_id",
                DirectType.IDENTITY,
                Origin.COLUMN,
                (col(ORDERS, "customer_id"),),
                (DirectInput(col(ORDERS, "customer_id")),),
                branch=0,
            ),
            DirectLineage(
                "customer_id",
                "legacy_orders.cust",
                DirectType.IDENTITY,
                Origin.COLUMN,
                (col(legacy, "cust"),),
                (DirectInput(col(legacy, "cust")),),
                branch=1,
            ),
            DirectLineage(
                "region_label",
                "UPPER(lineage_orders.region)",
                DirectType.TRANSFORMATION,
                Origin.COLUMN,
                (col(ORDERS, "region"),),
                (DirectInput(col(ORDERS, "region"), ("UPPER",)),),
            ),
            DirectLineage(
                "customer_seq",
                "ROW_NUMBER() OVER (ORDER BY lineage_orders.customer_id)",
                DirectType.TRANSFORMATION,
                Origin.COLUMN,
                (col(ORDERS, "customer_id"),),
            ),
            DirectLineage(
                "email_hash",
                "SHA2(CAST(lineage_customers.email AS STRING), 256)",
                DirectType.TRANSFORMATION,
                Origin.COLUMN,
                (col(CUSTOMERS, "email"),),
                (DirectInput(col(CUSTOMERS, "email"), ("CAST", "SHA2"), masking=True),),
            ),
            DirectLineage("email_hash", "CURRENT_USER()", DirectType.TRANSFORMATION, Origin.SYSTEM, (), (), branch=1),
            DirectLineage("region_label", "'n/a'", DirectType.TRANSFORMATION, Origin.CONSTANT, (), (), branch=1),
            DirectLineage(
                "customer_seq",
                "SUM(legacy_orders.amount)",
                DirectType.AGGREGATION,
                Origin.COLUMN,
                (col(legacy, "amount"),),
                (DirectInput(col(legacy, "amount"), ("SUM",)),),
                branch=1,
            ),
        ),
        dataset_indirect=(
            IndirectLineage(
                IndirectType.JOIN,
                "lineage_orders.customer_id = lineage_customers.customer_id",
                (col(ORDERS, "customer_id"), col(CUSTOMERS, "customer_id")),
            ),
            IndirectLineage(IndirectType.FILTER, "lineage_orders.status = 'PAID'", (col(ORDERS, "status"),)),
            IndirectLineage(IndirectType.GROUP_BY, "UPPER(lineage_orders.region)", (col(ORDERS, "region"),)),
            IndirectLineage(IndirectType.SORT, "SUM(lineage_orders.amount)", (col(ORDERS, "amount"),)),
        ),
        output_indirect=(
            IndirectLineage(
                IndirectType.WINDOW, "lineage_orders.customer_id", (col(ORDERS, "customer_id"),), "customer_seq"
            ),
            IndirectLineage(
                IndirectType.CONDITIONAL,
                "UPPER(lineage_orders.region) = 'EAST'",
                (col(ORDERS, "region"),),
                "region_label",
            ),
        ),
        context=ctx,
        status=Status.PARTIAL,
        diagnostics=(
            Diagnostic(
                "ambiguous_column",
                Severity.WARNING,
                "column cust is in more than one table with unknown columns",
                statement_index=3,
                line=12,
                column=5,
                construct="SELECT",
                target_column="customer_id",
            ),
            Diagnostic("target_bound_by_name", Severity.INFO, "bound by the query's output names"),
            Diagnostic("unknown_table", Severity.ERROR, "table x is not in the catalog", statement_index=0),
        ),
        via=(view,),
    )


def errors(data: Any) -> list[jsonschema.ValidationError]:
    return list(VALIDATOR.iter_errors(data))


# ---------------------------------------------------------------- the schema itself


def test_schema_is_valid_draft_2020_12() -> None:
    schema = event_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False


def _objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        found = [node] if node.get("type") == "object" else []
        return found + [o for v in node.values() for o in _objects(v)]
    if isinstance(node, list):
        return [o for v in node for o in _objects(v)]
    return []


def test_every_object_is_closed_except_the_properties_map() -> None:
    objects = _objects(event_json_schema())
    open_ = [o for o in objects if o.get("additionalProperties") is not False]
    assert open_ == [event_json_schema()["$defs"]["context"]["properties"]["external_catalog_properties"]]
    assert len(objects) == 13  # 13th: an incomplete_columns entry (issue 34)


def test_enums_are_the_models() -> None:
    schema = event_json_schema()
    defs = schema["$defs"]
    assert defs["sourceCommand"]["enum"] == [m.value for m in SourceCommand]
    assert schema["properties"]["status"]["enum"] == [m.value for m in Status]
    assert defs["direct"]["properties"]["type"]["enum"] == [m.value for m in DirectType]
    assert defs["direct"]["properties"]["origin"]["enum"] == [m.value for m in Origin]
    assert defs["diagnostic"]["properties"]["severity"]["enum"] == [m.value for m in Severity]
    assert defs["datasetIndirect"]["properties"]["type"]["enum"] == [m.value for m in DATASET_INDIRECT_TYPES]
    assert defs["outputIndirect"]["properties"]["type"]["enum"] == [m.value for m in OUTPUT_INDIRECT_TYPES]


def test_schema_loader_returns_fresh_copies() -> None:
    a = event_json_schema()
    a["title"] = "changed"
    assert event_json_schema()["title"] == "headwater lineage event"


# ---------------------------------------------------------------- valid events


@pytest.mark.parametrize("event", [minimal_event(), full_event()], ids=["minimal", "full"])
def test_event_validates_and_round_trips(event: LineageInfo) -> None:
    data = event_to_dict(event)
    assert errors(data) == []
    assert event_from_dict(data) == event
    assert event_to_dict(event_from_dict(data)) == data
    text = event_to_json(event, indent=2)
    assert errors(json.loads(text)) == []
    assert event_from_json(text) == event


@pytest.mark.parametrize("command", list(SourceCommand))
def test_every_source_command(command: SourceCommand) -> None:
    data = event_to_dict(minimal_event(command))
    assert errors(data) == []
    assert event_from_dict(data) == minimal_event(command)


def test_full_event_json_form() -> None:
    """Optional keys are written only when set: an indirect entry's ``target_column``, a diagnostic's
    position; nullable keys are always written."""
    data = event_to_dict(full_event())
    assert "target_column" not in data["dataset_indirect"][0]
    assert data["output_indirect"][0]["target_column"] == "customer_seq"
    assert data["diagnostics"][0] == {
        "code": "ambiguous_column",
        "severity": "WARNING",
        "message": "column cust is in more than one table with unknown columns",
        "statement_index": 3,
        "line": 12,
        "column": 5,
        "construct": "SELECT",
        "target_column": "customer_id",
    }
    assert data["diagnostics"][1] == {
        "code": "target_bound_by_name",
        "severity": "INFO",
        "message": "bound by the query's output names",
    }
    assert data["target"]["columns"][3] == {"name": "email_hash", "type": None}
    assert data["sources"][2] == {"catalog": "hive", "database": None, "name": "legacy_orders"}
    assert data["direct"][4]["inputs"] == [
        {
            "column": {
                "catalog": "internal",
                "database": "lineage_demo",
                "table": "lineage_customers",
                "column": "email",
            },
            "labels": ["CAST", "SHA2"],
            "masking": True,
        }
    ]
    assert data["context"]["external_catalog_properties"] == {
        "type": "hms",
        "hive.metastore.uris": "thrift://hms:9083",
    }


def test_minimal_event_json_form() -> None:
    data = event_to_dict(minimal_event())
    assert data["context"] == {
        "source_command": "InsertIntoTableCommand",
        "query_id": "q1",
        "sql": "INSERT INTO t SELECT a FROM s",
        "user": None,
        "client_ip": None,
        "database": None,
        "catalog": "internal",
        "state": "OK",
        "timestamp": None,
        "duration_ms": -1,
        "external_catalog_properties": {},
    }
    assert data["via"] == data["dataset_indirect"] == data["output_indirect"] == data["diagnostics"] == []


# ---------------------------------------------------------------- generated events

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
tables = st.builds(TableRef, names, st.none() | names, names)
columns = st.builds(ColumnRef, tables, names)
column_lists = st.lists(columns, max_size=3).map(tuple)
times = st.none() | st.datetimes(timezones=st.none() | st.just(UTC)).map(
    lambda t: t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
)
contexts = st.builds(
    QueryContext,
    st.sampled_from(SourceCommand),
    names,
    st.text(max_size=40),
    st.none() | names,
    st.none() | names,
    st.none() | names,
    names,
    names,
    times,
    st.integers(-1, 10**9),
    st.dictionaries(names, st.text(max_size=10), max_size=3),
)
diagnostics = st.lists(
    st.builds(
        Diagnostic,
        names,
        st.sampled_from(Severity),
        st.text(max_size=30),
        st.none() | st.integers(0, 10**6),
        st.none() | st.integers(1, 10**6),
        st.none() | st.integers(1, 10**6),
        st.none() | names,
        st.none() | names,
    ),
    max_size=3,
).map(tuple)


@st.composite
def events(draw: st.DrawFn) -> LineageInfo:
    """Any event the model allows whose direct and output entries name columns of its target."""
    fields = draw(st.lists(st.builds(Field, names, st.none() | names), max_size=4).map(tuple))
    target_columns = st.sampled_from([f.name for f in fields]) if fields else st.nothing()
    direct = st.builds(
        DirectLineage,
        target_columns,
        st.text(max_size=30),
        st.sampled_from(DirectType),
        st.sampled_from(Origin),
        column_lists,
        st.lists(
            st.builds(DirectInput, columns, st.lists(names, max_size=2).map(tuple), st.booleans()), max_size=2
        ).map(tuple),
        st.integers(0, 5),
    )
    dataset = st.builds(IndirectLineage, st.sampled_from(DATASET_INDIRECT_TYPES), st.text(max_size=30), column_lists)
    output = st.builds(
        IndirectLineage, st.sampled_from(OUTPUT_INDIRECT_TYPES), st.text(max_size=30), column_lists, target_columns
    )
    return LineageInfo(
        draw(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=128)),
        draw(st.sampled_from(SourceCommand)),
        Target(draw(tables), fields),
        draw(st.lists(tables, max_size=3).map(tuple)),
        draw(st.lists(direct, max_size=4).map(tuple)),
        draw(st.lists(dataset, max_size=3).map(tuple)),
        draw(st.lists(output, max_size=3).map(tuple)),
        draw(contexts),
        draw(st.sampled_from(Status)),
        draw(diagnostics),
        draw(st.lists(tables, max_size=2).map(tuple)),
    )


@settings(max_examples=150, deadline=None)
@given(events())
def test_generated_events_validate_and_round_trip(event: LineageInfo) -> None:
    data = json.loads(event_to_json(event))
    assert errors(data) == []
    assert event_from_dict(data) == event


# ---------------------------------------------------------------- malformed events


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        d[path[-1]] = value

    return change


def _del(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        del d[path[-1]]

    return change


MALFORMED = [
    # (change, decoder message, schema error path, schema message part)
    (_del(("context",)), "context: missing", (), "'context' is a required property"),
    (_del(("target",)), "target: missing", (), "'target' is a required property"),
    (_del(("event_id",)), "event_id: missing", (), "'event_id' is a required property"),
    (
        _set(("status",), "DONE"),
        'status: expected one of COMPLETE, PARTIAL, UNAVAILABLE, got "DONE"',
        ("status",),
        "'DONE' is not one of",
    ),
    (
        _set(("source_command",), "InsertCommand"),
        "source_command: expected one of InsertIntoTableCommand, InsertOverwriteTableCommand, CreateTableCommand",
        ("source_command",),
        "'InsertCommand' is not one of",
    ),
    (_del(("target", "table", "name")), "target.table.name: missing", ("target", "table"), "'name'"),
    (_del(("target", "columns", 1, "name")), "target.columns[1].name: missing", ("target", "columns", 1), "'name'"),
    (
        _set(("sources", 1), "lineage_orders"),
        "sources[1]: expected an object",
        ("sources", 1),
        "is not of type 'object'",
    ),
    (_del(("via", 0, "catalog")), "via[0].catalog: missing", ("via", 0), "'catalog' is a required property"),
    (
        _set(("direct", 0, "type"), "COPY"),
        'direct[0].type: expected one of IDENTITY, TRANSFORMATION, AGGREGATION, got "COPY"',
        ("direct", 0, "type"),
        "'COPY' is not one of",
    ),
    (
        _set(("direct", 2, "origin"), "USER"),
        'direct[2].origin: expected one of COLUMN, CONSTANT, SYSTEM, got "USER"',
        ("direct", 2, "origin"),
        "'USER' is not one of",
    ),
    (_del(("direct", 0, "expression")), "direct[0].expression: missing", ("direct", 0), "'expression'"),
    (
        _del(("direct", 0, "sources", 0, "column")),
        "direct[0].sources[0].column: missing",
        ("direct", 0, "sources", 0),
        "'column' is a required property",
    ),
    (
        _del(("direct", 2, "inputs", 0, "column")),
        "direct[2].inputs[0].column: missing",
        ("direct", 2, "inputs", 0),
        "'column' is a required property",
    ),
    (
        _set(("dataset_indirect", 0, "type"), "JOINS"),
        'dataset_indirect[0].type: expected one of JOIN, FILTER, GROUP_BY, SORT, got "JOINS"',
        ("dataset_indirect", 0, "type"),
        "'JOINS' is not one of",
    ),
    (
        _del(("dataset_indirect", 1, "expression")),
        "dataset_indirect[1].expression: missing",
        ("dataset_indirect", 1),
        "'expression' is a required property",
    ),
    (
        _del(("output_indirect", 0, "sources")),
        "output_indirect[0].sources: missing",
        ("output_indirect", 0),
        "'sources' is a required property",
    ),
    (
        _set(("output_indirect", 1, "type"), "CASE"),
        'output_indirect[1].type: expected one of WINDOW, CONDITIONAL, got "CASE"',
        ("output_indirect", 1, "type"),
        "'CASE' is not one of",
    ),
    (
        _set(("context", "source_command"), "Insert"),
        "context.source_command: expected one of InsertIntoTableCommand,",
        ("context", "source_command"),
        "'Insert' is not one of",
    ),
    (_del(("context", "sql")), "context.sql: missing", ("context",), "'sql' is a required property"),
    (_del(("context", "query_id")), "context.query_id: missing", ("context",), "'query_id' is a required property"),
    (
        _set(("diagnostics", 0, "severity"), "FATAL"),
        'diagnostics[0].severity: expected one of ERROR, WARNING, INFO, got "FATAL"',
        ("diagnostics", 0, "severity"),
        "'FATAL' is not one of",
    ),
    (
        _del(("diagnostics", 1, "message")),
        "diagnostics[1].message: missing",
        ("diagnostics", 1),
        "'message' is a required property",
    ),
]


@pytest.mark.parametrize(("change", "decoder", "path", "schema"), MALFORMED)
def test_malformed_event_is_refused_by_both(
    change: Callable[[dict[str, Any]], None], decoder: str, path: tuple[Any, ...], schema: str
) -> None:
    data = event_to_dict(full_event())
    change(data)
    with pytest.raises(EventFormatError) as info:
        event_from_dict(data)
    assert str(info.value).startswith(decoder)
    found = errors(data)
    assert found, "the schema accepted it"
    assert [(tuple(e.absolute_path), schema in e.message) for e in found] == [(path, True)]


def test_not_an_object() -> None:
    with pytest.raises(EventFormatError) as info:
        event_from_dict(["not", "an", "event"])
    assert str(info.value) == "event: expected an object, got an array"
    assert [e.message for e in errors(["not", "an", "event"])] == ["['not', 'an', 'event'] is not of type 'object'"]
    with pytest.raises(EventFormatError) as info:
        event_from_json("{not json")
    assert str(info.value).startswith("not JSON: ")


@pytest.mark.parametrize(
    ("change", "path", "decoder"),
    [
        (_set(("extra",), 1), (), "extra: unknown key"),
        (_set(("version",), "headwater.event/2"), ("version",), "version: unsupported event version"),
        (_set(("context", "query_id"), 42), ("context", "query_id"), "context.query_id: expected a string, got 42"),
        (_set(("context", "duration_ms"), -2), ("context", "duration_ms"), "context.duration_ms: expected an integer"),
        (
            _set(("context", "external_catalog_properties"), {"port": 9083}),
            ("context", "external_catalog_properties", "port"),
            "context.external_catalog_properties.port: expected a string, got 9083",
        ),
        (_set(("direct", 0, "branch"), -1), ("direct", 0, "branch"), "direct[0].branch: expected an integer >= 0"),
        (
            _set(("direct", 2, "inputs", 0, "masking"), "yes"),
            ("direct", 2, "inputs", 0, "masking"),
            'direct[2].inputs[0].masking: expected a boolean, got "yes"',
        ),
        (
            _set(("target", "columns", 0, "colour"), "red"),
            ("target", "columns", 0),
            "target.columns[0].colour: unknown key",
        ),
        (
            _set(("dataset_indirect", 0, "type"), "WINDOW"),
            ("dataset_indirect", 0, "type"),
            'dataset_indirect[0].type: expected one of JOIN, FILTER, GROUP_BY, SORT, got "WINDOW"',
        ),
        (
            _set(("dataset_indirect", 0, "target_column"), "customer_id"),
            ("dataset_indirect", 0),
            "dataset_indirect[0].target_column: unknown key",
        ),
        (
            _del(("output_indirect", 0, "target_column")),
            ("output_indirect", 0),
            "output_indirect[0].target_column: missing",
        ),
        (
            _set(("diagnostics", 0, "line"), 0),
            ("diagnostics", 0, "line"),
            "diagnostics[0].line: expected an integer >= 1",
        ),
        (_set(("diagnostics", 0, "construct"), None), ("diagnostics", 0, "construct"), "diagnostics[0].construct:"),
    ],
)
def test_what_the_writer_never_writes_is_refused_by_both(
    change: Callable[[dict[str, Any]], None], path: tuple, decoder: str
) -> None:
    """Wrong types, unknown keys, negative counts and misplaced indirect kinds: the writer never makes
    them, the schema names the field and so does the decoder."""
    data = event_to_dict(full_event())
    change(data)
    assert [tuple(e.absolute_path) for e in errors(data)] == [path]
    with pytest.raises(EventFormatError) as info:
        event_from_dict(data)
    assert str(info.value).startswith(decoder)


# ---------------------------------------------------------------- the documented example


def _doc_example() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Complete example", 1)[1]
    block = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert block is not None
    return json.loads(block.group(1))


def test_documented_example_is_valid_and_decodes() -> None:
    data = _doc_example()
    assert errors(data) == []
    event = event_from_dict(data)
    assert event_to_dict(event) == data
    assert event.event_id == make_event_id(event.context.query_id, event.target.table)


def test_documented_example_is_the_guides_event() -> None:
    event = event_from_dict(_doc_example())
    assert event.source_command == SourceCommand.INSERT_INTO
    assert event.status == Status.COMPLETE
    assert event.target.table == SUMMARY
    assert event.sources == (ORDERS, CUSTOMERS)
    assert [(d.target_column, d.expression, d.type.value) for d in event.direct] == [
        ("customer_id", "lineage_orders.customer_id", "IDENTITY"),
        ("region_label", "UPPER(lineage_orders.region)", "TRANSFORMATION"),
        ("total_amount", "SUM(lineage_orders.amount)", "AGGREGATION"),
        ("customer_seq", "ROW_NUMBER() OVER (ORDER BY lineage_orders.customer_id)", "TRANSFORMATION"),
        (
            "region_group",
            "CASE WHEN UPPER(lineage_orders.region) = 'EAST' THEN 'CORE' ELSE 'OTHER' END",
            "TRANSFORMATION",
        ),
    ]
    assert [(i.type.value, i.expression) for i in event.dataset_indirect] == [
        ("JOIN", "lineage_orders.customer_id = lineage_customers.customer_id"),
        ("FILTER", "lineage_orders.`status` = 'PAID'"),
        ("FILTER", "lineage_customers.customer_level = 'VIP'"),
        ("FILTER", "SUM(lineage_orders.amount) >= 50"),
        ("GROUP_BY", "lineage_orders.customer_id"),
        ("GROUP_BY", "UPPER(lineage_orders.region)"),
        ("SORT", "SUM(lineage_orders.amount)"),
    ]
    assert [(i.target_column, i.type.value, i.expression) for i in event.output_indirect] == [
        ("customer_seq", "WINDOW", "lineage_orders.customer_id"),
        ("region_group", "CONDITIONAL", "UPPER(lineage_orders.region) = 'EAST'"),
    ]
    c = event.context
    assert (c.user, c.client_ip, c.database, c.catalog, c.state) == (
        "lineage_user",
        "192.0.2.10",
        "lineage_demo",
        "internal",
        "OK",
    )
    assert dict(c.external_catalog_properties) == {}
    assert c.sql.startswith("INSERT INTO lineage_customer_summary\nWITH customer_totals AS (")


def test_compact_json_is_the_same_document_as_the_dict_form():
    import json

    from headwater.extract import extract_script
    from headwater.extract.examples import guide_event
    from headwater.model import event_to_dict, event_to_json

    events = [
        guide_event(),
        *extract_script('INSERT INTO t SELECT nope, "a\\"b" FROM a JOIN b ON a.k = b.k', database="d").events,
    ]
    assert events[1].diagnostics  # one event with diagnostics, one without
    for e in events:
        assert json.loads(event_to_json(e)) == event_to_dict(e)
        assert json.loads(event_to_json(e, indent=2)) == event_to_dict(e)
