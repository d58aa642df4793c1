"""One row of query history (``LogRecord``): the statement and the context the log gives it.

Times are timezone-aware UTC ``datetime`` values; a log's naive times are read in the timezone
the caller names (Doris writes the FE's local time).

>>> r = LogRecord(sql="INSERT INTO t SELECT a FROM s", query_id="q1", state="OK", error_code="0",
...               timestamp=parse_time("2024-05-01 10:00:00,250"), duration_ms=12)
>>> r.succeeded, r.run_info().timestamp, r.run_info().duration_ms
(True, '2024-05-01T10:00:00.250Z', 12)
>>> LogRecord(sql="x", state="ERR", error_code="1105").succeeded
False
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from headwater.extract import RunInfo
from headwater.model.slots import frozen_maker

OK_STATES = frozenset({"OK", "EOF", "FINISHED", "SUCCESS", "SUCCEEDED", "DONE", "COMPLETED"})
"""Values of a log's state column that mean the statement succeeded (compared case-insensitively)."""

_NO_ERROR = frozenset({"", "0", "NONE", "NULL"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_new_run_info = frozen_maker(RunInfo)  # ``RunInfo(…)`` at half the cost
_SPACED_OFFSET = re.compile(r"\s+([+-]\d{2}:?\d{2})$")


@dataclass(frozen=True, slots=True)
class LogRecord:
    """A statement from a query log. ``seq`` is its position in the read (breaks timestamp ties).

    ``state`` None means the log has no state column (every row counts as succeeded);
    ``error_code`` None or ``0`` means no error.
    """

    sql: str
    query_id: str | None = None
    session: str = ""
    timestamp: datetime | None = None
    user: str | None = None
    client_ip: str | None = None
    database: str | None = None
    catalog: str | None = None
    duration_ms: int = -1
    state: str | None = None
    error_code: str | None = None
    seq: int = 0

    @property
    def succeeded(self) -> bool:
        """State OK/EOF (or another success word) and no error code."""
        state, code = self.state, self.error_code
        if state is not None and state not in OK_STATES and state.strip().upper() not in OK_STATES:
            return False
        return code is None or code in _NO_ERROR or code.strip().upper() in _NO_ERROR

    @property
    def key(self) -> str:
        """The query id, or a stable one made from the session, time and text when the log has none."""
        if self.query_id:
            return self.query_id
        digest = hashlib.sha1(f"{self.session}\x1f{format_time(self.timestamp)}\x1f{self.sql}".encode()).hexdigest()
        return f"hw-log-{digest[:24]}"

    def sort_key(self) -> tuple[datetime, int]:
        return (self.timestamp or _EPOCH, self.seq)

    def run_info(self, default_catalog: str = "internal") -> RunInfo:
        """The extraction context of this statement: query id, user, client, database, catalog, time."""
        return _new_run_info(  # ``RunInfo``'s fields in order
            self.query_id or self.key,
            self.user,
            self.client_ip,
            self.database,
            self.catalog or default_catalog,
            format_time(self.timestamp),
            self.duration_ms,
            {},
        )


def zone(name: str | None) -> tzinfo:
    """``UTC``, an IANA name (``Asia/Shanghai``) or a fixed offset (``+08:00``)."""
    if not name or name.upper() in ("UTC", "Z"):
        return UTC
    if name[0] in "+-" and ":" in name:
        hours, minutes = name[1:].split(":", 1)
        delta = timedelta(hours=int(hours), minutes=int(minutes))
        from datetime import timezone

        return timezone(delta if name[0] == "+" else -delta)
    return ZoneInfo(name)


def parse_time(value: object, tz: tzinfo = UTC) -> datetime | None:
    """A log's time as aware UTC: ISO 8601 or ``YYYY-MM-DD HH:MM:SS[,.]fff`` text, a ``datetime``,
    or a number of seconds, milliseconds or microseconds since the epoch. Naive values are in ``tz``.

    >>> parse_time("2024-05-01T10:00:00+02:00").isoformat()
    '2024-05-01T08:00:00+00:00'
    >>> parse_time(1714557600000).isoformat()
    '2024-05-01T10:00:00+00:00'
    >>> parse_time("") is None
    True
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        n = float(value)
        seconds = n / 1e6 if n > 1e14 else n / 1e3 if n > 1e11 else n
        return _EPOCH + timedelta(seconds=seconds)
    else:
        text = str(value).strip()
        if not text:
            return None
        if text.replace(".", "", 1).isdigit():
            return parse_time(float(text), tz)
        text = text.replace(",", ".", 1) if "," in text[17:24] else text
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        text = _SPACED_OFFSET.sub(r"\1", text)  # "10:00:00.000 -0700" (Snowflake exports)
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"not a time: {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(UTC)


_TWO = tuple(f"{n:02d}" for n in range(100))
_THREE = tuple(f"{n:03d}" for n in range(1000))
_DAYS: dict[int, str] = {}  # a day's ordinal → its ``YYYY-MM-DDT``


def format_time(dt: datetime | None) -> str | None:
    """ISO 8601 in UTC with milliseconds and ``Z`` (the event's timestamp form).

    >>> format_time(datetime(2024, 5, 1, 10, 0, 0, 250999, tzinfo=UTC)), format_time(datetime(5, 1, 2, tzinfo=UTC))
    ('2024-05-01T10:00:00.250Z', '0005-01-02T00:00:00.000Z')
    """
    if dt is None:
        return None
    if type(dt) is datetime and dt.tzinfo is UTC:  # a log's time (``parse_time``): the text put together
        day = _DAYS.get(dt.toordinal())  # (``isoformat`` costs four times as much)
        if day is None:
            if len(_DAYS) > 10_000:
                _DAYS.clear()
            day = _DAYS[dt.toordinal()] = f"{dt.year:04d}-{_TWO[dt.month]}-{_TWO[dt.day]}T"
        two = _TWO
        return f"{day}{two[dt.hour]}:{two[dt.minute]}:{two[dt.second]}.{_THREE[dt.microsecond // 1000]}Z"
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
