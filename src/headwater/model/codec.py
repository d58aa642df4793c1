"""The readable JSON form of a ``LineageInfo`` (``docs/event-format.md``, ``lineage-event.schema.json``).

>>> from headwater.model.event import *
>>> t = TableRef("internal", "db", "t")
>>> ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", "INSERT INTO t SELECT 1 FROM s")
>>> e = LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, (Field("a"),)), (), (), (), (), ctx)
>>> event_from_dict(event_to_dict(e)) == e
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from headwater.model import bounded_json
from headwater.model.bounded_json import JsonTooDeep
from headwater.model.event import (
    DATASET_INDIRECT_TYPES,
    EVENT_VERSION,
    OUTPUT_INDIRECT_TYPES,
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IncompleteColumn,
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
)


class EventFormatError(ValueError):
    """A JSON document that is not a valid headwater event; the message names the field."""


def table_to_dict(t: TableRef) -> dict[str, Any]:
    return {"catalog": t.catalog, "database": t.database, "name": t.name}


def column_to_dict(c: ColumnRef) -> dict[str, Any]:
    return {"catalog": c.table.catalog, "database": c.table.database, "table": c.table.name, "column": c.column}


def _indirect(i: IndirectLineage) -> dict[str, Any]:
    d: dict[str, Any] = {
        "type": i.type.value,
        "expression": i.expression,
        "sources": [column_to_dict(c) for c in i.sources],
    }
    if i.target_column is not None:
        d["target_column"] = i.target_column
    return d


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    out: dict[str, Any] = {"code": d.code, "severity": d.severity.value, "message": d.message}
    for key in ("statement_index", "line", "column", "construct", "target_column"):
        value = getattr(d, key)
        if value is not None:
            out[key] = value
    return out


def event_to_dict_head_and_tail(e: LineageInfo) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parts of the JSON form before and after the lineage lists (shared by both writers)."""
    c = e.context
    head = {
        "version": e.version,
        "event_id": e.event_id,
        "source_command": e.source_command.value,
        "status": e.status.value,
        "target": {
            "table": table_to_dict(e.target.table),
            "columns": [{"name": f.name, "type": f.type} for f in e.target.columns],
        },
        "sources": [table_to_dict(t) for t in e.sources],
        "via": [table_to_dict(t) for t in e.via],
    }
    tail: dict[str, Any] = {
        "context": _context(c),
        "diagnostics": [_diagnostic(d) for d in e.diagnostics],
    }
    if e.incomplete_columns:  # written only when some column is not known to be complete
        tail["incomplete_columns"] = [
            {"target_column": i.target_column, "codes": list(i.codes)} for i in e.incomplete_columns
        ]
    return head, tail


def event_to_dict(e: LineageInfo) -> dict[str, Any]:
    """The event as plain JSON-ready data."""
    head, tail = event_to_dict_head_and_tail(e)
    return {
        **head,
        "direct": [
            {
                "target_column": d.target_column,
                "expression": d.expression,
                "type": d.type.value,
                "origin": d.origin.value,
                "branch": d.branch,
                "sources": [column_to_dict(s) for s in d.sources],
                "inputs": [
                    {"column": column_to_dict(i.column), "labels": list(i.labels), "masking": i.masking}
                    for i in d.inputs
                ],
            }
            for d in e.direct
        ],
        "dataset_indirect": [_indirect(i) for i in e.dataset_indirect],
        "output_indirect": [_indirect(i) for i in e.output_indirect],
        **tail,
    }


_dumps = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
_str = json.encoder.encode_basestring  # type: ignore[attr-defined]  # the C encoder of one string


def _opt(s: str | None) -> str:
    return "null" if s is None else _str(s)


# each column object's JSON text, by id() with the object held (so the id stays its own): extraction
# reuses one ``ColumnRef`` per base column across statements, so most columns are written once a script
_COLUMN_TEXT: dict[int, tuple[ColumnRef, str]] = {}
_COLUMN_TEXT_SIZE = 65536
# each table object's texts, the same way: as a table object (``{"catalog": …, "name": …}``, the
# spacing of ``_dumps``) and as the head of its columns' objects (``{"catalog":…,"table":…,"column":``)
_TABLE_TEXT: dict[int, tuple[TableRef, str, str]] = {}
_TABLE_TEXT_SIZE = 16384


