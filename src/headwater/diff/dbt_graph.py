"""A dbt project's compiled state as a graph: its artifacts (``manifest.json``, ``catalog.json`` when
present) extracted exactly as ``headwater ingest --dbt`` extracts them (``headwater.project.dbt``:
the same job names, ``model.<project>.<name>``, files and project context), recorded in an in-memory
store, read back as a ``Snapshot``.

A model that does not extract completely on the new side is a ``Problem`` (its statement reads a
column or table that is not there, or it has no compiled SQL). It is located at the model file's
first line, as its job is: the compiled SQL is not the file's Jinja, so a line in it would point
nowhere in the file.

>>> node = {"resource_type": "model", "name": "a", "database": "db", "schema": "s", "alias": "a",
...         "config": {"materialized": "table"}, "compiled_code": "select x from raw.t",
...         "original_file_path": "models/a.sql"}
>>> manifest = {"metadata": {"project_name": "shop", "adapter_type": "postgres"},
...             "nodes": {"model.shop.a": node}, "sources": {}}
>>> from pathlib import Path
>>> graph = extract_dbt_graph(Artifacts(Path("target"), manifest, None, None))
>>> sorted(graph.snapshot.jobs), [j.file for j in graph.snapshot.jobs.values()], graph.problems
(['model.shop.a'], ['shop/models/a.sql'], [])
"""

from __future__ import annotations

from dataclasses import replace

from headwater.diff.changes import Problem
from headwater.diff.project_graph import ProjectGraph, ProjectOptions, record_graph, statement_problems
from headwater.model import LineageInfo
from headwater.project.dbt import Artifacts, extract_dbt


def extract_dbt_graph(artifacts: Artifacts, options: ProjectOptions | None = None) -> ProjectGraph:
    """Extract the project of ``artifacts`` in its adapter's dialect; ``options`` gives the catalog
    under ``catalog.json`` (the deployed store's tables, ``--schema``), its recorded views and the
    default catalog, as ``ingest --dbt`` takes them."""
    opts = options or ProjectOptions()
    extraction = extract_dbt(
        artifacts, opts.catalog, default_catalog=opts.default_catalog, recorded_views=opts.recorded_views
    )
    events: list[LineageInfo] = []
    problems: list[Problem] = []
    for m in extraction.models:
        events.extend(m.events)
        if m.outcome is not None:
            problems.extend(replace(p, line=1, column=None) for p in statement_problems(m.relpath, m.outcome))
        elif m.not_recorded:
            problems.append(Problem(m.relpath, 1, None, m.node.unique_id, "not_recorded", m.not_recorded))
    return record_graph(events, problems)
