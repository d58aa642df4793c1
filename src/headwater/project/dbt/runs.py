"""``run_results.json`` as job runs: each node's last run, its status and duration. A model whose
run failed (or was skipped) made no new relation, so it makes no new version of its job; a failed
run is recorded as an OpenLineage FAIL RunEvent of that job (run state only, no lineage).

Only a command that runs nodes (``build``, ``run``, ``seed``, ``snapshot``) has runs; the results of
``dbt compile`` or ``dbt docs generate`` are not runs.

>>> doc = {"metadata": {"invocation_id": "inv-1"}, "args": {"which": "build"}, "results": [
...     {"unique_id": "model.p.a", "status": "success", "execution_time": 0.25,
...      "timing": [{"name": "execute", "started_at": "2026-01-01T00:00:00Z", "completed_at": "2026-01-01T00:00:01Z"}]},
...     {"unique_id": "model.p.b", "status": "error", "execution_time": 0.1, "timing": [], "message": "boom"}]}
>>> runs = read_run_results(doc)
>>> runs["model.p.a"].ran, runs["model.p.a"].completed_at, runs["model.p.b"].ran
(True, '2026-01-01T00:00:01Z', False)
>>> e = fail_event(runs["model.p.b"], "2026-01-01T00:00:02Z")
>>> e["eventType"], e["job"]["facets"]["dbt_node"]["unique_id"]
('FAIL', 'model.p.b')
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RUN_COMMANDS = frozenset({"build", "run", "seed", "snapshot"})
SUCCEEDED = frozenset({"success", "pass", "warn", "no-op"})
JOB_NAMESPACE = "dbt"
"""The OpenLineage job namespace of the run states ``--dbt`` records (the job is named by its dbt node)."""
_NS = uuid.UUID("6f1d3c2e-5a4b-4e8f-9c7d-1b2a3c4d5e6f")
PRODUCER = "https://github.com/headwater/headwater/tree/main/src/headwater/project/dbt"


@dataclass(frozen=True, slots=True)
class RunResult:
    unique_id: str
    status: str
    invocation_id: str | None
    started_at: str | None
    completed_at: str | None
    execution_time: float | None
    message: str | None
    compiled_code: str | None = None
    """The SQL the run executed (an incremental model's ``is_incremental()`` branch included)."""

    @property
    def ran(self) -> bool:
        """The node ran and wrote its relation."""
        return self.status in SUCCEEDED

    @property
    def duration_ms(self) -> int:
        return round(self.execution_time * 1000) if self.execution_time is not None else -1


def _timing(result: Mapping[str, Any]) -> tuple[str | None, str | None]:
    steps = [t for t in result.get("timing") or () if isinstance(t, Mapping)]
    execute = next((t for t in steps if t.get("name") == "execute"), None)
    start = (steps[0] if steps else {}).get("started_at")
    end = (execute or (steps[-1] if steps else {})).get("completed_at")
    return start, end


def read_run_results(document: Mapping[str, Any] | None) -> dict[str, RunResult]:
    """The runs of ``run_results.json`` by node id (empty for a command that runs nothing)."""
    if not document or (document.get("args") or {}).get("which") not in RUN_COMMANDS:
        return {}
    invocation = (document.get("metadata") or {}).get("invocation_id")
    out: dict[str, RunResult] = {}
    for r in document.get("results") or ():
        if not isinstance(r, Mapping) or not isinstance(r.get("unique_id"), str):
            continue
        start, end = _timing(r)
        t = r.get("execution_time")
        out[r["unique_id"]] = RunResult(
            r["unique_id"],
            str(r.get("status") or "unknown").lower(),
            invocation,
            start,
            end,
            float(t) if isinstance(t, int | float) else None,
            r.get("message") if isinstance(r.get("message"), str) else None,
            r.get("compiled_code") if isinstance(r.get("compiled_code"), str) and r["compiled_code"].strip() else None,
        )
    return out


def fail_event(run: RunResult, fallback_time: str) -> dict[str, Any]:
    """An OpenLineage FAIL RunEvent for a failed run of a dbt node (the job of its ``--dbt`` lineage)."""
    run_id = str(uuid.uuid5(_NS, f"{run.invocation_id}\x1f{run.unique_id}"))
    facets: dict[str, Any] = {"dbt_node": {"_producer": PRODUCER, "_schemaURL": PRODUCER, "unique_id": run.unique_id}}
    run_facets: dict[str, Any] = {}
    if run.message:
        run_facets["errorMessage"] = {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json",
            "message": run.message[:2000],
            "programmingLanguage": "SQL",
        }
    return {
        "eventType": "FAIL",
        "eventTime": run.completed_at or run.started_at or fallback_time,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id, "facets": run_facets},
        "job": {"namespace": JOB_NAMESPACE, "name": run.unique_id, "facets": facets},
        "inputs": [],
        "outputs": [],
    }