def _table_text(t: TableRef) -> tuple[TableRef, str, str]:
    kept = _TABLE_TEXT.get(id(t))
    if kept is None or kept[0] is not t:
        if len(_TABLE_TEXT) >= _TABLE_TEXT_SIZE:
            _TABLE_TEXT.clear()
        catalog, database, name = _opt(t.catalog), _opt(t.database), _str(t.name)
        kept = _TABLE_TEXT[id(t)] = (
            t,
            f'{{"catalog": {catalog}, "database": {database}, "name": {name}}}',
            f'{{"catalog":{catalog},"database":{database},"table":{name},"column":',
        )
    return kept


def event_to_json(e: LineageInfo, indent: int | None = None) -> str:
    """The event's JSON text: ``json.dumps(event_to_dict(e))``, written faster when not indented.

    The compact form writes the column lists (most of an event) directly with the C string
    encoder, each column object once (its text kept across events, ``_COLUMN_TEXT``; an enum, a
    ``StrEnum``, is encoded as the string it is, without reading its ``value``), and the target
    and the tables the same way in ``json.dumps``'s spacing; the result is the same document.
    """
    if indent is not None:
        return json.dumps(event_to_dict(e), indent=indent, ensure_ascii=False)
    try:
        head = _head(e)
    except TypeError:  # a name that is not text (not an event the decoder or extraction makes)
        head = _dumps(event_to_dict_head_and_tail(e)[0])[:-1]
    cache = _COLUMN_TEXT
    if len(cache) >= _COLUMN_TEXT_SIZE:
        cache.clear()
    get = cache.get
    tables = _TABLE_TEXT

    def col(c: ColumnRef) -> str:
        kept = get(id(c))
        if kept is None or kept[0] is not c:
            t = c.table
            table = tables.get(id(t))
            if table is None or table[0] is not t:
                table = _table_text(t)
            kept = cache[id(c)] = (c, f"{table[2]}{_str(c.column)}}}")
        return kept[1]

    parts = _PART_TEXT
    if len(parts) >= _PART_TEXT_SIZE:
        parts.clear()
    kept_direct = parts.get(id(e.direct))
    if kept_direct is None or kept_direct[0] is not e.direct:
        kept_direct = parts[id(e.direct)] = (e.direct, _direct_text(e.direct, col))
    texts = [kept_direct[1]]
    for items in (e.dataset_indirect, e.output_indirect):
        kept_part = parts.get(id(items))
        if kept_part is None or kept_part[0] is not items:
            kept_part = parts[id(items)] = (items, _indirect_text(items, col))
        texts.append(kept_part[1])
    tail = _dumps(event_to_dict_head_and_tail(e)[1] if e.diagnostics else _tail(e))
    return f'{head},"direct":[{texts[0]}],"dataset_indirect":[{texts[1]}],"output_indirect":[{texts[2]}],{tail[1:]}'


_PART_TEXT: dict[int, tuple[tuple[Any, ...], str]] = {}
"""The JSON text of each list of lineage entries (``direct``, ``dataset_indirect``, ``output_indirect``),
by id() with the tuple held: a re-run of a statement (``extract.reuse``) shares the lists its literals
do not reach with the statement's first event."""
_PART_TEXT_SIZE = 16384


def _direct_text(items: tuple[DirectLineage, ...], col: Callable[[ColumnRef], str]) -> str:
    """The JSON text of direct entries, comma-separated."""
    texts = []
    for d in items:
        inputs = ",".join(
            [
                f'{{"column":{col(i.column)},"labels":[{",".join(map(_str, i.labels)) if i.labels else ""}],'
                f'"masking":{"true" if i.masking else "false"}}}'
                for i in d.inputs
            ]
        )
        texts.append(
            f'{{"target_column":{_str(d.target_column)},"expression":{_str(d.expression)},'
            f'"type":{_str(d.type)},"origin":{_str(d.origin)},"branch":{int(d.branch)},'
            f'"sources":[{",".join(map(col, d.sources))}],"inputs":[{inputs}]}}'
        )
    return ",".join(texts)


