"""Query context: ids, time, and the redaction of sensitive external-catalog properties.

>>> redact({"uri": "thrift://h:9083", "s3.secret_key": "x", "Password": "p", "hive.metastore.token": "t",
...         "access_key": "a", "primary_key": "id", "keyspace": "k", "hidden.prop": "h"})
{'uri': 'thrift://h:9083', 'keyspace': 'k'}
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import UTC, datetime

_SENSITIVE = re.compile(
    r"pass(word|wd)?|pwd|secret|token|credential|hidden|private|keytab|jaas|(^|[._\-])key(s)?($|[._\-])|key$",
    re.IGNORECASE,
)


def is_sensitive(key: str) -> bool:
    """True for property names that may hold a secret (passwords, keys, tokens, credentials, hidden)."""
    return bool(_SENSITIVE.search(key))


def redact(props: Mapping[str, str]) -> dict[str, str]:
    """The properties without the sensitive ones (matched case-insensitively on the key)."""
    return {k: v for k, v in props.items() if not is_sensitive(k)}


def generated_query_id(sql: str, index: int) -> str:
    """A stable query id for a statement run without one: same text and position, same id."""
    digest = hashlib.sha1(f"{index}\x1f{sql}".encode()).hexdigest()
    return f"hw-{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
