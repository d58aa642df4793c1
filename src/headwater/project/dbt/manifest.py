"""The manifest's nodes that make lineage: models, snapshots and seeds (jobs writing a relation)
and sources (relations only read), with what headwater keeps of each.

>>> m = {"metadata": {"project_name": "shop", "adapter_type": "postgres"},
...      "nodes": {"model.shop.a": {"resource_type": "model", "name": "a", "database": "db", "schema": "s",
...                                 "alias": "a", "config": {"materialized": "view"}, "compiled_code": "select 1 as x",
...                                 "depends_on": {"nodes": ["source.shop.raw.t"]},
...                                 "original_file_path": "models/staging/a.sql", "fqn": ["shop", "staging", "a"]}},
...      "sources": {"source.shop.raw.t": {"resource_type": "source", "name": "t", "database": "db",
...                                        "schema": "raw", "identifier": "t", "fqn": ["shop", "raw", "t"]}}}
>>> p = read_manifest(m)
>>> p.project, p.dialect, [(n.unique_id, n.materialized, n.layer) for n in p.nodes.values()]
('shop', 'postgres', [('model.shop.a', 'view', 'staging'), ('source.shop.raw.t', 'source', 'raw')])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

JOB_TYPES = ("model", "snapshot", "seed")
"""Resource types that write a relation: each is a job."""

ADAPTER_DIALECTS = {
    "postgres": "postgres",
    "redshift": "redshift",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "spark": "spark",
    "databricks": "databricks",
    "duckdb": "duckdb",
    "doris": "doris",
    "starrocks": "starrocks",
    "trino": "trino",
    "athena": "athena",
    "clickhouse": "clickhouse",
    "sqlserver": "tsql",
    "fabric": "tsql",
    "synapse": "tsql",
    "mysql": "mysql",
    "oracle": "oracle",
    "teradata": "teradata",
    "materialize": "postgres",
    "risingwave": "postgres",
}
"""dbt adapter type → the SQL dialect headwater extracts its compiled code in."""


@dataclass(frozen=True, slots=True)
class DbtNode:
    """A model, snapshot, seed or source of the manifest."""

    unique_id: str
    resource_type: str
    name: str
    database: str | None
    schema: str | None
    alias: str
    materialized: str
    compiled_code: str | None = None
    depends_on: tuple[str, ...] = ()
    extra_ctes: tuple[tuple[str, str], ...] = ()
    """(ephemeral model id, ``__dbt__cte__…`` CTE text) for ephemeral models the code reads."""
    ctes_injected: bool = True
    file: str | None = None
    layer: str | None = None
    description: str = ""
    tags: tuple[str, ...] = ()
    owner: str | None = None
    columns: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    checksum: str | None = None

    @property
    def is_job(self) -> bool:
        return self.resource_type in JOB_TYPES and self.materialized != "ephemeral"

    @property
    def is_incremental(self) -> bool:
        return self.materialized == "incremental"


@dataclass(frozen=True, slots=True)
class DbtManifest:
    project: str
    adapter: str
    dialect: str
    invocation_id: str | None
    nodes: dict[str, DbtNode]


def _layer(fqn: list[str], resource_type: str) -> str | None:
    """The folder of a node inside its project (``staging``, ``marts/finance``): the dbt layer.
    A source's layer is its source name."""
    inner = fqn[1:-1] if len(fqn) > 2 else []
    if resource_type == "source":
        return fqn[-2] if len(fqn) >= 2 else None
    return "/".join(inner) or None


def _owner(d: Mapping[str, Any]) -> str | None:
    config = d.get("config") or {}
    for meta in (d.get("meta") or {}, config.get("meta") or {}):
        owner = meta.get("owner")
        if isinstance(owner, str) and owner:
            return owner
    group = d.get("group") or config.get("group")
    return group if isinstance(group, str) and group else None


def _node(unique_id: str, d: Mapping[str, Any]) -> DbtNode:
    rtype = str(d.get("resource_type") or unique_id.split(".")[0])
    config = d.get("config") or {}
    alias = d.get("alias") or d.get("identifier") or d.get("name") or unique_id.rsplit(".", 1)[-1]
    code = d.get("compiled_code", d.get("compiled_sql"))
    ctes = tuple((str(c.get("id")), str(c.get("sql"))) for c in d.get("extra_ctes") or () if isinstance(c, Mapping))
    checksum = (d.get("checksum") or {}).get("checksum") if isinstance(d.get("checksum"), Mapping) else None
    return DbtNode(
        unique_id=unique_id,
        resource_type=rtype,
        name=str(d.get("name") or alias),
        database=d.get("database") or None,
        schema=d.get("schema") or None,
        alias=str(alias),
        materialized="source" if rtype == "source" else str(config.get("materialized") or rtype),
        compiled_code=code if isinstance(code, str) and code.strip() else None,
        depends_on=tuple((d.get("depends_on") or {}).get("nodes") or ()),
        extra_ctes=ctes,
        ctes_injected=bool(d.get("extra_ctes_injected", True)),
        file=d.get("original_file_path") or None,
        layer=_layer(list(d.get("fqn") or []), rtype),
        description=str(d.get("description") or ""),
        tags=tuple(dict.fromkeys([*(d.get("tags") or ()), *(config.get("tags") or ())])),
        owner=_owner(d),
        columns={str(k): v for k, v in (d.get("columns") or {}).items() if isinstance(v, Mapping)},
        checksum=checksum,
    )


def read_manifest(manifest: Mapping[str, Any]) -> DbtManifest:
    """The project's job and source nodes (tests, analyses, operations and disabled nodes are left out)."""
    meta = manifest.get("metadata") or {}
    adapter = str(meta.get("adapter_type") or "postgres")
    nodes: dict[str, DbtNode] = {}
    for unique_id, d in (manifest.get("nodes") or {}).items():
        if isinstance(d, Mapping) and d.get("resource_type") in JOB_TYPES:
            nodes[unique_id] = _node(unique_id, d)
    for unique_id, d in (manifest.get("sources") or {}).items():
        if isinstance(d, Mapping):
            nodes[unique_id] = _node(unique_id, d)
    return DbtManifest(
        project=str(meta.get("project_name") or "dbt"),
        adapter=adapter,
        dialect=ADAPTER_DIALECTS.get(adapter, adapter),
        invocation_id=meta.get("invocation_id"),
        nodes=nodes,
    )
