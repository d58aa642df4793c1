"""The Doris audit log table (``__internal_schema.audit_log``) read over the MySQL protocol.

Any SQLAlchemy URL works (``mysql+pymysql://user:pw@fe:9030``); the table can be any table of the
same shape (``query_id``, ``time``, ``client_ip``, ``user``, ``catalog``, ``db``, ``state``,
``error_code``, ``query_time``, ``stmt``…; ``--map`` renames). Rows are filtered on the time column
in the database and read in time order (then ``stmt_id``, else the query id), streamed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

import sqlalchemy as sa

from headwater.history.mapping import DEFAULT_CANDIDATES, FieldMap, record_from_row
from headwater.history.record import LogRecord
from headwater.history.sources.base import ReadProblem
from headwater.history.window import Window

DEFAULT_TABLE = "__internal_schema.audit_log"


def _masked(url: str) -> str:
    from headwater.catalog.live import mask_url

    return mask_url(url)  # the user part's password and a ?password= alike


@dataclass
class DorisAuditTableSource:
    url: str
    table: str = DEFAULT_TABLE
    mapping: FieldMap = field(default_factory=dict)
    tz: tzinfo = UTC
    name: str = ""
    fetch_size: int = 5000

    def __post_init__(self) -> None:
        self.name = self.name or f"doris-audit-table:{_masked(self.url)}#{self.table}"

    def _column(self, columns: list[str], name: str) -> str | None:
        wanted = [self.mapping[name]] if name in self.mapping else list(DEFAULT_CANDIDATES[name])
        folded = {c.lower(): c for c in columns}
        for w in wanted:
            if w.lower() in folded:
                return folded[w.lower()]
        return None

    def _naive(self, dt: datetime) -> datetime:
        return dt.astimezone(self.tz).replace(tzinfo=None)

    def check(self) -> None:
        """Raise ``ValueError`` (one line: the masked URL and the server's own words) when the table
        cannot be read: a server that is not there, a table that does not exist."""
        engine = sa.create_engine(self.url)
        q = engine.dialect.identifier_preparer.quote
        try:
            with engine.connect() as conn:
                conn.execute(sa.text(f"SELECT * FROM {'.'.join(q(p) for p in self.table.split('.'))} WHERE 1 = 0"))
        except sa.exc.DBAPIError as exc:
            orig = getattr(exc, "orig", None) or exc
            words = orig.args[-1] if getattr(orig, "args", None) else str(orig)
            first = next((ln.strip() for ln in str(words).splitlines() if ln.strip()), type(orig).__name__)
            raise ValueError(f"cannot read the audit table {self.table} at {_masked(self.url)}: {first}") from None
        finally:
            engine.dispose()

    def read(self, window: Window) -> Iterator[LogRecord | ReadProblem]:
        engine = sa.create_engine(self.url, pool_pre_ping=True)
        try:
            yield from self._read(engine, window)
        finally:
            engine.dispose()

    def _read(self, engine: sa.Engine, window: Window) -> Iterator[LogRecord | ReadProblem]:
        q = engine.dialect.identifier_preparer.quote
        table = ".".join(q(p) for p in self.table.split("."))
        with engine.connect() as conn:
            columns = list(conn.execute(sa.text(f"SELECT * FROM {table} WHERE 1 = 0")).keys())
            time_col = self._column(columns, "timestamp")
            where: list[str] = []
            params: dict[str, Any] = {}
            if time_col is not None:
                if window.lower is not None:
                    where.append(f"{q(time_col)} >= :lower")
                    params["lower"] = self._naive(window.lower)
                if window.until is not None:
                    where.append(f"{q(time_col)} < :until")
                    params["until"] = self._naive(window.until)
            order = [c for c in (time_col, self._column(columns, "query_id")) if c]
            if time_col and "stmt_id" in {c.lower() for c in columns}:
                order.insert(1, next(c for c in columns if c.lower() == "stmt_id"))
            sql = f"SELECT * FROM {table}"
            if where:
                sql += " WHERE " + " AND ".join(where)
            if order:
                sql += " ORDER BY " + ", ".join(q(c) for c in order)
            result = conn.execution_options(stream_results=True, yield_per=self.fetch_size).execute(
                sa.text(sql), params
            )
            for seq, row in enumerate(result.mappings()):
                try:
                    record = record_from_row(row, self.mapping, seq, self.tz)
                except ValueError as exc:
                    yield ReadProblem(f"{self.table} row {seq + 1} (query {row.get('query_id')})", str(exc))
                    continue
                if window.admits(record):
                    yield record
