"""A job's stable identity: a name, not the text of its SQL.

Every producer names the job it saw, in this order of preference, and writes the name into the
event's ``context.external_catalog_properties`` under ``headwater.job``:

1. a given name: a ``-- name: …`` comment before the statement, a dbt node id, an OpenLineage
   job's ``namespace``/``name``, a query-log field mapped with ``--map job=…``;
2. the file: the path relative to the project root and the statement's ordinal in the file
   (``marts/fct_sales.sql#2``);
3. only as a last resort: the normalised fingerprint of the statement and its target
   (``sql:6cc2beaf232b1a76:internal.rpt.state_revenue``).

A changed statement under the same name is a new *version* of the same job.

>>> file_job_name("marts/fct_sales.sql", 2)
'marts/fct_sales.sql#2'
>>> file_job_name("marts/fct_sales.sql", 2, given="fct_sales")
'fct_sales'
>>> given_name("-- name: load_orders\\nINSERT INTO t SELECT 1")
'load_orders'
>>> fallback_job_name("insert into t select 1", "internal.db.t")  # doctest: +ELLIPSIS
'sql:...:internal.db.t'
>>> sql_fingerprint("INSERT INTO t SELECT * FROM s WHERE d = '2024-01-01' AND n > 3") == \\
...     sql_fingerprint("insert   into T select * from s where d = '2025-02-02' and n > 42 -- x")
True
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

JOB_PROPERTY = "headwater.job"
"""The job's name (external_catalog_properties key)."""
JOB_FILE_PROPERTY = "headwater.job.file"
"""The source file of the statement, relative to the project root."""
JOB_LINE_PROPERTY = "headwater.job.line"
"""The statement's first line in that file (1-based, as a string)."""

_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_STRINGS = re.compile(r"'(?:[^'\\]|\\.|'')*'")
# a number not inside a name or after a dot: ``(?<![\w.])\d+…`` written digit first, so that the engine
# skips to the next digit in C instead of trying the look-behind at every position
_NUMBERS = re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+)?(?:[eE][-+]?\d+)?\b")
_GIVEN = re.compile(r"^\s*--\s*name\s*:\s*(\S[^\n]*?)\s*$", re.M | re.I)


def sql_fingerprint(sql: str) -> str:
    """A stable digest of a statement: comments dropped, literals replaced, case and blanks folded."""
    return hashlib.sha1(normalised_sql(sql).encode("utf-8")).hexdigest()[:16]


def normalised_sql(sql: str) -> str:
    """What ``sql_fingerprint`` digests: comments dropped, strings and numbers as ``?``, each run of
    blanks one space, lower case, no trailing ``;``.

    >>> normalised_sql("INSERT  INTO T SELECT a1, 2.5e3 FROM s WHERE d = 'x' /* c */ ;")
    'insert into t select a1, ? from s where d = ?'
    """
    text = _COMMENTS.sub(" ", sql) if "--" in sql or "/*" in sql else sql
    if "'" in text:
        text = _STRINGS.sub("?", text)
    text = _NUMBERS.sub("?", text)
    return " ".join(text.split()).lower().rstrip(";").strip()


def given_name(sql: str) -> str | None:
    """The name a ``-- name: …`` comment gives the statement (the last such comment before its text)."""
    head = sql
    for i, line in enumerate(sql.splitlines()):
        stripped = line.strip()
        if stripped and not stripped.startswith("--"):
            head = "\n".join(sql.splitlines()[:i])
            break
    found = _GIVEN.findall(head)
    return found[-1] if found else None


def file_job_name(relpath: str, ordinal: int, given: str | None = None) -> str:
    """The job name of the ``ordinal``-th (1-based) lineage statement of a project file."""
    return given or f"{relpath}#{ordinal}"


def fallback_job_name(sql: str, target: str) -> str:
    """The last-resort name: the statement's fingerprint and its target."""
    return f"sql:{sql_fingerprint(sql)}:{target}"


def explicit_job_name(properties: Mapping[str, str]) -> str | None:
    """The name a producer gave the job, if any."""
    return properties.get(JOB_PROPERTY) or None
