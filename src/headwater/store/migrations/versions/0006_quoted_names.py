"""Quoted name parts: a table whose identifier holds a dot or a double quote, or starts with a quote
character, is written in double quotes (``internal.d."a.b"``, ``internal.d."[/x]"``; ``model.qualified``).

Before, such a name was written plain, enclosing quotes stripped, so different tables could share one
node. A node's name alone cannot say which table it was (``internal.d.a.b``: table ``a.b`` of ``d``,
or table ``b`` of ``d.a``), but the headwater events stored with it can: each names its tables by
catalog, database and table. This revision re-keys a dataset node (and its fields) when every
recorded headwater event that names it names one and the same table whose name is now quoted; a node
that two different tables shared stays as it is (its history cannot be split), and so does a node
recorded only from OpenLineage or ``record_lineage`` (their names are plain strings). A re-keyed
dataset's fields keep their column part, and the job of an unnamed statement writing it
(``sql:<fingerprint>:<dataset>``) follows its new name. Plain names,
the schema and node ids are unchanged. No downgrade re-keys back.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from headwater.model.storage import without_userinfo
from headwater.store.names import dataset_name, short_of

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_PAIRS = {"`": "`", '"': '"', "[": "]", "'": "'"}


def _old_part(part: str) -> str:
    """A name part as revisions up to 0005 wrote it: blanks and one pair of enclosing quotes removed."""
    text = part.strip()
    if len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
        text = text[1:-1]
    return without_userinfo(text).lower()


def _tables(document: dict[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """The (catalog, database, table) of each table a headwater event names."""
    target = document.get("target") or {}
    refs = [target.get("table"), *(document.get("sources") or ()), *(document.get("via") or ())]
    for ref in refs:
        if isinstance(ref, dict) and ref.get("catalog") and ref.get("name"):
            yield str(ref["catalog"]), ref.get("database"), str(ref["name"])


def renames(documents: Iterator[str]) -> dict[str, str]:
    """Old dataset name → new, for the names that one table alone had and that now differ."""
    seen: dict[str, set[str]] = {}
    for text in documents:
        try:
            document = json.loads(text)
        except ValueError:
            continue
        for catalog, database, table in _tables(document if isinstance(document, dict) else {}):
            old = ".".join(_old_part(p) for p in (catalog, database, table) if p)
            seen.setdefault(old, set()).add(dataset_name(catalog, database, table))
    return {old: next(iter(new)) for old, new in seen.items() if len(new) == 1 and old not in new}


def _documents(conn: sa.Connection) -> Iterator[str]:
    from headwater.store.schema import event_document

    rows = conn.execute(sa.text("SELECT payload, payload_zlib FROM hw_events WHERE kind = 'headwater'"))
    for payload, packed in rows:
        text = event_document(payload, packed)
        if text:
            yield text


_SET = sa.text("UPDATE hw_nodes SET name = :n, short = :s WHERE id = :i")


def _id(conn: sa.Connection, type_: str, name: str) -> int | None:
    query = sa.text("SELECT id FROM hw_nodes WHERE type = :t AND name = :n")
    return conn.execute(query, {"t": type_, "n": name}).scalar()


def upgrade() -> None:
    conn = op.get_bind()
    moved: dict[str, str] = {}
    for old, new in renames(_documents(conn)).items():
        found = _id(conn, "DATASET", old)
        if found is None or _id(conn, "DATASET", new) is not None:
            continue
        moved[old] = new
        conn.execute(_SET, {"n": new, "s": short_of(new, field=False), "i": found})
        fields = conn.execute(sa.text("SELECT id, name FROM hw_nodes WHERE parent_id = :p"), {"p": found}).all()
        for nid, name in fields:
            if name.startswith(old + "."):
                renamed = new + name[len(old) :]
                conn.execute(_SET, {"n": renamed, "s": short_of(renamed, field=True), "i": nid})
    if not moved:
        return
    # an unnamed statement's job is named after its target: ``sql:<fingerprint>:<target>``
    jobs = conn.execute(sa.text("SELECT id, name FROM hw_nodes WHERE type = 'JOB' AND name LIKE 'sql:%'")).all()
    for nid, name in jobs:
        digest, _, target = name[4:].partition(":")
        to = moved.get(target)
        if to is not None and _id(conn, "JOB", f"sql:{digest}:{to}") is None:
            conn.execute(_SET, {"n": f"sql:{digest}:{to}", "s": f"{short_of(to, field=False)}#{digest[:8]}", "i": nid})


def downgrade() -> None:
    """Nothing to undo in the schema; quoted names stay quoted."""
