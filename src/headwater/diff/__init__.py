"""Lineage diff: what a change to the SQL (or the time between two states of a store) does to lineage,
and whether it breaks anything downstream (``headwater diff``, ``GET /api/v1/diff``, ``docs/diff.md``).

- ``snapshot``: one state, read from a store at a time (column edges, written columns, jobs);
- ``project_graph``, ``git_tree``: a version of a project's SQL (a directory, a git revision)
  extracted with the same project context as ``headwater ingest`` into an in-memory store;
- ``dbt_graph``: a dbt project's compiled state (its artifacts), as ``headwater ingest --dbt`` extracts it;
- ``compare``, ``renames``, ``expressions``: the changes per column, table and job;
- ``impact``: each change's downstream (``analyze_impact``'s rules) and its verdict;
- ``run``: the whole diff; ``formats``: table, JSON, Markdown, SARIF, JUnit.
"""

from headwater.diff.changes import ColumnChange, ColumnKind, DiffReport, JobChange, Problem, TableChange, Verdict
from headwater.diff.run import Side, dbt_side, diff, project_side, store_side

__all__ = [
    "ColumnChange",
    "ColumnKind",
    "DiffReport",
    "JobChange",
    "Problem",
    "Side",
    "TableChange",
    "Verdict",
    "dbt_side",
    "diff",
    "project_side",
    "store_side",
]
