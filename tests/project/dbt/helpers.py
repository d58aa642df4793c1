"""Questions asked of the store about the dbt test project, with names relative to its schema
(``marts.dim_customers.full_name`` for ``test.<schema>_marts.dim_customers.full_name``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import LineageStore
from headwater.store.schema import events, nodes

runner = CliRunner()


def ingest(url: str, *args: str, code: int = 0) -> str:
    result = runner.invoke(app, ["ingest", *args, "--store", url], env={"COLUMNS": "100"})
    assert result.exit_code == code, result.output
    return result.output


class Names:
    """Store names ↔ names relative to the project's schema."""

    def __init__(self, schema: str) -> None:
        self.prefix = f"test.{schema}_"

    def full(self, short: str) -> str:
        return self.prefix + short

    def short(self, name: str) -> str:
        return name.removeprefix(self.prefix)


def origins(store: LineageStore, names: Names, column: str, **kw: Any) -> dict[str, str]:
    got = store.get_field_origin(names.full(column), **kw).origins
    return {names.short(o.field.name): o.dependency for o in got if o.depth > 0}


def impacts(store: LineageStore, names: Names, column: str, **kw: Any) -> dict[str, str]:
    got = store.get_field_impact(names.full(column), **kw).impacted
    return {names.short(o.field.name): o.dependency for o in got}


def node_names(store: LineageStore, type_: str) -> set[str]:
    with store.engine.connect() as conn:
        return set(conn.execute(select(nodes.c.name).where(nodes.c.type == type_)).scalars())


def job_events(store: LineageStore, job: str) -> list[tuple[str, str | None]]:
    """(kind, status) of a job's recorded events, in time order."""
    with store.engine.connect() as conn:
        jid = conn.execute(select(nodes.c.id).where(nodes.c.type == "JOB", nodes.c.name == job)).scalar_one()
        q = select(events.c.kind, events.c.status).where(events.c.job_id == jid).order_by(events.c.event_us)
        return [(k, s) for k, s in conn.execute(q)]
