"""Alembic environment: runs on the connection ``headwater.store.migrate`` hands over."""

from __future__ import annotations

from alembic import context

from headwater.store.migrate import VERSION_TABLE
from headwater.store.schema import metadata


def run() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=metadata, version_table=VERSION_TABLE)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # inside an Alembic command, not when a collector imports this file
    run()
