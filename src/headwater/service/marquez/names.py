"""Marquez's names for headwater's nodes, and Marquez node ids.

A dataset's Marquez namespace is its source system in headwater (the catalog of a table extracted from
SQL, ``internal``; the OpenLineage namespace of a dataset recorded from OpenLineage in a namespace no
naming places), its name the rest of its full name. A job's namespace is the OpenLineage namespace it
was recorded under, else ``headwater`` (the namespace ``extract --format openlineage`` gives jobs); its
name the OpenLineage job name, the name a statement was given (``-- name:``, ``FILE#N``), or the node's
full name for an unnamed statement, a pipeline or a step.

>>> dataset_id("internal", "internal.sales.orders")
('internal', 'sales.orders')
>>> job_id("job:etl.sql#3", {}), job_id("ol:food_delivery/etl_orders", {"namespace": "food_delivery"})
(('headwater', 'etl.sql#3'), ('food_delivery', 'etl_orders'))
>>> NodeId.parse("dataset:postgres://db:5432:public.orders")
NodeId(kind='dataset', rest='postgres://db:5432:public.orders')
>>> list(NodeId.parse("datasetField:internal:sales.orders:amount").splits())[:2]
[('internal', 'sales.orders:amount'), ('internal:sales.orders', 'amount')]
>>> node_id("dataset", "internal", "sales.orders"), node_id("datasetField", "internal", "sales.orders", "amount")
('dataset:internal:sales.orders', 'datasetField:internal:sales.orders:amount')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from headwater.service.errors import ApiError

JOB_NAMESPACE = "headwater"
"""The namespace of jobs that were not recorded from OpenLineage (as ``extract --format openlineage``
names them)."""
KINDS = ("dataset", "datasetField", "job")


def dataset_id(system: str, full_name: str) -> tuple[str, str]:
    """``(namespace, name)`` of a dataset node named ``full_name`` inside source system ``system``."""
    prefix = system + "."
    return system, full_name[len(prefix) :] if full_name.startswith(prefix) else full_name


def job_id(name: str, properties: Mapping[str, Any]) -> tuple[str, str]:
    """``(namespace, name)`` of a process node (job, pipeline, step) from its full name and properties."""
    ns = properties.get("namespace")
    if isinstance(ns, str) and ns and name.startswith(f"ol:{ns}/"):
        return ns, name[len(ns) + 4 :]
    if name.startswith("job:"):
        return JOB_NAMESPACE, name[4:]
    return JOB_NAMESPACE, name


def job_candidates(namespace: str, name: str) -> list[str]:
    """The full names a process node with this Marquez id can have (``job_id`` decides among them)."""
    return [f"ol:{namespace}/{name}", f"job:{name}", name]


def node_id(kind: str, namespace: str, name: str, field: str | None = None) -> str:
    return ":".join((kind, namespace, name) if field is None else (kind, namespace, name, field))


@dataclass(frozen=True)
class NodeId:
    """A Marquez node id: ``dataset:<ns>:<name>``, ``datasetField:<ns>:<name>:<field>`` or
    ``job:<ns>:<name>``. Namespaces hold colons (``postgres://db:5432``), so the split between
    namespace and name is found against the store (``splits`` lists the candidates)."""

    kind: str
    rest: str

    @staticmethod
    def parse(value: str, field: str = "query.nodeId", kinds: tuple[str, ...] = KINDS) -> NodeId:
        kind, sep, rest = value.partition(":")
        if not sep or kind not in kinds or ":" not in rest:
            expected = " or ".join(f"{k}:<namespace>:<name>" for k in kinds)
            raise ApiError(400, field, f"{value!r} is not a node id: expected {expected}")
        return NodeId(kind, rest)

    def splits(self) -> Iterator[tuple[str, str]]:
        """Every ``(namespace, name)`` split of the id at one of its colons, shortest namespace first."""
        at = self.rest.find(":")
        while at > 0:
            yield self.rest[:at], self.rest[at + 1 :]
            at = self.rest.find(":", at + 1)
