"""The order models run in: after the nodes they depend on (``depends_on.nodes``), as dbt runs them;
an ephemeral model is passed through (its readers wait for what it reads); unique id order breaks ties.

>>> from headwater.project.dbt.manifest import DbtNode
>>> def n(uid, *deps, m="table"): return DbtNode(uid, "model", uid, "d", "s", uid, m, "select 1", deps)
>>> nodes = {x.unique_id: x for x in (n("c", "e"), n("e", "a", m="ephemeral"), n("a"), n("b", "c"))}
>>> job_order(nodes)
['a', 'c', 'b']
"""

from __future__ import annotations

from collections.abc import Mapping

from headwater.project.dbt.manifest import DbtNode
from headwater.project.order import run_order


def job_order(nodes: Mapping[str, DbtNode]) -> list[str]:
    """The job nodes (models, snapshots, seeds that write a relation) in running order."""

    def upstream_jobs(uid: str, seen: set[str]) -> set[str]:
        out: set[str] = set()
        for dep in nodes[uid].depends_on:
            if dep in seen or dep not in nodes:
                continue
            seen.add(dep)
            out |= {dep} if nodes[dep].is_job else upstream_jobs(dep, seen)
        return out

    jobs = sorted(uid for uid, node in nodes.items() if node.is_job)
    return run_order(jobs, {uid: upstream_jobs(uid, set()) for uid in jobs}).order
