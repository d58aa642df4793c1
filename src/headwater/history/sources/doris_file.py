r"""Doris ``fe.audit.log`` files: one ``[query]`` line per statement, fields as ``|Key=Value``.

::

    2024-05-01 10:00:00,250 [query] |Client=192.0.2.10:51234|User=lineage_user|Ctl=internal|Db=lineage_demo
    |State=OK|ErrorCode=0|ErrorMessage=|Time(ms)=250|…|QueryId=8f1c…|…|Stmt=INSERT INTO …|CpuTimeMS=3|…

(one line in the file). The statement may itself contain ``|``: it runs up to the first field after
it whose name Doris writes there (``CpuTimeMS``, ``SqlHash``…) when everything after that point is
``|Key=Value`` fields. Doris writes line breaks of the statement as ``\n`` (and, before 3.0.7, tabs
and carriage returns as ``\t`` and ``\r``); they are restored. ``slow_query`` and ``big_query``
lines repeat a ``query`` line and are not read; lines without ``|Stmt=`` (loads) neither.

The line's time is when Doris logged the statement, after it ran; the statement's time is that
less ``Time(ms)``, its start, as in the ``audit_log`` table's ``time`` column. A line that does not
start with a time continues the previous line's statement.

>>> line = ("2024-05-01 10:00:00,250 [query] |Client=192.0.2.10:51234|User=u|Ctl=internal|Db=d|State=OK"
...         "|ErrorCode=0|ErrorMessage=|Time(ms)=250|QueryId=q1|feIp=10.0.0.1|Stmt=SELECT a||b FROM t|x=1|CpuTimeMS=3")
>>> f = parse_audit_line(line)
>>> f["sql"], f["query_id"], f["duration_ms"], f["timestamp"]
('SELECT a||b FROM t|x=1', 'q1', '250', '2024-05-01 10:00:00.000')
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

from headwater.history.mapping import record_from_row
from headwater.history.record import LogRecord
from headwater.history.sources.base import ReadProblem, open_text
from headwater.history.window import Window

_LINE = re.compile(r"^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?)\s+(?:\[([\w.-]+)\]\s*)?(.*)$", re.S)
_FIELD = re.compile(r"\|([A-Za-z][A-Za-z0-9_]*(?:\(ms\))?)=")
_AFTER_STMT = frozenset(
    {
        "CpuTimeMS",
        "ShuffleSendBytes",
        "ShuffleSendRows",
        "SqlHash",
        "peakMemoryBytes",
        "SqlDigest",
        "TraceId",
        "WorkloadGroup",
        "ComputeGroup",
        "FuzzyVariables",
        "scanBytesFromLocalStorage",
        "scanBytesFromRemoteStorage",
    }
)
_TAIL = re.compile(r"(?:\|[A-Za-z][A-Za-z0-9_]*(?:\(ms\))?=[^|]*)*\Z", re.S)
_SKIPPED_CATEGORIES = frozenset({"slow_query", "big_query"})
_UNESCAPE = re.compile(r"\\([ntr])")
_FIELD_NAMES = {
    "Client": "client_ip",
    "User": "user",
    "Ctl": "catalog",
    "Db": "database",
    "State": "state",
    "ErrorCode": "error_code",
    "Time(ms)": "duration_ms",
    "Time": "duration_ms",
    "QueryId": "query_id",
    "feIp": "frontend",
    "FeIp": "frontend",
}


def _split_statement(rest: str) -> tuple[str, str]:
    """(statement, trailing fields) of the text after ``|Stmt=``."""
    for m in _FIELD.finditer(rest):
        if m.group(1) in _AFTER_STMT and _TAIL.match(rest, m.start()):
            return rest[: m.start()], rest[m.start() :]
    return rest, ""


def _fields(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    marks = list(_FIELD.finditer(text))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        out[m.group(1)] = text[m.end() : end]
    return out


def parse_audit_line(line: str) -> dict[str, str] | None:
    """The fields of one audit line under ``LogRecord`` names (``timestamp`` is the start, as text);
    None for a line that is not a statement's (other categories, loads, noise)."""
    m = _LINE.match(line.rstrip("\r\n"))
    if m is None:
        return None
    logged, category, body = m.groups()
    if category in _SKIPPED_CATEGORIES:
        return None
    at = body.find("|Stmt=")
    if at < 0:
        return None
    stmt, tail = _split_statement(body[at + len("|Stmt=") :])
    raw = _fields(body[:at])
    raw.update(_fields(tail))
    out = {_FIELD_NAMES[k]: v for k, v in raw.items() if k in _FIELD_NAMES}
    out["sql"] = _UNESCAPE.sub(lambda e: {"n": "\n", "t": "\t", "r": "\r"}[e.group(1)], stmt)
    start = datetime.fromisoformat(logged.replace(",", ".").replace("T", " "))
    duration = out.get("duration_ms", "")
    if duration.strip().isdigit():
        start -= timedelta(milliseconds=int(duration))
    out["timestamp"] = start.isoformat(sep=" ", timespec="milliseconds")
    return out


@dataclass
class DorisAuditFileSource:
    """``fe.audit.log`` files (``.gz`` too), read in the order given."""

    paths: Sequence[str | Path]
    tz: tzinfo = UTC
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or f"doris-audit-file:{Path(self.paths[0]).resolve()}"

    def _entries(self, path: str) -> Iterator[tuple[int, str]]:
        """(line number, text) of each entry, continuation lines joined to theirs."""
        start, buf = 0, ""
        for n, line in enumerate(open_text(path), 1):
            if _LINE.match(line) or not buf:
                if buf:
                    yield start, buf
                start, buf = n, line.rstrip("\r\n")
            else:
                buf += "\n" + line.rstrip("\r\n")
        if buf:
            yield start, buf

    def read(self, window: Window) -> Iterator[LogRecord | ReadProblem]:
        seq = 0
        for path in self.paths:
            for n, entry in self._entries(str(path)):
                fields = parse_audit_line(entry)
                if fields is None:
                    continue
                try:
                    record = record_from_row(fields, None, seq, self.tz)
                except ValueError as exc:
                    yield ReadProblem(f"{path}:{n}", str(exc))
                    continue
                finally:
                    seq += 1
                if window.admits(record):
                    yield record
