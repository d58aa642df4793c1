"""Store-wide counters (``hw_meta``): the membership epoch that lets writers trust cached containment.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hw_meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.BigInteger, nullable=False),
    )
    op.execute("INSERT INTO hw_meta (key, value) VALUES ('membership_epoch', 0)")


def downgrade() -> None:
    op.drop_table("hw_meta")