def _indirect_text(items: tuple[IndirectLineage, ...], col: Callable[[ColumnRef], str]) -> str:
    """The JSON text of indirect entries, comma-separated."""
    texts = []
    for i in items:
        tc = "" if i.target_column is None else f',"target_column":{_str(i.target_column)}'
        sources = ",".join(map(col, i.sources))
        texts.append(f'{{"type":{_str(i.type)},"expression":{_str(i.expression)},"sources":[{sources}]{tc}}}')
    return ",".join(texts)


def _head(e: LineageInfo) -> str:
    """The JSON text of the event's parts before the lineage lists, without its closing brace."""
    table = _table_text
    columns = ", ".join([f'{{"name": {_str(f.name)}, "type": {_opt(f.type)}}}' for f in e.target.columns])
    sources = ", ".join([table(t)[1] for t in e.sources])
    via = ", ".join([table(t)[1] for t in e.via])
    return (
        f'{{"version": {_str(e.version)}, "event_id": {_str(e.event_id)}, '
        f'"source_command": {_str(e.source_command.value)}, "status": {_str(e.status.value)}, '
        f'"target": {{"table": {table(e.target.table)[1]}, "columns": [{columns}]}}, '
        f'"sources": [{sources}], "via": [{via}]'
    )


def _context(c: QueryContext) -> dict[str, Any]:
    """The event document's ``context`` object."""
    return {
        "source_command": c.source_command.value,
        "query_id": c.query_id,
        "sql": c.sql,
        "user": c.user,
        "client_ip": c.client_ip,
        "database": c.database,
        "catalog": c.catalog,
        "state": c.state,
        "timestamp": c.timestamp,
        "duration_ms": c.duration_ms,
        "external_catalog_properties": dict(c.external_catalog_properties),
    }


def _tail(e: LineageInfo) -> dict[str, Any]:
    """``event_to_dict_head_and_tail(e)[1]`` of an event without diagnostics."""
    c = e.context
    return {
        "context": _context(c),
        "diagnostics": [],
    }


# ---------------------------------------------------------------- decoding
#
# The decoder checks everything the schema says, plus what a schema cannot say (a target column
# must be one of the target's columns, a timestamp must be a time the store can read, strings must
# be valid Unicode), and raises ``EventFormatError`` naming the field for anything else. Each check
# has a fast inline form for the values a writer produces (plain ``str``, ASCII, ``int``) and falls
# back to a slower, complete check (``_name``, ``_text``, …) that accepts or explains the rest.

MAX_EVENT_ID = 128
"""The longest ``event_id`` (the store's ``hw_events.event_id`` is ``VARCHAR(128)``)."""

_KEY_ORDER: dict[frozenset[str], str] = {}  # each object's keys, listed in the writer's order for messages


def _keys(*names: str) -> frozenset[str]:
    keys = frozenset(names)
    _KEY_ORDER[keys] = ", ".join(names)
    return keys


_EVENT_KEYS = _keys(
    "version",
    "event_id",
    "source_command",
    "status",
    "target",
    "sources",
    "via",
    "direct",
    "dataset_indirect",
    "output_indirect",
    "context",
    "diagnostics",
    "incomplete_columns",
)
_EVENT_REQUIRED = (
    "event_id",
    "source_command",
    "target",
    "sources",
    "direct",
    "dataset_indirect",
    "output_indirect",
    "context",
)
_TARGET_KEYS = _keys("table", "columns")
_FIELD_KEYS = _keys("name", "type")
_TABLE_KEYS = _keys("catalog", "database", "name")
_COLUMN_KEYS = _keys("catalog", "database", "table", "column")
_DIRECT_KEYS = _keys("target_column", "expression", "type", "origin", "branch", "sources", "inputs")
_DIRECT_REQUIRED = ("target_column", "expression", "type", "origin", "sources")
_INPUT_KEYS = _keys("column", "labels", "masking")
_DATASET_KEYS = _keys("type", "expression", "sources")
_OUTPUT_KEYS = _keys("type", "expression", "sources", "target_column")
_CONTEXT_KEYS = _keys(
    "source_command",
    "query_id",
    "sql",
    "user",
    "client_ip",
    "database",
    "catalog",
    "state",
    "timestamp",
    "duration_ms",
    "external_catalog_properties",
)
_DIAGNOSTIC_KEYS = _keys(
    "code", "severity", "message", "statement_index", "line", "column", "construct", "target_column"
)

