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
from typing import Any

from headwater.model.event import (
    ColumnRef,
    Diagnostic,
    DirectInput,
    DirectLineage,
    DirectType,
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
    tail = {
        "context": {
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
        },
        "diagnostics": [_diagnostic(d) for d in e.diagnostics],
    }
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


def event_to_json(e: LineageInfo, indent: int | None = None) -> str:
    """The event's JSON text: ``json.dumps(event_to_dict(e))``, written faster when not indented.

    The compact form writes the column lists (most of an event) directly with the C string
    encoder, each column object once per event; the result is the same document.
    """
    if indent is not None:
        return json.dumps(event_to_dict(e), indent=indent, ensure_ascii=False)
    cache: dict[int, str] = {}  # by id(): the objects live as long as the event

    def col(c: ColumnRef) -> str:
        s = cache.get(id(c))
        if s is None:
            t = c.table
            s = cache[id(c)] = (
                f'{{"catalog":{_opt(t.catalog)},"database":{_opt(t.database)},"table":{_str(t.name)},'
                f'"column":{_str(c.column)}}}'
            )
        return s

    direct = []
    for d in e.direct:
        inputs = ",".join(
            f'{{"column":{col(i.column)},"labels":[{",".join(map(_str, i.labels))}],'
            f'"masking":{"true" if i.masking else "false"}}}'
            for i in d.inputs
        )
        direct.append(
            f'{{"target_column":{_str(d.target_column)},"expression":{_str(d.expression)},'
            f'"type":{_str(d.type.value)},"origin":{_str(d.origin.value)},"branch":{int(d.branch)},'
            f'"sources":[{",".join(map(col, d.sources))}],"inputs":[{inputs}]}}'
        )

    def indirect(items: tuple[IndirectLineage, ...]) -> str:
        out = []
        for i in items:
            tc = "" if i.target_column is None else f',"target_column":{_str(i.target_column)}'
            out.append(
                f'{{"type":{_str(i.type.value)},"expression":{_str(i.expression)},'
                f'"sources":[{",".join(map(col, i.sources))}]{tc}}}'
            )
        return ",".join(out)

    whole = event_to_dict_head_and_tail(e)
    head, tail = _dumps(whole[0]), _dumps(whole[1])
    return (
        f'{head[:-1]},"direct":[{",".join(direct)}],"dataset_indirect":[{indirect(e.dataset_indirect)}],'
        f'"output_indirect":[{indirect(e.output_indirect)}],{tail[1:]}'
    )


# ---------------------------------------------------------------- decoding


def _req(d: Any, key: str, path: str) -> Any:
    if not isinstance(d, dict):
        raise EventFormatError(f"{path}: expected an object")
    if key not in d:
        raise EventFormatError(f"{path}.{key}: missing")
    return d[key]


def _enum(cls: type, value: Any, path: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)  # type: ignore[attr-defined]
        raise EventFormatError(f"{path}: {value!r} is not one of {allowed}") from None


def _int(d: Any, key: str, path: str, default: int | None) -> Any:
    value = d.get(key, default)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise EventFormatError(f"{path}.{key}: expected an integer, got {value!r}")


def table_from_dict(d: Any, path: str = "table") -> TableRef:
    return TableRef(_req(d, "catalog", path), d.get("database"), _req(d, "name", path))


def column_from_dict(d: Any, path: str = "column") -> ColumnRef:
    t = TableRef(_req(d, "catalog", path), d.get("database"), _req(d, "table", path))
    return ColumnRef(t, _req(d, "column", path))


def _indirect_from(d: Any, path: str) -> IndirectLineage:
    return IndirectLineage(
        _enum(IndirectType, _req(d, "type", path), f"{path}.type"),
        _req(d, "expression", path),
        tuple(column_from_dict(s, f"{path}.sources[{k}]") for k, s in enumerate(_req(d, "sources", path))),
        d.get("target_column"),
    )


def _direct_from(d: Any, path: str) -> DirectLineage:
    return DirectLineage(
        target_column=_req(d, "target_column", path),
        expression=_req(d, "expression", path),
        type=_enum(DirectType, _req(d, "type", path), f"{path}.type"),
        origin=_enum(Origin, _req(d, "origin", path), f"{path}.origin"),
        sources=tuple(column_from_dict(s, f"{path}.sources[{k}]") for k, s in enumerate(_req(d, "sources", path))),
        inputs=tuple(
            DirectInput(
                column_from_dict(_req(i, "column", f"{path}.inputs[{k}]"), f"{path}.inputs[{k}].column"),
                tuple(i.get("labels", ())),
                bool(i.get("masking", False)),
            )
            for k, i in enumerate(d.get("inputs", ()))
        ),
        branch=_int(d, "branch", path, 0),
    )


def event_from_dict(d: Any) -> LineageInfo:
    """Decode and check an event; raises ``EventFormatError`` naming the first bad field."""
    c = _req(d, "context", "event")
    target = _req(d, "target", "event")
    context = QueryContext(
        source_command=_enum(SourceCommand, _req(c, "source_command", "context"), "context.source_command"),
        query_id=_req(c, "query_id", "context"),
        sql=_req(c, "sql", "context"),
        user=c.get("user"),
        client_ip=c.get("client_ip"),
        database=c.get("database"),
        catalog=c.get("catalog", "internal"),
        state=c.get("state", "OK"),
        timestamp=c.get("timestamp"),
        duration_ms=_int(c, "duration_ms", "context", -1),
        external_catalog_properties=c.get("external_catalog_properties") or {},
    )
    return LineageInfo(
        event_id=_req(d, "event_id", "event"),
        source_command=_enum(SourceCommand, _req(d, "source_command", "event"), "event.source_command"),
        target=Target(
            table_from_dict(_req(target, "table", "target"), "target.table"),
            tuple(
                Field(_req(f, "name", f"target.columns[{k}]"), f.get("type"))
                for k, f in enumerate(_req(target, "columns", "target"))
            ),
        ),
        sources=tuple(table_from_dict(t, f"sources[{k}]") for k, t in enumerate(_req(d, "sources", "event"))),
        direct=tuple(_direct_from(x, f"direct[{k}]") for k, x in enumerate(_req(d, "direct", "event"))),
        dataset_indirect=tuple(
            _indirect_from(x, f"dataset_indirect[{k}]") for k, x in enumerate(_req(d, "dataset_indirect", "event"))
        ),
        output_indirect=tuple(
            _indirect_from(x, f"output_indirect[{k}]") for k, x in enumerate(_req(d, "output_indirect", "event"))
        ),
        context=context,
        status=_enum(Status, d.get("status", "COMPLETE"), "event.status"),
        diagnostics=tuple(
            Diagnostic(
                code=_req(x, "code", f"diagnostics[{k}]"),
                severity=_enum(Severity, _req(x, "severity", f"diagnostics[{k}]"), f"diagnostics[{k}].severity"),
                message=_req(x, "message", f"diagnostics[{k}]"),
                statement_index=_int(x, "statement_index", f"diagnostics[{k}]", None),
                line=_int(x, "line", f"diagnostics[{k}]", None),
                column=_int(x, "column", f"diagnostics[{k}]", None),
                construct=x.get("construct"),
                target_column=x.get("target_column"),
            )
            for k, x in enumerate(d.get("diagnostics", ()))
        ),
        via=tuple(table_from_dict(t, f"via[{k}]") for k, t in enumerate(d.get("via", ()))),
        version=d.get("version", "headwater.event/1"),
    )


def event_from_json(text: str) -> LineageInfo:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EventFormatError(f"not JSON: {exc}") from None
    return event_from_dict(data)
