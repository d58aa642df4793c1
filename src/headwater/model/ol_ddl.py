"""A DDL statement as OpenLineage ``RunEvent``\\ s with the ``lifecycleStateChange`` dataset facet.

``extract --statements all --format openlineage`` gives one run per statement that changes a table
without moving data — ``CREATE TABLE`` without a query (CREATE, with the columns as the ``schema``
facet), ``DROP TABLE`` (DROP), ``ALTER TABLE`` (ALTER; a rename is RENAME with the previous name as
``previousIdentifier``) and ``TRUNCATE`` (TRUNCATE) — as the spec defines the facet: on the output
dataset, no inputs, no column lineage. Statements that move data have their own events.

>>> [e.eventType.value for e in ddl_run_events("DROP TABLE db.t", "doris", lifecycle="start")]
['START', 'COMPLETE']
>>> e = ddl_run_events("DROP TABLE db.t", "doris")[0]
>>> e.outputs[0].name, e.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value
('db.t', 'DROP')
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import attr
import sqlglot
from openlineage.client.event_v2 import Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import job_type_job, lifecycle_state_change_dataset, schema_dataset, sql_job
from sqlglot import exp

from headwater.model.event import TableRef
from headwater.model.ol_naming import OpenLineageNaming
from headwater.model.openlineage import sql_job_name

_State = lifecycle_state_change_dataset.LifecycleStateChange
_DDL_RUNS = uuid.UUID("6f1d2c3a-4b5e-4f70-8a91-0c2d3e4f5a6b")


Fold = Callable[[exp.Expression | None], str | None]
"""A table name part as the lineage events write it (``catalog.Names.dataset_ident`` of the dialect)."""


def _as_written(part: exp.Expression | None) -> str | None:
    return part.name if part is not None else None


def _table(t: exp.Table | None, catalog: str, database: str | None, fold: Fold) -> TableRef | None:
    if not isinstance(t, exp.Table) or not t.name:
        return None
    return TableRef(
        fold(t.args.get("catalog")) or catalog, fold(t.args.get("db")) or database or "", fold(t.this) or t.name
    )


def lifecycle_change(
    sql: str, dialect: str, database: str | None = None, catalog: str = "internal", fold: Fold = _as_written
) -> tuple[str, TableRef, TableRef | None, list[tuple[str, str | None]]] | None:
    """``(state, table, previous table, columns)`` of a DDL statement, None for anything else; ``fold``
    names the table as the lineage events do (as written by default)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    kind = str(tree.args.get("kind") or "").upper()
    if isinstance(tree, exp.Create) and kind == "TABLE" and tree.args.get("expression") is None:
        target = tree.this
        columns = []
        if isinstance(target, exp.Schema):
            columns = [
                (c.name, c.args["kind"].sql(dialect) if c.args.get("kind") else None)
                for c in target.expressions
                if isinstance(c, exp.ColumnDef)
            ]
            target = target.this
        table = _table(target, catalog, database, fold)
        return ("CREATE", table, None, columns) if table else None
    if isinstance(tree, exp.Drop) and kind == "TABLE":
        tables = tree.args.get("tables") or [tree.this]
        table = _table(tables[0], catalog, database, fold)
        return ("DROP", table, None, []) if table else None
    if isinstance(tree, exp.TruncateTable) and tree.expressions:
        table = _table(tree.expressions[0], catalog, database, fold)
        return ("TRUNCATE", table, None, []) if table else None
    if isinstance(tree, exp.Alter) and kind == "TABLE":
        table = _table(tree.this, catalog, database, fold)
        if table is None:
            return None
        for action in tree.args.get("actions") or ():
            if isinstance(action, exp.AlterRename):
                new = _table(action.this, table.catalog, table.database, fold)
                if new is not None:
                    return ("RENAME", new, table, [])
        return ("ALTER", table, None, [])
    return None


def ddl_run_events(
    sql: str,
    dialect: str,
    database: str | None = None,
    catalog: str = "internal",
    naming: OpenLineageNaming | None = None,
    producer: str = "https://github.com/headwater/headwater",
    lifecycle: str = "complete",
    engine: str | None = None,
    timestamp: str | None = None,
    run_key: str = "",
    fold: Fold = _as_written,
) -> list[RunEvent]:
    """The run of a DDL statement (START then COMPLETE with ``lifecycle="start"``); [] when ``sql``
    is no table DDL. ``run_key`` (the query id, the statement's place) keeps run ids apart; ``fold``
    names the table as the lineage events do (``Names.for_dialect(d).dataset_ident``)."""
    change = lifecycle_change(sql, dialect, database, catalog, fold)
    if change is None:
        return []
    state, table, previous, columns = change
    naming = naming or OpenLineageNaming()
    ns, name = naming.dataset(table)
    facet = lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet(
        lifecycleStateChange=_State(state), producer=producer
    )
    if previous is not None:
        pns, pname = naming.dataset(previous)
        facet = attr.evolve(facet, previousIdentifier=lifecycle_state_change_dataset.PreviousIdentifier(pname, pns))
    facets: dict[str, Any] = {"lifecycleStateChange": facet}
    if columns:
        fields = [schema_dataset.SchemaDatasetFacetFields(name=n, type=t) for n, t in columns]
        facets["schema"] = schema_dataset.SchemaDatasetFacet(fields=fields, producer=producer)
    engine_name = (engine or dialect or "doris").upper()
    job = Job(
        naming.job_namespace,
        sql_job_name(table),
        facets={
            "sql": sql_job.SQLJobFacet(query=sql, dialect=engine_name.lower(), producer=producer),
            "jobType": job_type_job.JobTypeJobFacet(
                processingType="BATCH", integration=engine_name, jobType="QUERY", producer=producer
            ),
        },
    )
    run_id = str(uuid.uuid5(_DDL_RUNS, f"{run_key}\x1f{sql}"))
    complete = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime=timestamp or datetime.now(UTC).isoformat(),
        producer=producer,
        run=Run(runId=run_id),
        job=job,
        inputs=[],
        outputs=[OutputDataset(ns, name, facets=facets)],
    )
    if lifecycle != "start":
        return [complete]
    return [attr.evolve(complete, eventType=RunState.START), complete]