_SOURCE_COMMANDS = {m.value: m for m in SourceCommand}
_STATUSES = {m.value: m for m in Status}
_DIRECT_TYPES = {m.value: m for m in DirectType}
_ORIGINS = {m.value: m for m in Origin}
_SEVERITIES = {m.value: m for m in Severity}
_DATASET_TYPES = {m.value: m for m in DATASET_INDIRECT_TYPES}
_OUTPUT_TYPES = {m.value: m for m in OUTPUT_INDIRECT_TYPES}
_EMPTY: tuple[()] = ()

_Cache = dict[tuple[Any, ...], Any]


def _got(value: Any) -> str:
    """A short, ASCII-only rendering of a refused value, in JSON spelling."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value[:40]) + ("..." if len(value) > 40 else "")
    if isinstance(value, int):
        return str(int(value)) if -(10**15) < value < 10**15 else "a large integer"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return f"a Python {type(value).__name__}"


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def _at(path: str, key: Any) -> str:
    """``path.key`` (``key`` at the top); ``path["key"]`` when the key is not plain, in ASCII JSON
    with ``:`` escaped (so that the first ``": "`` still ends the path)."""
    if isinstance(key, str) and _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    rendered = _got(key).replace(":", "\\u003a") if isinstance(key, str) else _got(key)
    return f"{path or 'event'}[{rendered}]"


def _expected(path: str, what: str, value: Any) -> EventFormatError:
    return EventFormatError(f"{path}: expected {what}, got {_got(value)}")


def _object(d: Any, path: str, keys: frozenset[str]) -> None:
    """Raise unless ``d`` is an object whose keys are among ``keys`` (the event's own keys have no
    prefix: ``event_id``, not ``event.event_id``)."""
    if not isinstance(d, dict):
        raise _expected(path, "an object", d)
    unknown = [k for k in d if k not in keys]
    if unknown:
        where = _at("" if path == "event" else path, unknown[0])
        raise EventFormatError(f"{where}: unknown key (allowed here: {_KEY_ORDER[keys]})")


def _missing(d: dict[str, Any], path: str, required: tuple[str, ...]) -> EventFormatError:
    key = next(k for k in required if k not in d)
    return EventFormatError(f"{path}.{key}: missing")


def _valid_unicode(s: str, path: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = s[exc.start]
        raise EventFormatError(f"{path}: not valid Unicode (lone surrogate \\u{ord(bad):04x})") from None
    return s


def _text(value: Any, path: str) -> str:
    """Any string (the fast path has already let plain ASCII ones through)."""
    if not isinstance(value, str):
        raise _expected(path, "a string", value)
    return value if value.isascii() else _valid_unicode(value, path)


def _name(value: Any, path: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str):
        raise _expected(path, "a non-empty string", value)
    if not value:
        raise EventFormatError(f'{path}: expected a non-empty string, got ""')
    return value if value.isascii() else _valid_unicode(value, path)


def _opt_text(value: Any, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _expected(path, "a string or null", value)
    return value if value.isascii() else _valid_unicode(value, path)


def _int(value: Any, path: str, minimum: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
        return int(value)
    raise _expected(path, f"an integer >= {minimum}", value)


def _array(value: Any, path: str) -> list[Any] | tuple[Any, ...]:
    if isinstance(value, list | tuple):
        return value
    raise _expected(path, "an array", value)


def _pick(table: dict[str, Any], value: Any, path: str) -> Any:
    try:
        return table[value]
    except (KeyError, TypeError):
        raise _expected(path, f"one of {', '.join(table)}", value) from None


def _indirect_type(table: dict[str, Any], value: Any, path: str) -> IndirectType:
    member = table.get(value) if isinstance(value, str) else None
    if member is None:
        other = "output_indirect" if table is _DATASET_TYPES else "dataset_indirect"
        elsewhere = isinstance(value, str) and value in IndirectType.__members__
        hint = f" (a type of {other} entries)" if elsewhere else ""
        raise EventFormatError(f"{path}: expected one of {', '.join(table)}, got {_got(value)}{hint}")
    return member  # type: ignore[no-any-return]


def _timestamp(value: Any, path: str) -> str | None:
    """A time the store can read: ``headwater.store.names.to_us``'s rule (ISO 8601 as Python reads
    it, a trailing ``Z`` for UTC, surrounding blanks ignored) on a string, or null."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            t = datetime.fromisoformat(text)
            if t.tzinfo is None:
                t = t.replace(tzinfo=UTC)
            _ = t - _EPOCH  # what the store computes
        except (ValueError, OverflowError):
            pass
        else:
            return value
    raise _expected(path, 'an ISO 8601 time such as "2025-06-01T08:30:00.125Z", or null', value)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _table_of(catalog: Any, database: Any, name: Any, path: str, name_key: str, cache: _Cache) -> TableRef:
    """The checked table of a table or column object (``name_key``: where its name is), shared
    within the event."""
    if type(catalog) is not str or not catalog or not catalog.isascii():
        catalog = _name(catalog, f"{path}.catalog")
    if database is not None and (type(database) is not str or not database.isascii()):
        database = _opt_text(database, f"{path}.database")
    if type(name) is not str or not name or not name.isascii():
        name = _name(name, f"{path}.{name_key}")
    key = (catalog, database, name)
    t = cache.get(key)
    if t is None:
        t = cache[key] = TableRef(catalog, database, name)
    return t  # type: ignore[no-any-return]


