"""A dbt project's lineage from its artifacts: every model, snapshot and seed is a job named by its
unique id, extracted in dependency order in one project context (``headwater.project``), so each
model's relation binds the models after it; ``catalog.json`` types bind ``SELECT *`` and the
relations the project does not create.

Each job's event has a stable identity: its file (``<project>/<original_file_path>``), the dbt
invocation and the compiled SQL. The same artifacts ingested again record nothing twice; a new run
is a new run of the job, and a changed model a new version (its former lineage closes).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from headwater.catalog import Catalog, ChainCatalog, ColumnSchema
from headwater.extract.context import generated_query_id
from headwater.model import Field, LineageInfo, QueryContext, SourceCommand, TableRef, Target, make_event_id
from headwater.model.job import JOB_FILE_PROPERTY, JOB_LINE_PROPERTY, JOB_PROPERTY
from headwater.project.context import ProjectContext, StatementOutcome
from headwater.project.dbt.artifacts import Artifacts
from headwater.project.dbt.catalog import catalog_of
from headwater.project.dbt.manifest import DbtManifest, DbtNode, read_manifest
from headwater.project.dbt.order import job_order
from headwater.project.dbt.properties import NodeProperties
from headwater.project.dbt.relations import relation_of
from headwater.project.dbt.runs import RunResult, fail_event, read_run_results
from headwater.project.dbt.statements import statement_of


@dataclass(frozen=True, slots=True)
class ModelOutcome:
    """One job node: its relation, the statement's outcome (None: not extracted), the events to record
    (none when its run failed or it was not compiled) and why nothing is recorded."""

    node: DbtNode
    relation: TableRef
    relpath: str
    outcome: StatementOutcome | None
    events: tuple[LineageInfo, ...]
    not_recorded: str | None = None


@dataclass
class DbtExtraction:
    manifest: DbtManifest
    models: list[ModelOutcome] = field(default_factory=list)
    run_events: list[dict[str, Any]] = field(default_factory=list)
    properties: NodeProperties = field(default_factory=NodeProperties)

    @property
    def files(self) -> list[str]:
        return [m.relpath for m in self.models]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dbt_props(node: DbtNode, run: RunResult | None, invocation: str | None) -> dict[str, str]:
    props = {
        "dbt.unique_id": node.unique_id,
        "dbt.materialized": node.materialized,
        "dbt.is_incremental": "true" if node.is_incremental else "false",
    }
    if invocation:
        props["dbt.invocation_id"] = invocation
    if run is not None:
        props["dbt.status"] = run.status
    return props


def _as_run(
    event: LineageInfo, node: DbtNode, relpath: str, run: RunResult | None, invocation: str | None, at: str
) -> LineageInfo:
    """``event`` as this dbt run of its job: the run's time and duration, an id from the file, the
    invocation and the SQL, and the dbt node's facts in its context."""
    ctx = event.context
    props = {
        **ctx.external_catalog_properties,
        **_dbt_props(node, run, invocation),
        JOB_PROPERTY: node.unique_id,
        JOB_FILE_PROPERTY: relpath,
        JOB_LINE_PROPERTY: "1",
    }
    query_id = generated_query_id(f"{relpath}\x1f{invocation}\x1f{ctx.sql}", 1)
    context = replace(
        ctx,
        query_id=query_id,
        timestamp=(run.completed_at if run and run.completed_at else at),
        duration_ms=run.duration_ms if run else ctx.duration_ms,
        external_catalog_properties=props,
    )
    return replace(event, event_id=make_event_id(query_id, event.target.table), context=context)


def _seed_event(node: DbtNode, relation: TableRef, columns: tuple[ColumnSchema, ...]) -> LineageInfo:
    """A seed's load: its relation and columns, read from a CSV file (no upstream relation)."""
    sql = f"-- dbt seed {node.file or node.unique_id} (sha256 {node.checksum or '?'})"
    context = QueryContext(SourceCommand.INSERT_VALUES, "", sql, catalog=relation.catalog)
    target = Target(relation, tuple(Field(c.name, c.type) for c in columns))
    return LineageInfo("", SourceCommand.INSERT_VALUES, target, (), (), (), (), context)


def extract_dbt(
    artifacts: Artifacts,
    base: Catalog | None = None,
    *,
    default_catalog: str = "internal",
    recorded_views: Container[TableRef] = (),
    dialect: str | None = None,
) -> DbtExtraction:
    """Extract every job node of the project (``dialect``: instead of the adapter's)."""
    manifest = read_manifest(artifacts.manifest)
    dialect = dialect or manifest.dialect
    runs = read_run_results(artifacts.run_results)
    invocation = next((r.invocation_id for r in runs.values() if r.invocation_id), None) or manifest.invocation_id
    at = str((artifacts.manifest.get("metadata") or {}).get("generated_at") or _now())
    warehouse = catalog_of(artifacts.catalog, dialect, default_catalog) if artifacts.catalog else None
    catalog = ChainCatalog(*(c for c in (warehouse, base) if c is not None)) if (warehouse or base) else None
    ctx = ProjectContext(catalog, dialect=dialect, default_catalog=default_catalog, recorded_views=recorded_views)
    out = DbtExtraction(manifest)
    for node in manifest.nodes.values():
        if not node.is_job and node.resource_type == "source":
            out.properties.add(node, relation_of(node, dialect, default_catalog), dialect)
    for uid in job_order(manifest.nodes):
        node = manifest.nodes[uid]
        relation = relation_of(node, dialect, default_catalog)
        relpath = f"{manifest.project}/{node.file or uid}"
        run = runs.get(uid)
        if run is not None and run.compiled_code:  # the SQL of the run itself
            node = replace(node, compiled_code=run.compiled_code, ctes_injected=True)
        out.properties.add(node, relation, dialect, run)
        if run is not None and not run.ran:
            if run.status != "skipped":
                out.run_events.append(fail_event(run, at))
            out.models.append(ModelOutcome(node, relation, relpath, None, (), f"its run {run.status}: no new version"))
            continue
        if node.resource_type == "seed":
            known = catalog.table(relation) if catalog is not None else None
            seed = _seed_event(node, relation, known.columns if known else ())
            event = _as_run(seed, node, relpath, run, invocation, at)
            out.models.append(ModelOutcome(node, relation, relpath, None, (event,)))
            continue
        target_known = catalog is not None and catalog.table(relation) is not None
        text = statement_of(node, relation, dialect, target_known)
        if text is None:
            out.models.append(ModelOutcome(node, relation, relpath, None, (), "not compiled: run `dbt compile`"))
            continue
        statements = ctx.extract(relpath, text).statements
        outcome = next((s for s in statements if s.job), statements[0] if statements else None)
        events = tuple(_as_run(e, node, relpath, run, invocation, at) for e in (outcome.events if outcome else ()))
        out.models.append(ModelOutcome(node, relation, relpath, outcome, events))
    return out
