"""What a dbt project says about its nodes, as node properties the explorer shows: the model's and
columns' descriptions, tags, owner (``meta.owner``, else the group), the folder (the dbt layer:
``staging``, ``marts/finance``), the materialisation, and for jobs their last run.

Values are short strings (``dbt.tags`` joined by commas), so every view can show them as they are.

>>> from headwater.project.dbt.manifest import DbtNode
>>> n = DbtNode("model.p.a", "model", "a", "db", "s", "a", "incremental", "select 1", layer="marts",
...             description="Orders.", tags=("finance",), owner="ana", columns={"ID": {"description": "key"}})
>>> p = NodeProperties()
>>> p.add(n, TableRef("db", "s", "a"), "postgres")
>>> p.datasets[TableRef("db", "s", "a")]["dbt.layer"], p.fields[(TableRef("db", "s", "a"), "id")]
('marts', {'dbt.description': 'key'})
>>> p.jobs["model.p.a"]["dbt.is_incremental"]
'true'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from headwater.catalog import Names
from headwater.model import TableRef
from headwater.project.dbt.manifest import DbtNode
from headwater.project.dbt.runs import RunResult
from headwater.store.node_properties import DBT_PREFIX, dataset_key, field_key, job_key

PREFIX = DBT_PREFIX
"""The prefix of the properties a dbt project gives nodes (replaced as a whole on each ingest)."""


def _strings(**values: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in values.items():
        if isinstance(value, tuple | list):
            value = ",".join(str(v) for v in value)
        if value not in (None, ""):
            out[PREFIX + key] = str(value)[:2000]
    return out


def run_summary(run: RunResult) -> str:
    """``success in 0.25 s at 2026-01-01T00:00:01Z``"""
    took = f" in {run.execution_time:.2f} s" if run.execution_time is not None else ""
    at = f" at {run.completed_at}" if run.completed_at else ""
    return f"{run.status}{took}{at}"


@dataclass
class NodeProperties:
    """Properties by dataset, by (dataset, column) and by job name, to merge into the store's nodes."""

    datasets: dict[TableRef, dict[str, str]] = field(default_factory=dict)
    fields: dict[tuple[TableRef, str], dict[str, str]] = field(default_factory=dict)
    jobs: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, node: DbtNode, relation: TableRef, dialect: str, run: RunResult | None = None) -> None:
        common = _strings(
            unique_id=node.unique_id,
            resource_type=node.resource_type,
            layer=node.layer,
            description=node.description,
            tags=node.tags,
            owner=node.owner,
            materialized=node.materialized,
        )
        self.datasets[relation] = common
        names = Names.for_dialect(dialect)
        for column, spec in node.columns.items():
            props = _strings(description=spec.get("description"), tags=tuple(spec.get("tags") or ()))
            name = names.column_ident(column) or column
            if props:
                self.fields[(relation, name)] = props
        if node.is_job:
            job = _strings(
                unique_id=node.unique_id,
                file=node.file,
                materialized=node.materialized,
                is_incremental="true" if node.is_incremental else "false",
                layer=node.layer,
                owner=node.owner,
            )
            if run is not None:
                job |= _strings(last_run=run_summary(run), status=run.status)
            self.jobs[node.unique_id] = job


def property_updates(props: NodeProperties) -> dict[tuple[str, str], dict[str, str]]:
    """The properties by store node key (``LineageStore.set_node_properties``)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for table, p in props.datasets.items():
        out[dataset_key(table)] = p
    for (table, column), p in props.fields.items():
        out[field_key(table, column)] = p
    for name, p in props.jobs.items():
        out[job_key(name)] = p
    return out
