"""Node properties follow the recordings: a job's are those of its latest statement, a dataset's
gather what every recording said of it.

A node is inserted with the properties of the first recording that names it. A later recording
changes them: a job node's ``sql`` and ``source_command`` become those of the job's newest event (a
new version; an older event recorded late changes nothing, and ``job_history`` keeps every
version's SQL), and a dataset's properties gain what the recording says (a dataset first seen as a
table that a ``CREATE VIEW`` then defines becomes a ``VIEW``; a DDL's columns are replaced by the
newer DDL's).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from headwater.store.facts import Facts, NodeKey
from headwater.store.schema import nodes
from headwater.store.types import PROCESS_TYPES
from headwater.store.write import chunks


def update_properties(conn: Connection, todo: Sequence[Facts], ids: dict[NodeKey, int], latest: dict[int, int]) -> None:
    """Write the properties the recordings ``todo`` (in time order) give their nodes, where they differ
    from the stored ones. ``latest``: each stored job's newest event time before this batch."""
    wanted: dict[int, tuple[bool, dict[str, Any]]] = {}  # node id -> (replace?, properties)
    for f in todo:
        for key, spec in f.nodes.items():
            if not spec.properties:
                continue
            nid = ids[key]
            if key[0] in PROCESS_TYPES:
                if key != f.job or f.event_us < latest.get(nid, f.event_us):
                    continue  # another job's mention, or an older version recorded late
                wanted[nid] = (True, spec.properties)
            else:
                wanted[nid] = (False, {**wanted.get(nid, (False, {}))[1], **spec.properties})
    if not wanted:
        return
    stored: dict[int, str | None] = {}
    for part in chunks(sorted(wanted)):
        q = select(nodes.c.id, nodes.c.properties).where(nodes.c.id.in_(part))
        stored.update({nid: props for nid, props in conn.execute(q)})
    changes = []
    for nid, (whole, props) in wanted.items():
        before = stored.get(nid)
        merged = props if whole else {**(json.loads(before) if before else {}), **props}
        text = json.dumps(merged, sort_keys=True)
        if text != before:
            changes.append({"i": nid, "p": text})
    if changes:
        conn.execute(update(nodes).where(nodes.c.id == bindparam("i")).values(properties=bindparam("p")), changes)
