"""dbt projects: exact column lineage of a dbt project from its artifacts (``headwater ingest --dbt``).

Only dbt's artifacts are read, as plain JSON (never dbt's Python):

- ``artifacts``: ``target/manifest.json``, and ``catalog.json``, ``run_results.json`` when present;
- ``manifest``: the models, snapshots, seeds (jobs) and sources, and the adapter's SQL dialect;
- ``relations``: a node's ``database.schema.alias`` as a headwater table;
- ``order``: jobs after the nodes they depend on (through ephemeral models);
- ``ephemeral``: ``__dbt__cte__…`` CTEs of ephemeral models put in when the code lacks them;
- ``statements``: the statement a node's materialisation runs (view, table, incremental, snapshot);
- ``catalog``: ``catalog.json``'s columns and types as a catalog;
- ``runs``: ``run_results.json`` as each job's last run (a failed run: no new version);
- ``properties``: descriptions, tags, owner, layer as node properties;
- ``extraction``: all of it in one project context (``headwater.project``).

See docs/dbt.md.
"""

from headwater.project.dbt.artifacts import Artifacts, DbtArtifactError, load_artifacts
from headwater.project.dbt.extraction import DbtExtraction, ModelOutcome, extract_dbt
from headwater.project.dbt.manifest import DbtManifest, DbtNode, read_manifest
from headwater.project.dbt.properties import PREFIX as PROPERTY_PREFIX
from headwater.project.dbt.properties import NodeProperties, property_updates

__all__ = [
    "PROPERTY_PREFIX",
    "Artifacts",
    "DbtArtifactError",
    "DbtExtraction",
    "DbtManifest",
    "DbtNode",
    "ModelOutcome",
    "NodeProperties",
    "extract_dbt",
    "load_artifacts",
    "property_updates",
    "read_manifest",
]
