"""Initial graph schema: nodes, events, edges.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hw_nodes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("name", sa.String(1024), nullable=False),
        sa.Column("short", sa.String(512), nullable=False),
        sa.Column("parent_id", sa.Integer, nullable=True),
        sa.Column("properties", sa.Text, nullable=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("name", "type", name="uq_hw_nodes_name_type"),
    )
    op.create_index("ix_hw_nodes_short", "hw_nodes", ["short"])
    op.create_index("ix_hw_nodes_parent", "hw_nodes", ["parent_id"])
    op.create_table(
        "hw_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("job_id", sa.Integer, nullable=True),
        sa.Column("run_key", sa.String(256), nullable=False),
        sa.Column("event_us", sa.BigInteger, nullable=False),
        sa.Column("recorded_us", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=True),
        sa.Column("deleted_us", sa.BigInteger, nullable=True),
        sa.Column("payload", sa.Text, nullable=True),
        sa.UniqueConstraint("event_id", name="uq_hw_events_event_id"),
    )
    op.create_index("ix_hw_events_job", "hw_events", ["job_id"])
    op.create_table(
        "hw_edges",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("src_id", sa.Integer, nullable=False),
        sa.Column("dst_id", sa.Integer, nullable=False),
        sa.Column("subtype", sa.String(16), nullable=True),
        sa.Column("dependency", sa.String(8), nullable=True),
        sa.Column("expression", sa.Text, nullable=True),
        sa.Column("labels", sa.String(512), nullable=True),
        sa.Column("masking", sa.Boolean, nullable=False),
        sa.Column("job_id", sa.Integer, nullable=True),
        sa.Column("event_pk", sa.Integer, nullable=True),
        sa.Column("up_cost", sa.SmallInteger, nullable=False),
        sa.Column("down_cost", sa.SmallInteger, nullable=False),
        sa.Column("valid_from", sa.BigInteger, nullable=False),
        sa.Column("valid_to", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_hw_edges_dst", "hw_edges", ["dst_id", "type"])
    op.create_index("ix_hw_edges_src", "hw_edges", ["src_id", "type"])
    op.create_index("ix_hw_edges_job", "hw_edges", ["job_id", "valid_to"])
    op.create_index("ix_hw_edges_event", "hw_edges", ["event_pk"])


def downgrade() -> None:
    op.drop_table("hw_edges")
    op.drop_table("hw_events")
    op.drop_table("hw_nodes")
