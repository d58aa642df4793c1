"""Jobs and their versions: ``hw_jobs`` (one row per job: first and last seen, runs, source file and
line, when it was closed) and ``hw_events.fingerprint`` (the normalised statement an event ran, so
that a job's versions are the runs of one fingerprint). Existing jobs get their row from their
recorded events; their events' fingerprints stay empty and are read from the payload when needed.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hw_jobs",
        sa.Column("job_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("first_seen_us", sa.BigInteger, nullable=False),
        sa.Column("last_seen_us", sa.BigInteger, nullable=False),
        sa.Column("runs", sa.Integer, nullable=False),
        sa.Column("file", sa.String(1024), nullable=True),
        sa.Column("line", sa.Integer, nullable=True),
        sa.Column("closed_us", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_hw_jobs_last_seen", "hw_jobs", ["last_seen_us"])
    op.create_index("ix_hw_jobs_file", "hw_jobs", ["file"])
    op.add_column("hw_events", sa.Column("fingerprint", sa.String(16), nullable=True))
    op.execute(
        "INSERT INTO hw_jobs (job_id, first_seen_us, last_seen_us, runs) "
        "SELECT job_id, min(event_us), max(event_us), count(*) FROM hw_events WHERE job_id IS NOT NULL GROUP BY job_id"
    )


def downgrade() -> None:
    op.drop_column("hw_events", "fingerprint")
    op.drop_index("ix_hw_jobs_file", "hw_jobs")
    op.drop_index("ix_hw_jobs_last_seen", "hw_jobs")
    op.drop_table("hw_jobs")