def _read_table(d: Any, path: str, cache: _Cache) -> TableRef:
    if type(d) is not dict or not d.keys() <= _TABLE_KEYS:
        _object(d, path, _TABLE_KEYS)
    try:
        catalog, name = d["catalog"], d["name"]
    except KeyError:
        raise _missing(d, path, ("catalog", "name")) from None
    return _table_of(catalog, d.get("database"), name, path, "name", cache)


def _read_column(d: Any, path: str, cache: _Cache) -> ColumnRef:
    if type(d) is dict and len(d) == 4:  # the writer's form: a column seen before in the event is shared
        try:
            c = cache.get((d["catalog"], d["database"], d["table"], d["column"]))
        except (KeyError, TypeError):  # a key missing, or an unhashable value
            c = None
        if c is not None:
            return c  # type: ignore[no-any-return]
    if type(d) is not dict or not d.keys() <= _COLUMN_KEYS:
        _object(d, path, _COLUMN_KEYS)
    try:
        catalog, table, column = d["catalog"], d["table"], d["column"]
    except KeyError:
        raise _missing(d, path, ("catalog", "table", "column")) from None
    t = _table_of(catalog, d.get("database"), table, path, "table", cache)
    if type(column) is not str or not column or not column.isascii():
        column = _name(column, f"{path}.column")
    c = cache[(t.catalog, t.database, t.name, column)] = ColumnRef(t, column)
    return c


def _read_columns(value: Any, path: str, cache: _Cache) -> tuple[ColumnRef, ...]:
    if type(value) is not list:
        value = _array(value, path)
    return tuple([_read_column(c, f"{path}[{k}]", cache) for k, c in enumerate(value)])


def _read_labels(value: Any, path: str) -> tuple[str, ...]:
    if type(value) is not list and not isinstance(value, list | tuple):
        raise _expected(path, "an array of strings", value)
    for k, label in enumerate(value):
        if type(label) is not str or not label.isascii():
            _text(label, f"{path}[{k}]")
    return tuple(value)


def _read_input(d: Any, path: str, cache: _Cache) -> DirectInput:
    if type(d) is not dict or not d.keys() <= _INPUT_KEYS:
        _object(d, path, _INPUT_KEYS)
    try:
        column = d["column"]
    except KeyError:
        raise EventFormatError(f"{path}.column: missing") from None
    column = _read_column(column, f"{path}.column", cache)
    labels = d.get("labels", _EMPTY)
    labels = _EMPTY if type(labels) is list and not labels else _read_labels(labels, f"{path}.labels")
    masking = d.get("masking", False)
    if masking is not False and masking is not True:
        raise _expected(f"{path}.masking", "a boolean", masking)
    return DirectInput(column, labels, masking)


