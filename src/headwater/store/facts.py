"""What one recording asserts, before it touches the database: nodes, edges, the event row.

Every producer format (headwater events, OpenLineage run events, ``record_lineage`` calls) is
translated to ``Facts`` by a ``FactsBuilder``; ``write.apply`` then stores any batch of them.

Edges are plain tuples (``Edge``) because a batch holds hundreds of thousands of them. A
dataset-level INDIRECT mapping (JOIN, FILTER, GROUP_BY, SORT: it applies to every column the
statement writes) is asserted once per source field with ``FactsBuilder.indirect_all``, stored as
one ``MAPS_TO_ALL`` edge from the source field to the target dataset; ``finish`` adds a
``WRITES_FIELD`` edge for each written column that no column-level mapping of the recording reaches,
so that the queries know every column the mapping applies to (see ``indirect.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from headwater.store.errors import InvalidInput
from headwater.store.names import dataset_name, field_name, ident, short_of
from headwater.store.schema import nodes
from headwater.store.types import MAPS_TO_ALL, WRITES_FIELD, EdgeType, NodeType

NodeKey = tuple[str, str]
"""(node type, normalised name): the identity of a node."""

Edge = tuple[str, NodeKey, NodeKey, str | None, str | None, str | None, str | None, bool, NodeKey | None]
"""(type, src, dst, subtype, dependency, expression, labels joined by commas or None, masking, scope).
``scope`` overrides the recording's job as the owner of the edge."""

_MAPS_TO = EdgeType.MAPS_TO.value
_FIELD = NodeType.FIELD.value


@dataclass(slots=True, init=False)
class NodeSpec:
    type: str
    name: str
    short: str
    parent: NodeKey | None = None
    properties: dict[str, Any] | None = None
    key: NodeKey = field(init=False, repr=False, compare=False)
    """``(type, name)``, made once (every mention of the node in a batch looks it up by this key)."""

    def __init__(
        self,
        type: str,
        name: str,
        short: str,
        parent: NodeKey | None = None,
        properties: dict[str, Any] | None = None,
    ) -> None:
        # written out (not the dataclass's ``__init__`` and a ``__post_init__``): one spec per new node
        self.type = type
        self.name = name
        self.short = short
        self.parent = parent
        self.properties = properties
        self.key = (type, name)


_NAME_MAX = nodes.c.name.type.length
_SHORT_MAX = nodes.c.short.type.length


def checked(spec: NodeSpec) -> NodeSpec:
    """``spec``, if a database can store its names (every backend alike): not longer than their
    columns, no NUL character (PostgreSQL text cannot hold one); else ``InvalidInput``. Names are
    checked once, where a spec is made (``Names`` caches them)."""
    name = spec.name
    if len(name) > _NAME_MAX or len(spec.short) > _SHORT_MAX or "\x00" in name:
        shown = f"{name[:60]!r}{'…' if len(name) > 60 else ''}"
        raise InvalidInput(spec.type.lower(), f"{shown}: names are at most {_NAME_MAX} characters, without NUL")
    return spec


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
    edges: list[Edge] = field(default_factory=list)
    fingerprint: str | None = None
    """The normalised statement the event ran (``model.job.sql_fingerprint``): a job's versions."""
    file: str | None = None
    """The project file of the statement (``headwater.job.file``), relative to the project root."""
    line: int | None = None
    aliases: dict[NodeKey, list[str]] | None = None
    """Other names of some of its datasets, as node names (an OpenLineage dataset's symlinks): ``aliases.py``."""


class Names:
    """Normalised dataset and field nodes by their raw names, shared by the recordings of a batch
    (normalising the same names again for every event is most of the translation's cost).

    ``columns`` holds each dataset's fields by raw column name (one string lookup per mention; an
    event looks its datasets' dictionaries up once, ``of``)."""

    __slots__ = ("_fields", "columns", "datasets")

    def __init__(self) -> None:
        self.datasets: dict[tuple[Any, ...], tuple[NodeSpec, NodeSpec]] = {}
        self.columns: dict[NodeKey, dict[str, NodeSpec]] = {}
        self._fields = 0

    def dataset(self, type_: str, system: str, parts: tuple[str | None, ...]) -> tuple[NodeSpec, NodeSpec]:
        raw = (type_, system, parts)
        hit = self.datasets.get(raw)
        if hit is None:
            if not system or not parts or not parts[-1] or any(p is not None and not p.strip() for p in parts):
                where = ".".join(p or "" for p in (system, *parts))
                raise InvalidInput("dataset", f"{where!r}: a system and a name are required, and no part may be empty")
            sys_name = ident(system)
            sys_spec = checked(NodeSpec(NodeType.SOURCE_SYSTEM.value, sys_name, sys_name))
            name = dataset_name(system, *parts)
            spec = checked(NodeSpec(type_, name, short_of(name, field=False), sys_spec.key))
            hit = self.datasets[raw] = (spec, sys_spec)
            if len(self.datasets) > 200_000:
                self.datasets.clear()
        return hit

    def of(self, dataset: NodeKey) -> dict[str, NodeSpec]:
        """The fields of ``dataset`` known so far, by raw column name (``field`` adds to it)."""
        known = self.columns.get(dataset)
        if known is None:
            known = self.columns[dataset] = {}
        return known

    def field(self, dataset: NodeKey, column: str) -> NodeSpec:
        known = self.columns.get(dataset)
        if known is None:
            known = self.columns[dataset] = {}
        spec = known.get(column)
        if spec is None:
            spec = self.new_field(dataset, column, known)
        return spec

    def new_field(self, dataset: NodeKey, column: str, known: dict[str, NodeSpec]) -> NodeSpec:
        """The field ``column`` of ``dataset``, made and kept in ``known`` (``of(dataset)``)."""
        if not column or column.isspace():
            raise InvalidInput("column", f"an empty column name in {dataset[1]!r}")
        name = field_name(dataset[1], column)
        short = short_of(name, field=True) if '"' in name else ".".join(name.rsplit(".", 2)[-2:])
        if len(name) > _NAME_MAX or len(short) > _SHORT_MAX or "\x00" in name:
            checked(NodeSpec(NodeType.FIELD.value, name, short, dataset))  # raises
        spec = known[column] = NodeSpec(_FIELD, name, short, dataset)
        self._fields += 1
        if self._fields > 500_000:
            self.columns.clear()
            self._fields = 0
        return spec


