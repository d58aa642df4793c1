"""From a log row (a mapping of column → value) to a ``LogRecord``, through a column mapping.

A mapping names, for each ``LogRecord`` field, the column that holds it. ``--map`` gives it as
``field=column,…``; a column may be a dotted path into nested JSON (``metadata.query``). Fields the
mapping does not name are looked up under the usual column names (``DEFAULT_CANDIDATES``),
case-insensitively, so a Doris ``audit_log`` export or a log that uses headwater's own names needs no
mapping at all.

>>> m = parse_mapping("sql=statement,query_id=id,user=user_name")
>>> r = record_from_row({"statement": "SELECT 1", "id": 7, "user_name": "ann", "Time": "2024-05-01 10:00:00"}, m)
>>> (r.sql, r.query_id, r.user, r.timestamp.isoformat())
('SELECT 1', '7', 'ann', '2024-05-01T10:00:00+00:00')
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, tzinfo
from typing import Any

from headwater.history.record import LogRecord, parse_time

FIELDS = (
    "sql",
    "query_id",
    "session",
    "timestamp",
    "user",
    "client_ip",
    "database",
    "catalog",
    "duration_ms",
    "state",
    "error_code",
    "frontend",
)
"""What a mapping can name. ``session`` groups statements of one connection; without it, a session is
``frontend|client_ip|user`` (Doris logs the client's address with its port, so this is one connection)."""

DEFAULT_CANDIDATES: dict[str, tuple[str, ...]] = {
    "sql": ("sql", "stmt", "statement", "query_text", "query"),
    "query_id": ("query_id", "queryid", "job_id"),
    "session": ("session", "session_id", "connection_id"),
    "timestamp": ("timestamp", "time", "start_time", "creation_time", "create_time"),
    "user": ("user", "user_name", "username", "user_email"),
    "client_ip": ("client_ip", "client", "client_address", "remote_client_address"),
    "database": ("database", "db", "schema_name"),
    "catalog": ("catalog", "ctl", "catalog_name"),
    "duration_ms": ("duration_ms", "query_time", "time(ms)", "total_elapsed_time", "elapsed_ms"),
    "state": ("state", "execution_status", "status"),
    "error_code": ("error_code", "errorcode"),
    "frontend": ("frontend", "frontend_ip", "feip", "fe_ip"),
}

FieldMap = dict[str, str]


class MappingError(ValueError):
    """A ``--map`` that names an unknown field or is malformed."""


def parse_mapping(text: str | None) -> FieldMap:
    """``field=column,…`` → ``{field: column}``.

    >>> parse_mapping(" sql = q , user=u ")
    {'sql': 'q', 'user': 'u'}
    >>> parse_mapping("sequel=q")
    Traceback (most recent call last):
    ...
    headwater.history.mapping.MappingError: --map: unknown field 'sequel' (the fields: sql, query_id, session, ...)
    """
    out: FieldMap = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        name, sep, column = part.partition("=")
        name, column = name.strip(), column.strip()
        if not sep or not name or not column:
            raise MappingError(f"--map: expected field=column, got {part.strip()!r}")
        if name not in FIELDS:
            raise MappingError(f"--map: unknown field {name!r} (the fields: {', '.join(FIELDS)})")
        out[name] = column
    return out


def _lookup(row: Mapping[str, Any], column: str, folded: dict[str, str] | None) -> Any:
    if column in row:
        return row[column]
    if folded is not None and column.lower() in folded:
        return row[folded[column.lower()]]
    if "." in column:
        head, _, rest = column.partition(".")
        inner = _lookup(row, head, folded)
        if isinstance(inner, Mapping):
            return _lookup(inner, rest, {k.lower(): k for k in inner})
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def _int(value: Any) -> int:
    if value is None or isinstance(value, bool):
        return -1
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return -1


_USUAL: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}


def _usual_columns(columns: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(field, column) of each field found among a row's ``columns`` under one of its usual names
    (``DEFAULT_CANDIDATES``, case-insensitively); worked out once per set of columns (a log's rows
    mostly share one)."""
    found = _USUAL.get(columns)
    if found is None:
        folded = {k.lower(): k for k in columns}
        pairs = []
        for name in FIELDS:
            for candidate in DEFAULT_CANDIDATES[name]:
                if candidate in folded:
                    pairs.append((name, folded[candidate]))
                    break
        if len(_USUAL) >= 256:
            _USUAL.clear()
        found = _USUAL[columns] = tuple(pairs)
    return found


def record_from_row(
    row: Mapping[str, Any], mapping: FieldMap | None = None, seq: int = 0, tz: tzinfo = UTC
) -> LogRecord:
    """The ``LogRecord`` of one row. Raises ``ValueError`` when the row has no SQL or a bad time."""
    mapping = mapping or {}
    values: dict[str, Any] = {}
    for name, column in _usual_columns(tuple(row)):
        if name not in mapping:
            values[name] = row[column]
    if mapping:
        folded = {k.lower(): k for k in row}
        for name in FIELDS:
            if name in mapping:
                values[name] = _lookup(row, mapping[name], folded)
    sql = _text(values.get("sql"))
    if sql is None:
        raise ValueError(f"no SQL (column {mapping.get('sql', 'sql')!r} is missing or empty)")
    user, client = _text(values.get("user")), _text(values.get("client_ip"))
    session = _text(values.get("session"))
    if session is None:
        session = f"{_text(values.get('frontend')) or ''}|{client or ''}|{user or ''}"
    database = _text(values.get("database"))
    if database and database.startswith("default_cluster:"):  # Doris before 2.0
        database = database.split(":", 1)[1] or None
    state, error = values.get("state"), values.get("error_code")
    return LogRecord(
        sql=sql,
        query_id=_text(values.get("query_id")),
        session=session,
        timestamp=parse_time(values.get("timestamp"), tz),
        user=user,
        client_ip=client,
        database=database,
        catalog=_text(values.get("catalog")),
        duration_ms=_int(values.get("duration_ms")),
        state=None if state is None else str(state),
        error_code=None if error is None else str(error),
        seq=seq,
    )