def _target_column(value: Any, path: str, targets: set[str]) -> str:
    if type(value) is not str or not value or not value.isascii():
        value = _name(value, path)
    if value not in targets:
        raise EventFormatError(f"{path}: {_got(value)} is not one of the target's columns (target.columns)")
    return value  # type: ignore[no-any-return]


def _read_direct(d: Any, path: str, cache: _Cache, targets: set[str]) -> DirectLineage:
    if type(d) is not dict or not d.keys() <= _DIRECT_KEYS:
        _object(d, path, _DIRECT_KEYS)
    try:
        target_column, expression, type_, origin, sources = (
            d["target_column"],
            d["expression"],
            d["type"],
            d["origin"],
            d["sources"],
        )
    except KeyError:
        raise _missing(d, path, _DIRECT_REQUIRED) from None
    target_column = _target_column(target_column, f"{path}.target_column", targets)
    if type(expression) is not str or not expression.isascii():
        expression = _text(expression, f"{path}.expression")
    type_ = _pick(_DIRECT_TYPES, type_, f"{path}.type")
    origin = _pick(_ORIGINS, origin, f"{path}.origin")
    branch = d.get("branch", 0)
    if type(branch) is not int or branch < 0:
        branch = _int(branch, f"{path}.branch", 0)
    sources = _read_columns(sources, f"{path}.sources", cache)
    inputs = d.get("inputs", _EMPTY)
    if type(inputs) is not list:
        inputs = _array(inputs, f"{path}.inputs")
    inputs = tuple([_read_input(i, f"{path}.inputs[{k}]", cache) for k, i in enumerate(inputs)]) if inputs else _EMPTY
    return DirectLineage(target_column, expression, type_, origin, sources, inputs, branch)


def _read_indirect(d: Any, path: str, cache: _Cache, targets: set[str] | None) -> IndirectLineage:
    """A dataset entry (``targets`` None) or an output entry (its column must be a target column)."""
    keys, types = (_DATASET_KEYS, _DATASET_TYPES) if targets is None else (_OUTPUT_KEYS, _OUTPUT_TYPES)
    if type(d) is not dict or not d.keys() <= keys:
        _object(d, path, keys)
    try:
        type_, expression, sources = d["type"], d["expression"], d["sources"]
        target_column = None if targets is None else d["target_column"]
    except KeyError:
        raise _missing(d, path, ("type", "expression", "sources", "target_column")) from None
    type_ = _indirect_type(types, type_, f"{path}.type")
    if type(expression) is not str or not expression.isascii():
        expression = _text(expression, f"{path}.expression")
    sources = _read_columns(sources, f"{path}.sources", cache)
    if targets is not None:
        target_column = _target_column(target_column, f"{path}.target_column", targets)
    return IndirectLineage(type_, expression, sources, target_column)


def _read_context(c: Any) -> QueryContext:
    path = "context"
    if type(c) is not dict or not c.keys() <= _CONTEXT_KEYS:
        _object(c, path, _CONTEXT_KEYS)
    try:
        command, query_id, sql = c["source_command"], c["query_id"], c["sql"]
    except KeyError:
        raise _missing(c, path, ("source_command", "query_id", "sql")) from None
    command = _pick(_SOURCE_COMMANDS, command, "context.source_command")
    if type(query_id) is not str or not query_id.isascii():
        query_id = _text(query_id, "context.query_id")
    if type(sql) is not str or not sql.isascii():
        sql = _text(sql, "context.sql")
    user = _opt_text(c.get("user"), "context.user")
    client_ip = _opt_text(c.get("client_ip"), "context.client_ip")
    database = _opt_text(c.get("database"), "context.database")
    catalog = _text(c.get("catalog", "internal"), "context.catalog")
    state = _text(c.get("state", "OK"), "context.state")
    timestamp = _timestamp(c.get("timestamp"), "context.timestamp")
    duration_ms = c.get("duration_ms", -1)
    if type(duration_ms) is not int or duration_ms < -1:
        duration_ms = _int(duration_ms, "context.duration_ms", -1)
    props = c.get("external_catalog_properties", None)
    if props is None and "external_catalog_properties" not in c:
        props = {}
    elif not isinstance(props, dict):
        raise _expected("context.external_catalog_properties", "an object of strings", props)
    else:
        for key, value in props.items():
            if type(key) is not str or not key.isascii():
                _text(key, _at("context.external_catalog_properties", key))
            if type(value) is not str or not value.isascii():
                _text(value, _at("context.external_catalog_properties", key))
    return QueryContext(
        command, query_id, sql, user, client_ip, database, catalog, state, timestamp, duration_ms, props
    )