class FactsBuilder:
    """Collects the nodes and edges of one ``Facts``, normalising names on the way in."""

    def __init__(self, facts: Facts, names: Names | None = None) -> None:
        self.facts = facts
        self.names = names or Names()
        self._all: list[tuple[NodeKey, NodeKey, str, str | None, bool, tuple[NodeKey, ...]]] = []
        self._written: dict[NodeKey, tuple[NodeKey, ...]] = {}

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
            self.facts.nodes[key] = checked(NodeSpec(type_, name, short or name, parent, properties))
        return key

    def system(self, name: str) -> NodeKey:
        n = ident(name)
        return self.node(NodeType.SOURCE_SYSTEM, n, n)

    def dataset(self, system: str, *parts: str | None, type_: str = NodeType.DATASET) -> NodeKey:
        """A dataset (or entity-side node) inside its source system."""
        spec, sys_spec = self.names.dataset(str(type_), system, parts)
        nodes = self.facts.nodes
        key = spec.key
        if key not in nodes:
            nodes[key] = spec
            nodes.setdefault(sys_spec.key, sys_spec)
        return key

    def field(self, dataset: NodeKey, column: str) -> NodeKey:
        spec = self.names.field(dataset, column)
        key = spec.key
        nodes = self.facts.nodes
        if key not in nodes:
            nodes[key] = spec
        return key

    def edge(
        self,
        type_: str,
        src: NodeKey,
        dst: NodeKey,
        subtype: str | None = None,
        dependency: str | None = None,
        expression: str | None = None,
        labels: tuple[str, ...] = (),
        masking: bool = False,
        scope: NodeKey | None = None,
    ) -> None:
        self.facts.edges.append(
            (str(type_), src, dst, subtype, dependency, expression, ",".join(labels) or None, masking, scope)
        )

    def written(self, dataset: NodeKey, columns: list[NodeKey]) -> None:
        """The columns the recording writes into ``dataset``: what its next ``indirect_all`` calls for
        that dataset apply to."""
        self._written[dataset] = tuple(columns)

    def indirect_all(
        self, src: NodeKey, dataset: NodeKey, subtype: str, expression: str | None, masking: bool = False
    ) -> None:
        """A dataset-level INDIRECT mapping from ``src`` to every column written into ``dataset``."""
        self._all.append((src, dataset, subtype, expression, masking, self._written.get(dataset, ())))

    def finish(self, expand: bool = False) -> None:
        """Store the ``indirect_all`` mappings: one MAPS_TO_ALL edge each, plus WRITES_FIELD edges for
        written columns that no column-level mapping reaches.

        The mappings of a dataset are stored as before (one MAPS_TO edge to each written column)
        when ``expand``, or when the compact form would not say exactly the same: their column
        lists differ, a column-level mapping of the recording reaches a column of the dataset
        outside the list, or a mapping's (source, subtype) also maps column-level to a listed
        column (the two would have been one edge)."""
        if not self._all:
            return
        edges = self.facts.edges
        nodes = self.facts.nodes
        column_level = [e for e in edges if e[0] == _MAPS_TO and e[8] is None]
        mapped = {e[2] for e in column_level}  # the columns a column-level mapping reaches
        by_dataset: dict[NodeKey, list[tuple[NodeKey, NodeKey, str, str | None, bool, tuple[NodeKey, ...]]]] = {}
        for entry in self._all:
            per = by_dataset.get(entry[1])
            if per is None:
                by_dataset[entry[1]] = [entry]
            else:
                per.append(entry)
        for dataset, entries in by_dataset.items():
            targets = entries[0][5]
            compact = not expand and all(e[5] is targets or e[5] == targets for e in entries)
            if compact:
                listed = set(targets)
                for dst in mapped - listed:  # a column of the dataset outside the list is mapped to
                    spec = nodes.get(dst)
                    if spec is not None and spec.parent == dataset:
                        compact = False
                        break
            if compact:
                # (source, subtype) mapped column-level into a listed column
                into = {(e[1], e[3]) for e in column_level if e[2] in listed}
                compact = not into or all((e[0], e[2]) not in into for e in entries)
            if compact:
                edges.extend(
                    (MAPS_TO_ALL, src, dataset, subtype, "INDIRECT", expression, None, masking, None)
                    for src, _, subtype, expression, masking, _ in entries
                )
                edges.extend(
                    (WRITES_FIELD, dataset, t, None, None, None, None, False, None) for t in targets if t not in mapped
                )
            else:
                for src, _, subtype, expression, masking, cols in entries:
                    edges.extend((_MAPS_TO, src, t, subtype, "INDIRECT", expression, None, masking, None) for t in cols)
        self._all.clear()
