"""The runtime-neutral payload ``headwater.payload/1``: a compact, versioned transport form (1.1: with
each incomplete target column's diagnostic codes).

Datasets are registered once with integer ids (their position in ``datasets``), each with the
fields that the event references; every column reference is ``[dataset id, field position]``.
No parser objects, no repeated names. Decoding checks every reference and the major version.

>>> from headwater.cli.extract_cmd import run_demo
>>> e = run_demo().events[0]
>>> p = encode(e)
>>> p["format"], len(p["datasets"])
('headwater.payload/1.1', 3)
>>> decode(p) == e
True
"""

from __future__ import annotations

import json
from typing import Any

from headwater.model import bounded_json
from headwater.model.event import (
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

FORMAT = "headwater.payload"
MAJOR, MINOR = 1, 1
"""1.1 adds ``event.incomplete_columns`` (``[[target field position, [code…]]…]``, written only when not
empty); a 1.0 payload, without it, still reads."""


class PayloadError(ValueError):
    """A payload that cannot be decoded; the message says where."""


class _Registry:
    def __init__(self) -> None:
        self.datasets: list[TableRef] = []
        self.fields: list[list[str]] = []
        self._ids: dict[TableRef, int] = {}
        self._pos: list[dict[str, int]] = []

    def dataset(self, table: TableRef) -> int:
        found = self._ids.get(table)
        if found is None:
            found = self._ids[table] = len(self.datasets)
            self.datasets.append(table)
            self.fields.append([])
            self._pos.append({})
        return found

    def field(self, table: TableRef, name: str) -> list[int]:
        ds = self.dataset(table)
        pos = self._pos[ds].get(name)
        if pos is None:
            pos = self._pos[ds][name] = len(self.fields[ds])
            self.fields[ds].append(name)
        return [ds, pos]

    def col(self, ref: ColumnRef) -> list[int]:
        return self.field(ref.table, ref.column)


def encode(e: LineageInfo) -> dict[str, Any]:
    """The payload of an event (plain JSON-ready data)."""
    reg = _Registry()
    target = reg.dataset(e.target.table)
    target_pos = {f.name: reg.field(e.target.table, f.name)[1] for f in e.target.columns}

    def tcol(name: str | None) -> Any:
        if name is None:
            return None
        return target_pos[name] if name in target_pos else reg.field(e.target.table, name)[1]

    body = {
        "id": e.event_id,
        "version": e.version,
        "command": e.source_command.value,
        "status": e.status.value,
        "target": target,
        "target_fields": [target_pos[f.name] for f in e.target.columns],
        "target_types": [f.type for f in e.target.columns],
        "sources": [reg.dataset(t) for t in e.sources],
        "via": [reg.dataset(t) for t in e.via],
        "direct": [
            [
                tcol(d.target_column),
                d.expression,
                d.type.value,
                d.origin.value,
                d.branch,
                [reg.col(s) for s in d.sources],
                [[*reg.col(i.column), list(i.labels), i.masking] for i in d.inputs],
            ]
            for d in e.direct
        ],
        "dataset_indirect": [[i.type.value, i.expression, [reg.col(s) for s in i.sources]] for i in e.dataset_indirect],
        "output_indirect": [
            [tcol(i.target_column), i.type.value, i.expression, [reg.col(s) for s in i.sources]]
            for i in e.output_indirect
        ],
        "context": _context(e.context),
        "diagnostics": [
            [d.code, d.severity.value, d.message, d.statement_index, d.line, d.column, d.construct, d.target_column]
            for d in e.diagnostics
        ],
    }
    if e.incomplete_columns:
        body["incomplete_columns"] = [[tcol(i.target_column), list(i.codes)] for i in e.incomplete_columns]
    return {
        "format": f"{FORMAT}/{MAJOR}.{MINOR}",
        "datasets": [[t.catalog, t.database, t.name, reg.fields[i]] for i, t in enumerate(reg.datasets)],
        "event": body,
    }


def _context(c: QueryContext) -> list[Any]:
    return [
        c.source_command.value,
        c.query_id,
        c.sql,
        c.user,
        c.client_ip,
        c.database,
        c.catalog,
        c.state,
        c.timestamp,
        c.duration_ms,
        dict(c.external_catalog_properties),
    ]


def dumps(e: LineageInfo) -> str:
    """The payload as compact JSON text."""
    return json.dumps(encode(e), separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> LineageInfo:
    try:
        data = bounded_json.loads(text)
    except json.JSONDecodeError as err:  # JsonTooDeep included
        raise PayloadError(f"not JSON: {err}") from None
    return decode(data)


# ---------------------------------------------------------------- decoding


def _check_version(fmt: Any) -> None:
    if not isinstance(fmt, str) or "/" not in fmt:
        raise PayloadError(f"format: expected '{FORMAT}/<major>.<minor>', got {fmt!r}")
    name, _, version = fmt.partition("/")
    major = version.split(".")[0]
    if name != FORMAT or not major.isdigit():
        raise PayloadError(f"format: expected '{FORMAT}/<major>.<minor>', got {fmt!r}")
    if int(major) != MAJOR:
        raise PayloadError(f"format: major version {major} is not supported (this reader reads {MAJOR}.x)")


class _Reader:
    def __init__(self, datasets: Any) -> None:
        if not isinstance(datasets, list):
            raise PayloadError("datasets: expected a list")
        self.tables: list[TableRef] = []
        self.fields: list[list[str]] = []
        for i, d in enumerate(datasets):
            if not (isinstance(d, list) and len(d) == 4 and isinstance(d[3], list)):
                raise PayloadError(f"datasets[{i}]: expected [catalog, database, name, fields]")
            self.tables.append(TableRef(d[0], d[1], d[2]))
            self.fields.append(d[3])

    def table(self, ds: Any, where: str) -> TableRef:
        if not isinstance(ds, int) or not 0 <= ds < len(self.tables):
            raise PayloadError(f"{where}: dataset {ds!r} is not in the registry ({len(self.tables)} datasets)")
        return self.tables[ds]

    def field(self, ds: Any, pos: Any, where: str) -> str:
        table = self.table(ds, where)
        fields = self.fields[ds]
        if not isinstance(pos, int) or not 0 <= pos < len(fields):
            raise PayloadError(f"{where}: field {pos!r} is not a field of dataset {ds} ({table.qualified})")
        return fields[pos]

    def col(self, ref: Any, where: str) -> ColumnRef:
        if not (isinstance(ref, list) and len(ref) >= 2):
            raise PayloadError(f"{where}: expected [dataset, field]")
        return ColumnRef(self.table(ref[0], where), self.field(ref[0], ref[1], where))


def _enum(cls: type, value: Any, where: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        raise PayloadError(f"{where}: {value!r} is not a valid {cls.__name__}") from None


def decode(data: Any) -> LineageInfo:
    """The event of a payload; every reference is checked (``PayloadError`` says which failed)."""
    if not isinstance(data, dict):
        raise PayloadError("payload: expected an object")
    _check_version(data.get("format"))
    r = _Reader(data.get("datasets"))
    b = data.get("event")
    if not isinstance(b, dict):
        raise PayloadError("event: expected an object")
    try:
        target_ds = b["target"]
        target = r.table(target_ds, "event.target")

        def tname(pos: Any, where: str) -> str | None:
            return None if pos is None else r.field(target_ds, pos, where)

        fields = tuple(
            Field(r.field(target_ds, pos, f"event.target_fields[{k}]"), typ)
            for k, (pos, typ) in enumerate(zip(b["target_fields"], b["target_types"], strict=True))
        )
        direct = tuple(
            DirectLineage(
                target_column=tname(d[0], f"event.direct[{k}]") or "",
                expression=d[1],
                type=_enum(DirectType, d[2], f"event.direct[{k}].type"),
                origin=_enum(Origin, d[3], f"event.direct[{k}].origin"),
                sources=tuple(r.col(s, f"event.direct[{k}].sources") for s in d[5]),
                inputs=tuple(
                    DirectInput(r.col(i[:2], f"event.direct[{k}].inputs"), tuple(i[2]), bool(i[3])) for i in d[6]
                ),
                branch=d[4],
            )
            for k, d in enumerate(b["direct"])
        )
        dataset_indirect = tuple(
            IndirectLineage(
                _enum(IndirectType, i[0], f"event.dataset_indirect[{k}].type"),
                i[1],
                tuple(r.col(s, f"event.dataset_indirect[{k}].sources") for s in i[2]),
            )
            for k, i in enumerate(b["dataset_indirect"])
        )
        output_indirect = tuple(
            IndirectLineage(
                _enum(IndirectType, i[1], f"event.output_indirect[{k}].type"),
                i[2],
                tuple(r.col(s, f"event.output_indirect[{k}].sources") for s in i[3]),
                tname(i[0], f"event.output_indirect[{k}]"),
            )
            for k, i in enumerate(b["output_indirect"])
        )
        c = b["context"]
        context = QueryContext(
            _enum(SourceCommand, c[0], "event.context.source_command"),
            c[1],
            c[2],
            c[3],
            c[4],
            c[5],
            c[6],
            c[7],
            c[8],
            c[9],
            c[10],
        )
        diagnostics = tuple(
            Diagnostic(x[0], _enum(Severity, x[1], f"event.diagnostics[{k}]"), x[2], x[3], x[4], x[5], x[6], x[7])
            for k, x in enumerate(b["diagnostics"])
        )
        return LineageInfo(
            event_id=b["id"],
            source_command=_enum(SourceCommand, b["command"], "event.command"),
            target=Target(target, fields),
            sources=tuple(r.table(t, "event.sources") for t in b["sources"]),
            direct=direct,
            dataset_indirect=dataset_indirect,
            output_indirect=output_indirect,
            context=context,
            status=_enum(Status, b["status"], "event.status"),
            diagnostics=diagnostics,
            via=tuple(r.table(t, "event.via") for t in b["via"]),
            version=b["version"],
            incomplete_columns=tuple(
                IncompleteColumn(tname(x[0], f"event.incomplete_columns[{k}]") or "", tuple(x[1]))
                for k, x in enumerate(b.get("incomplete_columns") or [])
            ),
        )
    except PayloadError:
        raise
    except (KeyError, IndexError, TypeError, ValueError) as err:
        raise PayloadError(f"event: malformed payload ({type(err).__name__}: {err})") from None