def _read_diagnostic(d: Any, path: str) -> Diagnostic:
    if type(d) is not dict or not d.keys() <= _DIAGNOSTIC_KEYS:
        _object(d, path, _DIAGNOSTIC_KEYS)
    try:
        code, severity, message = d["code"], d["severity"], d["message"]
    except KeyError:
        raise _missing(d, path, ("code", "severity", "message")) from None
    code = _text(code, f"{path}.code")
    severity = _pick(_SEVERITIES, severity, f"{path}.severity")
    message = _text(message, f"{path}.message")
    positions = [
        None if key not in d else _int(d[key], f"{path}.{key}", minimum)
        for key, minimum in (("statement_index", 0), ("line", 1), ("column", 1))
    ]
    texts = [None if key not in d else _text(d[key], f"{path}.{key}") for key in ("construct", "target_column")]
    return Diagnostic(code, severity, message, *positions, *texts)


def _version(value: Any) -> str:
    if isinstance(value, str) and value == EVENT_VERSION:
        return EVENT_VERSION
    if isinstance(value, str) and value.startswith("headwater.event/"):
        raise EventFormatError(
            f'version: unsupported event version {_got(value)}: this reader reads "{EVENT_VERSION}" only'
        )
    raise _expected("version", f'"{EVENT_VERSION}"', value)


def table_from_dict(d: Any, path: str = "table") -> TableRef:
    """A table object (``{"catalog", "database", "name"}``), checked like ``event_from_dict`` does."""
    return _read_table(d, path, {})


def column_from_dict(d: Any, path: str = "column") -> ColumnRef:
    """A column object (``{"catalog", "database", "table", "column"}``), checked."""
    return _read_column(d, path, {})


