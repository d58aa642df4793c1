"""Cheaper edge rows: the job and event indexes of ``hw_edges`` leave out the rows without a job or an
event (CONTAINS memberships: a quarter of the rows of a new table's event). Every query that reads
them names a job or an event, so they answer from the same index; each membership row costs two
index insertions fewer.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_INDEXES = (("ix_hw_edges_job", ["job_id", "valid_to"], "job_id"), ("ix_hw_edges_event", ["event_pk"], "event_pk"))


def upgrade() -> None:
    for name, columns, column in _INDEXES:
        op.drop_index(name, table_name="hw_edges")
        where = sa.text(f"{column} IS NOT NULL")
        op.create_index(name, "hw_edges", columns, sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    for name, columns, _ in _INDEXES:
        op.drop_index(name, table_name="hw_edges")
        op.create_index(name, "hw_edges", columns)
