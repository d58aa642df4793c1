"""``ALTER TABLE a RENAME TO b`` in the store: a's nodes become b's, so a's lineage continues as b's.

Extraction (``--statements all``) makes a rename event: an ``AlterTableCommand`` writing ``b``,
reading ``a``, with ``headwater.renamed_from`` in its context (``renamed_table``). The store
records it as an event (a replay changes nothing) and, instead of lineage from a to b, renames:

- b unknown to the store: a's dataset node and its field nodes take b's names, keeping their ids,
  edges and history;
- b known already (a table of that name existed before): a's edges move onto b's nodes (a field
  b lacks moves over whole), and a's remaining nodes are deleted with their memberships.

Names change and nodes may go: the rename bumps the membership epoch, so that every writer's cache
of names and ids is dropped (``write.membership_epoch``).

>>> from headwater.model import TableRef
>>> from headwater.dispatch.sample import tiny_event
>>> renamed_table(tiny_event("q")) is None
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, text

from headwater.model import LineageInfo, SourceCommand, TableRef
from headwater.model.event import RENAMED_FROM
from headwater.store.facts import Facts
from headwater.store.names import dataset_name, short_of
from headwater.store.schema import edges, events, nodes
from headwater.store.types import EdgeType, NodeType
from headwater.store.write import bump_membership_epoch

_CONTAINS = EdgeType.CONTAINS.value


def renamed_table(event: LineageInfo) -> tuple[TableRef, TableRef] | None:
    """``(old, new)`` when ``event`` is a rename, else None."""
    if event.source_command is not SourceCommand.ALTER_TABLE or len(event.sources) != 1:
        return None
    if RENAMED_FROM not in event.context.external_catalog_properties:
        return None
    return event.sources[0], event.target.table


def _node(conn: Connection, type_: str, name: str) -> int | None:
    sql = f"SELECT id FROM {nodes.name} WHERE type = :t AND name = :n"
    return conn.execute(text(sql), {"t": type_, "n": name}).scalar_one_or_none()


def _run(conn: Connection, sql: str, **values: object) -> None:
    conn.execute(text(sql), values)


def already_recorded(conn: Connection, event_id: str) -> bool:
    sql = f"SELECT 1 FROM {events.name} WHERE event_id = :e"
    return conn.execute(text(sql), {"e": event_id}).first() is not None


def rename_dataset(conn: Connection, old: TableRef, new: TableRef) -> bool:
    """Rename ``old``'s nodes to ``new`` inside the caller's transaction; False when the store
    does not know ``old`` (nothing to carry over)."""
    old_name = dataset_name(old.catalog, old.database, old.name)
    new_name = dataset_name(new.catalog, new.database, new.name)
    if old_name == new_name:
        return False
    old_id = _node(conn, NodeType.DATASET.value, old_name)
    if old_id is None:
        return False
    new_id = _node(conn, NodeType.DATASET.value, new_name)
    fields = conn.execute(
        text(f"SELECT id, name FROM {nodes.name} WHERE parent_id = :p AND type = :t"),
        {"p": old_id, "t": NodeType.FIELD.value},
    ).all()
    if new_id is None:  # b is new: a's nodes are b's from now on
        _rename_node(conn, old_id, new_name, old_id)
    for fid, fname in fields:
        name = new_name + fname[len(old_name) :]
        target = _node(conn, NodeType.FIELD.value, name) if new_id is not None else None
        if target is None:  # b is new, or lacks the field: the field moves over whole
            _rename_node(conn, fid, name, new_id or old_id)
            if new_id is not None:
                _run(conn, f"UPDATE {edges.name} SET src_id = :b WHERE dst_id = :f AND src_id = :a AND type = :c",
                     b=new_id, f=fid, a=old_id, c=_CONTAINS)  # fmt: skip
        else:
            _move_edges(conn, fid, target)
    if new_id is not None:  # b exists: a's edges move onto b's nodes
        _move_edges(conn, old_id, new_id)
    bump_membership_epoch(conn)
    return True


def _rename_node(conn: Connection, node: int, name: str, dataset: int) -> None:
    """Node ``node`` named ``name``: a dataset (``dataset`` is itself) or a field of ``dataset``."""
    if node == dataset:
        _run(conn, f"UPDATE {nodes.name} SET name = :n, short = :s WHERE id = :i",
             n=name, s=short_of(name, field=False), i=node)  # fmt: skip
    else:
        _run(conn, f"UPDATE {nodes.name} SET name = :n, short = :s, parent_id = :p WHERE id = :i",
             n=name, s=short_of(name, field=True), p=dataset, i=node)  # fmt: skip


def _move_edges(conn: Connection, old: int, new: int) -> None:
    """Every lineage edge of node ``old`` onto node ``new``; then ``old`` and its membership go
    (the name is ``new``'s now: nothing may find ``old`` by it)."""
    for column in ("src_id", "dst_id"):
        _run(
            conn, f"UPDATE {edges.name} SET {column} = :n WHERE {column} = :o AND type <> :c", n=new, o=old, c=_CONTAINS
        )
    _run(conn, f"DELETE FROM {edges.name} WHERE (src_id = :o OR dst_id = :o) AND type = :c", o=old, c=_CONTAINS)
    _run(conn, f"DELETE FROM {nodes.name} WHERE id = :o", o=old)


@dataclass(frozen=True, slots=True)
class Renaming:
    """A rename to apply, and the facts that record its event (the event row, no lineage)."""

    facts: Facts
    old: TableRef
    new: TableRef


def renaming_of(event: LineageInfo, facts: Facts) -> Renaming | None:
    """The ``Renaming`` of a rename event whose translated ``facts`` are given; None for another event."""
    pair = renamed_table(event)
    if pair is None:
        return None
    bare = Facts(facts.event_id, facts.kind, facts.run_key, facts.event_us, status=facts.status, payload=facts.payload)
    return Renaming(bare, pair[0], pair[1])


def apply_renaming(conn: Connection, item: Renaming) -> bool:
    """Rename unless this event was recorded before (a replay); True when nodes were renamed."""
    if already_recorded(conn, item.facts.event_id):
        return False
    return rename_dataset(conn, item.old, item.new)


def renaming_runs(items: Sequence[Facts | Renaming]) -> Iterator[list[Facts] | Renaming]:
    """``items`` in order: runs of facts between the renamings, and each renaming on its own."""
    run: list[Facts] = []
    for item in items:
        if isinstance(item, Renaming):
            if run:
                yield run
                run = []
            yield item
        else:
            run.append(item)
    if run:
        yield run
