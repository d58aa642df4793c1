"""What one recording asserts, before it touches the database: nodes, edges, the event row.

Every producer format (headwater events, OpenLineage run events, ``record_lineage`` calls) is
translated to ``Facts`` by a ``FactsBuilder``; ``write.apply`` then stores any batch of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from headwater.store.names import dataset_name, field_name, ident, short_of
from headwater.store.types import PROCESS_TYPES, NodeType

NodeKey = tuple[str, str]
"""(node type, normalised name): the identity of a node."""


@dataclass(slots=True)
class NodeSpec:
    type: str
    name: str
    short: str
    parent: NodeKey | None = None
    properties: dict[str, Any] | None = None

    @property
    def key(self) -> NodeKey:
        return (self.type, self.name)


@dataclass(slots=True)
class EdgeSpec:
    """One edge in data-flow orientation. ``scope`` overrides the recording's job as the owner."""

    type: str
    src: NodeKey
    dst: NodeKey
    subtype: str | None = None
    dependency: str | None = None
    expression: str | None = None
    labels: tuple[str, ...] = ()
    masking: bool = False
    scope: NodeKey | None = None

    @property
    def up_cost(self) -> int:
        return 0 if self.src[0] in PROCESS_TYPES else 1

    @property
    def down_cost(self) -> int:
        return 0 if self.dst[0] in PROCESS_TYPES else 1


@dataclass(slots=True)
class Facts:
    """One recording: its event row, the nodes it mentions, the edges it asserts for its job."""

    event_id: str
    kind: str
    run_key: str
    event_us: int
    job: NodeKey | None = None
    status: str | None = None
    payload: str | None = None
    nodes: dict[NodeKey, NodeSpec] = field(default_factory=dict)
    edges: list[EdgeSpec] = field(default_factory=list)


class FactsBuilder:
    """Collects the nodes and edges of one ``Facts``, normalising names on the way in."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts

    def node(
        self,
        type_: str,
        name: str,
        short: str | None = None,
        parent: NodeKey | None = None,
        properties: dict[str, Any] | None = None,
    ) -> NodeKey:
        key = (type_, name)
        if key not in self.facts.nodes:
            self.facts.nodes[key] = NodeSpec(type_, name, short or name, parent, properties)
        return key

    def system(self, name: str) -> NodeKey:
        n = ident(name)
        return self.node(NodeType.SOURCE_SYSTEM, n, n)

    def dataset(self, system: str, *parts: str | None, type_: str = NodeType.DATASET) -> NodeKey:
        """A dataset (or entity-side node) inside its source system."""
        parent = self.system(system)
        name = dataset_name(system, *parts)
        return self.node(type_, name, short_of(name, field=False), parent)

    def field(self, dataset: NodeKey, column: str) -> NodeKey:
        name = field_name(dataset[1], column)
        return self.node(NodeType.FIELD, name, short_of(name, field=True), dataset)

    def edge(self, type_: str, src: NodeKey, dst: NodeKey, **attrs: Any) -> None:
        self.facts.edges.append(EdgeSpec(type_, src, dst, **attrs))
