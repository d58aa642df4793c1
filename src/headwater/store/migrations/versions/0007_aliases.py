"""Aliases: ``hw_aliases`` holds every other name of a node (the names of an OpenLineage dataset's
``symlinks`` facet) with its short name, indexed, so that resolving and searching find the node by any
of them. Existing nodes get their rows from their ``openlineage_aliases`` property, named as the
default OpenLineage naming places them (a store run with ``[openlineage.namespaces]`` gets the rows
of later events named by its own naming).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hw_aliases",
        sa.Column("name", sa.String(1024), primary_key=True),
        sa.Column("short", sa.String(512), nullable=False),
        sa.Column("node_id", sa.Integer, nullable=False),
    )
    op.create_index("ix_hw_aliases_short", "hw_aliases", ["short"])
    op.create_index("ix_hw_aliases_node", "hw_aliases", ["node_id"])
    from headwater.model.ol_naming import OpenLineageNaming
    from headwater.store.aliases import insert
    from headwater.store.facts import Facts, FactsBuilder
    from headwater.store.from_openlineage import ALIASES_PROPERTY, _Datasets

    conn = op.get_bind()
    found = conn.execute(
        sa.text("SELECT id, type, name, properties FROM hw_nodes WHERE properties LIKE :p"),
        {"p": f'%"{ALIASES_PROPERTY}"%'},
    )
    keys = _Datasets(
        FactsBuilder(Facts(event_id="", kind="", run_key="", event_us=0)), OpenLineageNaming(), ("headwater",)
    )
    wanted: dict[int, list[str]] = {}
    for nid, type_, name, props in found:
        for pair in json.loads(props or "{}").get(ALIASES_PROPERTY) or ():
            key = keys.plain(*pair) if isinstance(pair, list) and len(pair) == 2 else None
            if key is not None and key[0] == type_ and key[1] != name:
                wanted.setdefault(nid, []).append(key[1])
    insert(conn, wanted)


def downgrade() -> None:
    op.drop_index("ix_hw_aliases_node", "hw_aliases")
    op.drop_index("ix_hw_aliases_short", "hw_aliases")
    op.drop_table("hw_aliases")