def event_from_dict(d: Any) -> LineageInfo:
    """Decode and check an event; raises ``EventFormatError`` naming the first bad field.

    Any JSON value may be given: whatever is not a valid event raises ``EventFormatError`` and
    nothing else. The rules are the schema's (``lineage-event.schema.json``) plus a few it cannot
    state; ``docs/event-format.md`` lists them.
    """
    if type(d) is not dict:
        _object(d, "event", _EVENT_KEYS)
    version = _version(d["version"]) if "version" in d else EVENT_VERSION
    if not d.keys() <= _EVENT_KEYS:
        _object(d, "event", _EVENT_KEYS)
    try:
        event_id, command, target, sources, direct, dataset_indirect, output_indirect, context = (
            d["event_id"],
            d["source_command"],
            d["target"],
            d["sources"],
            d["direct"],
            d["dataset_indirect"],
            d["output_indirect"],
            d["context"],
        )
    except KeyError:
        key = next(k for k in _EVENT_REQUIRED if k not in d)
        raise EventFormatError(f"{key}: missing") from None
    if type(event_id) is not str or not event_id or len(event_id) > MAX_EVENT_ID or not event_id.isascii():
        event_id = _name(event_id, "event_id")
        if len(event_id) > MAX_EVENT_ID:
            raise EventFormatError(
                f"event_id: {len(event_id)} characters, longer than the {MAX_EVENT_ID} an event id may have"
            )
    command = _pick(_SOURCE_COMMANDS, command, "source_command")
    status = _pick(_STATUSES, d["status"], "status") if "status" in d else Status.COMPLETE

    cache: _Cache = {}
    if type(target) is not dict or not target.keys() <= _TARGET_KEYS:
        _object(target, "target", _TARGET_KEYS)
    try:
        table, fields = target["table"], target["columns"]
    except KeyError:
        raise _missing(target, "target", ("table", "columns")) from None
    table = _read_table(table, "target.table", cache)
    if type(fields) is not list:
        fields = _array(fields, "target.columns")
    columns = []
    for k, f in enumerate(fields):
        if type(f) is not dict or not f.keys() <= _FIELD_KEYS:
            _object(f, f"target.columns[{k}]", _FIELD_KEYS)
        try:
            name = f["name"]
        except KeyError:
            raise EventFormatError(f"target.columns[{k}].name: missing") from None
        if type(name) is not str or not name or not name.isascii():
            name = _name(name, f"target.columns[{k}].name")
        type_ = f.get("type")
        if type_ is not None and (type(type_) is not str or not type_.isascii()):
            type_ = _opt_text(type_, f"target.columns[{k}].type")
        columns.append(Field(name, type_))
    targets = {f.name for f in columns}

    if type(sources) is not list:
        sources = _array(sources, "sources")
    sources = tuple([_read_table(t, f"sources[{k}]", cache) for k, t in enumerate(sources)])
    via = d.get("via", _EMPTY)
    if type(via) is not list:
        via = _array(via, "via")
    via = tuple([_read_table(t, f"via[{k}]", cache) for k, t in enumerate(via)])
    if type(direct) is not list:
        direct = _array(direct, "direct")
    direct = tuple([_read_direct(x, f"direct[{k}]", cache, targets) for k, x in enumerate(direct)])
    if type(dataset_indirect) is not list:
        dataset_indirect = _array(dataset_indirect, "dataset_indirect")
    dataset_indirect = tuple(
        [_read_indirect(x, f"dataset_indirect[{k}]", cache, None) for k, x in enumerate(dataset_indirect)]
    )
    if type(output_indirect) is not list:
        output_indirect = _array(output_indirect, "output_indirect")
    output_indirect = tuple(
        [_read_indirect(x, f"output_indirect[{k}]", cache, targets) for k, x in enumerate(output_indirect)]
    )
    ctx = _read_context(context)
    diagnostics = d.get("diagnostics", _EMPTY)
    if type(diagnostics) is not list:
        diagnostics = _array(diagnostics, "diagnostics")
    diagnostics = tuple([_read_diagnostic(x, f"diagnostics[{k}]") for k, x in enumerate(diagnostics)])
    incomplete = d.get("incomplete_columns", _EMPTY)
    if type(incomplete) is not list:
        incomplete = _array(incomplete, "incomplete_columns")
    incomplete = tuple([_read_incomplete(x, f"incomplete_columns[{k}]", targets) for k, x in enumerate(incomplete)])
    return LineageInfo(
        event_id,
        command,
        Target(table, tuple(columns)),
        sources,
        direct,
        dataset_indirect,
        output_indirect,
        ctx,
        status,
        diagnostics,
        via,
        version,
        incomplete,
    )


def _read_incomplete(d: Any, path: str, targets: set[str]) -> IncompleteColumn:
    """One ``incomplete_columns`` entry: ``{"target_column": a target column, "codes": [text…]}``."""
    if type(d) is not dict:
        raise _expected(path, "an object", d)
    if set(d) != {"target_column", "codes"}:
        raise EventFormatError(f"{path}: expected the keys target_column, codes; got {', '.join(sorted(d)) or 'none'}")
    codes = d["codes"]
    if type(codes) is not list:
        codes = _array(codes, f"{path}.codes")
    return IncompleteColumn(
        _target_column(d["target_column"], f"{path}.target_column", targets),
        tuple(_text(c, f"{path}.codes[{k}]") for k, c in enumerate(codes)),
    )


def event_from_json(text: str | bytes) -> LineageInfo:
    """``event_from_dict(json.loads(text))``; text that is not JSON raises ``EventFormatError`` too."""
    try:
        data = bounded_json.loads(text)
    except JsonTooDeep as exc:
        raise EventFormatError(f"not accepted: {exc}") from None
    except (ValueError, TypeError) as exc:  # JSONDecodeError, UnicodeDecodeError, a too long number; not text
        raise EventFormatError(f"not JSON: {str(exc).encode('ascii', 'backslashreplace').decode()}") from None
    return event_from_dict(data)
