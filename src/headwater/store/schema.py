"""The graph tables (SQLAlchemy Core): nodes, edges, events, and a small key/value table.

Edges are stored in data-flow orientation: ``src_id`` is upstream, ``dst_id`` downstream, whatever
the edge type's verb says (see ``docs/store.md``). Times are microseconds since the Unix epoch (UTC);
an edge still valid has ``valid_to == OPEN``.
"""

from __future__ import annotations

import zlib

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

OPEN = 2**62
"""``valid_to`` of an edge that has not been closed."""

metadata = MetaData()

nodes = Table(
    "hw_nodes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("type", String(16), nullable=False),
    Column("name", String(1024), nullable=False),
    Column("short", String(512), nullable=False),
    Column("parent_id", Integer, nullable=True),
    Column("properties", Text, nullable=True),
    Column("created_us", BigInteger, nullable=False),
    UniqueConstraint("name", "type", name="uq_hw_nodes_name_type"),
    Index("ix_hw_nodes_short", "short"),
    Index("ix_hw_nodes_parent", "parent_id"),
)

events = Table(
    "hw_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("event_id", String(128), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("job_id", Integer, nullable=True),
    Column("run_key", String(256), nullable=False),
    Column("event_us", BigInteger, nullable=False),
    Column("recorded_us", BigInteger, nullable=False),
    Column("status", String(16), nullable=True),
    Column("deleted_us", BigInteger, nullable=True),
    Column("payload", Text, nullable=True),  # written before revision 0002; see ``event_document``
    Column("payload_zlib", LargeBinary, nullable=True),  # the event as its producer sent it, zlib-compressed
    Column("fingerprint", String(16), nullable=True),  # the normalised statement it ran (revision 0003)
    UniqueConstraint("event_id", name="uq_hw_events_event_id"),
    Index("ix_hw_events_job", "job_id"),
)

_JOB_SET = text("job_id IS NOT NULL")
_EVENT_SET = text("event_pk IS NOT NULL")

edges = Table(
    "hw_edges",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("type", String(16), nullable=False),
    Column("src_id", Integer, nullable=False),
    Column("dst_id", Integer, nullable=False),
    Column("subtype", String(16), nullable=True),
    Column("dependency", String(8), nullable=True),
    Column("expression", Text, nullable=True),
    Column("labels", String(512), nullable=True),
    Column("masking", Boolean, nullable=False, default=False),
    Column("job_id", Integer, nullable=True),
    Column("event_pk", Integer, nullable=True),
    Column("up_cost", SmallInteger, nullable=False),
    Column("down_cost", SmallInteger, nullable=False),
    Column("valid_from", BigInteger, nullable=False),
    Column("valid_to", BigInteger, nullable=False),
    Index("ix_hw_edges_dst", "dst_id", "type"),
    Index("ix_hw_edges_src", "src_id", "type"),
    # partial (revision 0005): memberships (CONTAINS) have neither a job nor an event
    Index("ix_hw_edges_job", "job_id", "valid_to", sqlite_where=_JOB_SET, postgresql_where=_JOB_SET),
    Index("ix_hw_edges_event", "event_pk", sqlite_where=_EVENT_SET, postgresql_where=_EVENT_SET),
)

jobs = Table(
    "hw_jobs",
    metadata,
    Column("job_id", Integer, primary_key=True, autoincrement=False),
    Column("first_seen_us", BigInteger, nullable=False),
    Column("last_seen_us", BigInteger, nullable=False),
    Column("runs", Integer, nullable=False),
    Column("file", String(1024), nullable=True),
    Column("line", Integer, nullable=True),
    Column("closed_us", BigInteger, nullable=True),
    Index("ix_hw_jobs_last_seen", "last_seen_us"),
    Index("ix_hw_jobs_file", "file"),
)
"""One row per job node: when its events were first and last seen, how many were recorded (runs), the
project file and line of its latest statement (None for jobs known from query logs, OpenLineage or
``record_lineage`` only), and when it was closed (``jobs.close_jobs``, ``db expire``; None while its
lineage is current)."""

aliases = Table(
    "hw_aliases",
    metadata,
    Column("name", String(1024), primary_key=True),
    Column("short", String(512), nullable=False),
    Column("node_id", Integer, nullable=False),
    Index("ix_hw_aliases_short", "short"),
    Index("ix_hw_aliases_node", "node_id"),
)
"""Other names of a node (revision 0007): each name a dataset is also known by (the names of an
OpenLineage ``symlinks`` facet), written as a node name would be (``names.dataset_name``), with its short
name, so that resolving and searching find the node by any of them (``aliases.py``)."""

meta = Table(
    "hw_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", BigInteger, nullable=False),
)
"""Store-wide counters; ``membership_epoch`` counts the deletions that closed CONTAINS edges."""


def event_document(payload: str | None, payload_zlib: bytes | None) -> str | None:
    """The JSON document of a stored event, whichever column holds it.

    >>> import zlib
    >>> event_document(None, zlib.compress(b'{"a": 1}'))
    '{"a": 1}'
    >>> event_document('{"b": 2}', None)
    '{"b": 2}'
    """
    if payload_zlib is not None:
        return zlib.decompress(payload_zlib).decode()
    return payload
