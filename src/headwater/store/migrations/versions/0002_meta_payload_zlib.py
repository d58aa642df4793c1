"""Store-wide counters (``hw_meta``): the membership epoch that lets writers trust cached containment;
event payloads stored zlib-compressed (``hw_events.payload_zlib``; rows written before keep ``payload``).

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
    op.add_column("hw_events", sa.Column("payload_zlib", sa.LargeBinary, nullable=True))


def downgrade() -> None:
    op.drop_column("hw_events", "payload_zlib")
    op.drop_table("hw_meta")
