"""Struct sub-fields in the store: the field ``asset.id`` of column ``asset`` keeps its parent.

An event's source ``widgets.asset.id`` (``extract.columns.struct_field``) is a field node of its
own, and the column ``asset`` is one too, with a MAPS_TO edge (TRANSFORMATION, label ``FIELD``)
from the column to its field, owned by the recording's job: the origin of what reads ``asset.id``
reaches ``asset``, and a change of ``asset`` reaches what reads any of its fields.

>>> from headwater.store.facts import Facts, FactsBuilder
>>> b = FactsBuilder(Facts("e", "headwater", "e", 0))
>>> ds = b.dataset("internal", "db", "widgets")
>>> parent_edges(b, ds, "asset.id")
>>> [(e[1][1], e[2][1], e[6]) for e in b.facts.edges]
[('internal.db.widgets.asset', 'internal.db.widgets.asset.id', 'FIELD')]
"""

from __future__ import annotations

from headwater.store.facts import FactsBuilder, NodeKey
from headwater.store.types import EdgeType


def parent_edges(b: FactsBuilder, dataset: NodeKey, column: str) -> None:
    """The parent fields of ``column`` (``a.b.c``: ``a`` and ``a.b``) and an edge from each to its child."""
    parts = column.split(".")
    if len(parts) < 2 or not all(p.strip() for p in parts):
        return
    child = b.field(dataset, column)
    for k in range(len(parts) - 1, 0, -1):
        parent = b.field(dataset, ".".join(parts[:k]))
        b.edge(EdgeType.MAPS_TO.value, parent, child, "TRANSFORMATION", "DIRECT", column, ("FIELD",))
        child = parent
