"""Query context: ids, time, and the redaction of secrets in properties and statement text
(the rules are in ``headwater.model.secrets``).

>>> redact({"uri": "thrift://h:9083", "s3.secret_key": "x", "Password": "p", "hive.metastore.token": "t",
...         "access_key": "a", "primary_key": "id", "keyspace": "k", "hidden.prop": "h"})
{'uri': 'thrift://h:9083', 'keyspace': 'k'}
"""

from __future__ import annotations

import dataclasses
import hashlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from headwater.model.secrets import is_sensitive, redact, redact_event, redact_sql, redact_text

if TYPE_CHECKING:
    from headwater.extract.split import Piece

__all__ = ["generated_query_id", "is_sensitive", "now_iso", "redact", "redact_event", "redact_piece", "redact_sql"]


def redact_piece(piece: Piece, dialect: str) -> Piece:
    """A statement (``split.Piece``) with secrets masked in its text and its parse error, before any
    event, result or message is made of it: every sink (events, the store, the API, OpenLineage,
    logs) gets the redacted text. The tree, already parsed, is kept."""
    sql = redact_sql(piece.sql, dialect)
    error = piece.error
    if error is not None:
        error = dataclasses.replace(error, message=redact_text(error.message))
    if sql == piece.sql and error == piece.error:
        return piece
    return dataclasses.replace(piece, sql=sql, error=error)


def generated_query_id(sql: str, index: int) -> str:
    """A stable query id for a statement run without one: same text and position, same id."""
    digest = hashlib.sha1(f"{index}\x1f{sql}".encode()).hexdigest()
    return f"hw-{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
