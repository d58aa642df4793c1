"""How far an origin or impact question follows mappings, and the label of each answer.

Three levels (``docs/store.md``):

- ``direct``: value flows only (DIRECT mappings: IDENTITY, TRANSFORMATION, AGGREGATION);
- ``field`` (the default): direct plus the field's own CONDITIONAL and WINDOW inputs, what a
  column is "computed from" (``CASE WHEN flag = 'Y' …`` depends on ``flag``);
- ``all``: field plus the dataset-level JOIN / FILTER / GROUP_BY / SORT inputs of the statement.

Whatever the level, an answer is labelled by its *strongest* dependency along any path the walk
saw: DIRECT when some path of DIRECT mappings links it to the queried field, else INDIRECT.

>>> parse_level(None), parse_level("ALL"), parse_level(None, include_indirect=True)
(<Level.FIELD: 'field'>, <Level.ALL: 'all'>, <Level.ALL: 'all'>)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from enum import StrEnum
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement, or_

from headwater.store.errors import InvalidInput
from headwater.store.indirect import order
from headwater.store.schema import edges

FIELD_INDIRECT_SUBTYPES = ("CONDITIONAL", "WINDOW")
"""INDIRECT subtypes that belong to one output column (followed from level ``field``)."""


class Level(StrEnum):
    DIRECT = "direct"
    FIELD = "field"
    ALL = "all"


DEFAULT_LEVEL = Level.FIELD


def parse_level(level: Level | str | None, include_indirect: bool | None = None) -> Level:
    """The level asked for; ``include_indirect`` is the former flag (True = ``all``, False =
    ``direct``), used only when no level is given. An unknown level is ``InvalidInput``."""
    if level is None or level == "":
        if include_indirect is None:
            return DEFAULT_LEVEL
        return Level.ALL if include_indirect else Level.DIRECT
    try:
        return Level(str(level).strip().lower())
    except ValueError:
        raise InvalidInput("level", f"{level!r} is not one of direct, field, all") from None


@cache
def edge_filter(level: Level) -> ColumnElement[bool] | None:
    """The condition on stored MAPS_TO edges a walk at ``level`` follows (None: every edge); one
    object per level, so that a walk's statements are built once per level (``traverse``)."""
    if level == Level.DIRECT:
        return edges.c.dependency == "DIRECT"
    if level == Level.FIELD:
        return or_(edges.c.dependency == "DIRECT", edges.c.subtype.in_(FIELD_INDIRECT_SUBTYPES))
    return None


def follows_dataset_level(level: Level) -> bool:
    """Whether a walk at ``level`` follows dataset-level mappings (stored once per source field)."""
    return level == Level.ALL


def is_direct(row: Any) -> bool:
    return row.dependency == "DIRECT"


def strongest_reach(
    rows: Any, roots: list[int], upstream: bool, accept: Callable[[Any], bool] = is_direct
) -> dict[int, int]:
    """Nodes reachable from ``roots`` over the edge rows that pass ``accept`` (default: DIRECT),
    breadth first, upstream (``dst`` → ``src``) or downstream, mapped to the edge id that reached
    them; the roots are left out."""
    out_edges: dict[int, list[Any]] = {}
    for row in rows:
        if accept(row):
            out_edges.setdefault(row.dst_id if upstream else row.src_id, []).append(row)
    parent: dict[int, int | None] = {r: None for r in roots}
    queue = deque(roots)
    while queue:
        n = queue.popleft()
        for row in sorted(out_edges.get(n, ()), key=order):
            far = row.src_id if upstream else row.dst_id
            if far not in parent:
                parent[far] = row.id
                queue.append(far)
    return {n: e for n, e in parent.items() if e is not None}


def path_to(reach: dict[int, int], edges_by_id: dict[int, Any], node: int, upstream: bool) -> list[Any]:
    """The edge rows from ``node`` back to a root along ``reach`` (``strongest_reach``'s answer)."""
    rows = []
    while node in reach:
        row = edges_by_id[reach[node]]
        rows.append(row)
        node = row.dst_id if upstream else row.src_id
    return rows
