"""Pipelines and their steps reported through ``record_lineage`` get their own node types: the JOB
``pipeline:<id>`` becomes a PIPELINE and the STEP ``pipeline:<id>/<step>`` a PIPELINE_STEP (JOB is
left to SQL statements and OpenLineage jobs; STEP is no longer a type). Names and ids are unchanged.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("UPDATE hw_nodes SET type = 'PIPELINE' WHERE type = 'JOB' AND name LIKE 'pipeline:%'")
    op.execute("UPDATE hw_nodes SET type = 'PIPELINE_STEP' WHERE type = 'STEP'")


def downgrade() -> None:
    op.execute("UPDATE hw_nodes SET type = 'STEP' WHERE type = 'PIPELINE_STEP'")
    op.execute("UPDATE hw_nodes SET type = 'JOB' WHERE type = 'PIPELINE'")
