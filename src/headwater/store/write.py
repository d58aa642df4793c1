"""Store a batch of ``Facts`` in one transaction: idempotent, set-based, time-aware.

1. events already recorded are dropped (``event_id`` is unique: a replay changes nothing), unless
   one comes back to a job that moved on since (``reopen.returning``: a restored statement);
2. node ids come from the store's cache of committed nodes, then from one bulk read by name; the
   missing nodes are inserted (SQLite: with ids assigned here, the write transaction being
   ``BEGIN IMMEDIATE``; PostgreSQL: one binary COPY with ids taken from the sequence, in a savepoint,
   and where a concurrent producer inserted one of them first, ``INSERT … ON CONFLICT DO NOTHING
   RETURNING`` instead, then a read of what that producer inserted: ``_copy_nodes``);
3. a job (scope) that existed before the batch has its open edges loaded once, and the batch's
   recordings are applied in time order in memory: an edge asserted again stays open, a new or
   changed one opens at the event time, and an edge the job no longer asserts (from another run)
   closes. A scope created by this batch has nothing stored, so its edges go straight to the insert;
4. CONTAINS edges (system → dataset → field) open for every membership not already open: a node
   inserted by the batch has none, a node of ``known`` has its open (the caller's promise, kept
   with ``membership_epoch``), the others are read; the memberships of the nodes the
   batch inserted are written by the database from their node rows (``insert_memberships``; on
   PostgreSQL sent in pipeline mode before step 3, so that the server writes them meanwhile);
5. the inserts are written with multi-row ``INSERT … VALUES`` statements (SQLite, ``insert_many``)
   or COPY (PostgreSQL), the closes with one ``executemany``. PostgreSQL's other bulk parameters are
   arrays sent as text literals (``pg_arrays``).

A recording older than its job's latest one only adds history: its edges that are not open are
inserted closed at the latest recording's time, and open ones it confirms start earlier.
"""

from __future__ import annotations

import gc
import json
import sqlite3
import sys
import zlib
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, compress
from operator import itemgetter, ne
from typing import Any

from sqlalchemy import Connection

from headwater.store import table_statistics
from headwater.store.engine import database_key
from headwater.store.errors import InvalidInput
from headwater.store.facts import Facts, NodeKey, NodeSpec
from headwater.store.names import now_us
from headwater.store.pg_arrays import bytea_array, int_array, text_array
from headwater.store.schema import OPEN, edges, events, meta, nodes
from headwater.store.schema import jobs as jobs_table
from headwater.store.types import PROCESS_TYPES, EdgeType

CHUNK = 500

sorted_json = json.JSONEncoder(sort_keys=True).encode
"""``json.dumps(value, sort_keys=True)`` without making an encoder at each call: node properties."""

_E = edges.c


@dataclass(slots=True)
class WriteResult:
    """What a recording changed: events recorded and skipped as replays, edge rows opened and closed."""

    recorded: int = 0
    duplicates: int = 0
    edges_opened: int = 0
    edges_closed: int = 0
    event_ids: list[str] = field(default_factory=list)

    def add(self, other: WriteResult) -> None:
        self.recorded += other.recorded
        self.duplicates += other.duplicates
        self.edges_opened += other.edges_opened
        self.edges_closed += other.edges_closed
        self.event_ids.extend(other.event_ids)


@dataclass(slots=True)
class _Edge:
    """An open edge of a stored scope: stored (``id`` set) or pending insertion (``row`` set)."""

    attrs: tuple[Any, ...]
    run_key: str
    valid_from: int
    id: int | None = None
    row: list[Any] | None = None


@dataclass(slots=True)
class NodeCache:
    """What a writer knows of committed nodes: their ids, and since when each one's membership (its
    CONTAINS edge from its parent) has been open. Nodes are never deleted, so ids stay valid;
    memberships stay open until a deletion closes some, which ``membership_epoch`` tells."""

    ids: dict[NodeKey, int] = field(default_factory=dict)
    since: dict[NodeKey, int] = field(default_factory=dict)
    upto: int = 0
    """Every node with an id up to this one is in ``ids`` (an empty cache holds every node up to 0).
    While the store's largest node id is ``upto``, a node missing here is new: no lookup by name
    (PostgreSQL: a heuristic, see ``ensure_nodes``). Only a writer that started from an empty store
    gets further than 0."""
    base: int | None = None
    """Of a transaction's ``staged`` cache: the ``upto`` of the cache it started from, once one of
    its batches found the store's largest id equal to it (``upto`` is then this one's largest id)."""

    def __len__(self) -> int:
        return len(self.ids)

    def update(self, other: NodeCache) -> None:
        """Add what a committed transaction's ``staged`` cache learnt (or another cache's content)."""
        self.upto = other.upto if other.base is not None and other.base == self.upto else self.upto
        self.ids.update(other.ids)
        since, more = self.since, other.since
        if not since:
            since.update(more)
            return
        for k, t in more.items():
            cur = since.get(k)
            if cur is None or t < cur:
                since[k] = t


EDGE_COLUMNS = (
    "type",
    "src_id",
    "dst_id",
    "subtype",
    "dependency",
    "expression",
    "labels",
    "masking",
    "job_id",
    "event_pk",
    "up_cost",
    "down_cost",
    "valid_from",
    "valid_to",
)
_FROM, _TO = EDGE_COLUMNS.index("valid_from"), EDGE_COLUMNS.index("valid_to")
_CONTAINS = EdgeType.CONTAINS.value


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off during a bulk write. Translating a batch allocates many
    small acyclic objects, and each full collection they trigger walks every object the process
    holds: about 15 % of a batch's time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _pg(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def _cursor(conn: Connection) -> Any:
    """A DBAPI cursor of ``conn`` (inside its transaction): no compilation, no row objects."""
    return conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]


def _in(conn: Connection, sql: str, values: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """Rows of ``sql`` (with one ``IN ({})``) for ``values``, as plain tuples read with ``fetchall``
    on a DBAPI cursor. SQLite: in chunks of ``CHUNK`` markers; PostgreSQL: one array parameter
    (``= ANY(%s::text[])`` or ``int[]``, a literal made by ``pg_arrays``), so that the statement's
    text is the same whatever the number of values (the driver parses a text with thousands of
    markers on every call, and the server plans it again)."""
    cursor = _cursor(conn)
    try:
        if _pg(conn):
            if not values:
                return
            ints = isinstance(values[0], int)
            literal = int_array(values) if ints else text_array(values)
            cursor.execute(sql.replace(" IN ({})", " = ANY(%s::int[])" if ints else " = ANY(%s::text[])"), (literal,))
            yield from cursor.fetchall()
            return
        for part in chunks(values):
            cursor.execute(sql.format(", ".join(["?"] * len(part))), tuple(part))
            yield from cursor.fetchall()
    finally:
        cursor.close()


def _scalar(conn: Connection, sql: str) -> Any:
    """The first column of the first row of ``sql`` (None without rows), on a DBAPI cursor."""
    cursor = _cursor(conn)
    try:
        cursor.execute(sql)
        row = cursor.fetchone()
        return None if row is None else row[0]
    finally:
        cursor.close()


def _executemany(conn: Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    """``executemany`` on the DBAPI cursor of ``conn`` (inside its transaction): rows may be lists.
    One row is one ``execute`` (psycopg's ``executemany`` runs a pipeline: more waits on the server)."""
    cursor = _cursor(conn)
    try:
        if len(rows) == 1:
            cursor.execute(sql, rows[0])
            return
        cursor.executemany(sql, rows)
    finally:
        cursor.close()


MULTI_ROWS = 128
"""Rows per multi-row ``INSERT … VALUES`` statement on SQLite (fewer if the build's limit of
parameters per statement is lower)."""
MULTI_MIN = 2
"""Fewer rows than this go one by one. (A record() writes a few dozen rows a table: with sizes down to
2 its rows past the largest statement go in at most six statements, not up to seven one-row steps;
the texts are at most seven per table, prepared once per connection.)"""
_multi_sql: dict[tuple[str, int], str] = {}
_variables: list[int] = []
"""SQLite's limit of parameters per statement, read from the first connection (a build's limit; the
store never lowers it with ``setlimit``)."""


def _multi_size(conn: Connection, width: int) -> int:
    """How many rows of ``width`` parameters one SQLite statement may hold (at most ``MULTI_ROWS``)."""
    if not _variables:
        _variables.append(conn.connection.dbapi_connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))  # type: ignore[union-attr]
    return max(1, min(MULTI_ROWS, _variables[0] // width))


def insert_many(conn: Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    """Insert ``rows`` with ``sql`` (``INSERT INTO t (…) VALUES (?, …)``, one row), in this order.

    SQLite: multi-row statements of ``MULTI_ROWS`` rows each (one statement text, prepared once by
    the driver's statement cache), the rest in statements of halving sizes down to ``MULTI_MIN``
    rows and a last row alone; binding a row's parameters into
    a statement already running costs less than a statement's step and reset per row (the replay of
    the benchmark's rows: ~15 % faster). PostgreSQL: ``executemany``."""
    if not rows:
        return
    cursor = _cursor(conn)
    try:
        if _pg(conn):
            cursor.executemany(sql, rows)
            return
        if len(rows) == 1:
            cursor.execute(sql, rows[0])
            return
        width = len(rows[0])
        k = _multi_size(conn, width)
        flat = chain.from_iterable
        done = 0
        while len(rows) - done >= MULTI_MIN:
            # ``k`` rows a statement while they last, then the rest in halves: 43 rows are 32 + 8 + 2
            # and 1 more; one statement text per size (a few per table, in the driver's statement cache)
            size = k
            while size > len(rows) - done:
                size //= 2
            if size < MULTI_MIN:
                break
            text = _multi_sql.get((sql, size))
            if text is None:
                head, _, one = sql.partition(" VALUES ")
                text = _multi_sql[(sql, size)] = f"{head} VALUES {', '.join([one] * size)}"
            whole = done + (len(rows) - done) // size * size
            for i in range(done, whole, size):
                cursor.execute(text, list(flat(rows[i : i + size])))
            done = whole
        if done == len(rows) - 1:
            cursor.execute(sql, rows[done])
        elif done < len(rows):
            cursor.executemany(sql, rows[done:])
    finally:
        cursor.close()


_EDGE_TYPES_PG = [
    "text",
    "int4",
    "int4",
    "text",
    "text",
    "text",
    "text",
    "bool",
    "int4",
    "int4",
    "int2",
    "int2",
    "int8",
    "int8",
]
"""The PostgreSQL types of ``EDGE_COLUMNS``, for a binary COPY."""


def insert_edges(conn: Connection, rows: Sequence[Sequence[Any]]) -> None:
    """Bulk insert of edge rows (``EDGE_COLUMNS`` order): binary COPY on PostgreSQL (half the
    client's time of a text COPY per row), ``insert_many`` on SQLite."""
    if not rows:
        return
    if _pg(conn):
        cols = ", ".join(EDGE_COLUMNS)
        cursor = _cursor(conn)
        with cursor.copy(f"COPY {edges.name} ({cols}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(_EDGE_TYPES_PG)
            for r in rows:
                copy.write_row(r)
        return
    # most edges have no labels: their statement leaves the column NULL (pysqlite binds a None, a
    # bool or bytes through its adapter protocol, whose failed look-up of ``__adapt__`` on a type
    # formats an AttributeError: ~1,500 instructions per parameter). Edge ids are not given, so
    # either statement appends to the table.
    labelled, bare = [], []
    for r in rows:
        if r[_LABELS] is None:
            bare.append(_bare(r))
        else:
            labelled.append(r)
    insert_many(conn, EDGE_INSERT, labelled)
    insert_many(conn, _EDGE_INSERT_BARE, bare)


EDGE_INSERT = f"INSERT INTO {edges.name} ({', '.join(EDGE_COLUMNS)}) VALUES ({', '.join('?' * len(EDGE_COLUMNS))})"
"""The SQLite statement of one edge row (``insert_many`` writes many per statement)."""
_LABELS = EDGE_COLUMNS.index("labels")
_BARE_COLUMNS = [c for c in EDGE_COLUMNS if c != "labels"]
_bare = itemgetter(*(i for i, c in enumerate(EDGE_COLUMNS) if c != "labels"))
"""An edge row without its labels, as a tuple (one call in C, no slices)."""
_EDGE_INSERT_BARE = (
    f"INSERT INTO {edges.name} ({', '.join(_BARE_COLUMNS)}) VALUES ({', '.join('?' * len(_BARE_COLUMNS))})"
)


def insert_memberships(conn: Connection, fresh: Collection[int]) -> int:
    """The CONTAINS edges of the nodes ``fresh`` (ids) that this transaction inserted, each from its
    parent, open since the node's creation: written by the database from the node rows (the rows
    ``_contains`` would otherwise build and send: 21 of a new table's 97). SQLite: the ids are one
    range (assigned in ``ensure_nodes``); PostgreSQL: one array parameter. Returns the rows written."""
    cursor = _send_memberships(conn, fresh)
    try:
        return int(cursor.rowcount)
    finally:
        cursor.close()


def _send_memberships(conn: Connection, fresh: Collection[int]) -> Any:
    """``insert_memberships``'s statement, executed on a cursor returned open (in PostgreSQL's
    pipeline mode its count is known once the pipeline is synchronised)."""
    pg = _pg(conn)
    cols = "type, src_id, dst_id, masking, up_cost, down_cost, valid_from, valid_to"
    head = (
        f"INSERT INTO {edges.name} ({cols}) SELECT '{_CONTAINS}', parent_id, id, {'false' if pg else 0}, 1, 1, "
        f"created_us, {OPEN} FROM {nodes.name} WHERE "
    )
    tail = " AND parent_id IS NOT NULL ORDER BY id"
    cursor = _cursor(conn)
    try:
        if pg:
            cursor.execute(f"{head}id = ANY(%s::int[]){tail}", (int_array(sorted(fresh)),))
        else:
            cursor.execute(f"{head}id BETWEEN ? AND ?{tail}", (min(fresh), max(fresh)))
    except BaseException:
        cursor.close()
        raise
    return cursor


MEMBERSHIPS_BY_DATABASE = True
"""The memberships of the nodes a batch inserts written from their node rows (``insert_memberships``);
False: built as edge rows in Python (``_contains``), as the tests compare."""

EPOCH_KEY = "membership_epoch"


def membership_epoch(conn: Connection) -> int:
    """How many deletions (and renames) have closed or changed edges so far. A writer that caches
    the nodes whose membership it saw open, or jobs' open edges, may trust that cache while this
    number is unchanged (on PostgreSQL the
    row stays share-locked until the transaction ends, so no deletion commits in between)."""
    sql = f"SELECT value FROM {meta.name} WHERE key = '{EPOCH_KEY}'"
    return _scalar(conn, sql + (" FOR SHARE" if _pg(conn) else "")) or 0


def bump_membership_epoch(conn: Connection) -> None:
    """Called by every deletion (it may close or erase CONTAINS edges, and closes jobs' edges) and rename."""
    conn.exec_driver_sql(
        f"INSERT INTO {meta.name} (key, value) VALUES ('{EPOCH_KEY}', 1) "
        f"ON CONFLICT (key) DO UPDATE SET value = {meta.name}.value + 1"
    )


_EVENT_ID_MAX = events.c.event_id.type.length
_RUN_KEY_MAX = events.c.run_key.type.length


def check(f: Facts) -> None:
    """Raise ``InvalidInput`` for what a database would refuse or mangle (every backend alike):
    an empty or over-long event id, NUL characters (PostgreSQL text cannot hold them). Node names
    were checked when their specs were made (``facts.checked``)."""
    if not f.event_id or len(f.event_id) > _EVENT_ID_MAX or "\x00" in f.event_id:
        raise InvalidInput("event_id", f"must be 1 to {_EVENT_ID_MAX} characters, without NUL: {f.event_id[:40]!r}")
    if len(f.run_key) > _RUN_KEY_MAX or "\x00" in f.run_key:
        raise InvalidInput("run key", f"must be at most {_RUN_KEY_MAX} characters, without NUL")
    for e in f.edges:
        if (e[5] and "\x00" in e[5]) or (e[6] and "\x00" in e[6]):
            raise InvalidInput("expression", f"a NUL character in the mapping into {e[2][1]!r}")


_SEEN = f"SELECT event_id FROM {events.name} WHERE event_id IN ({{}})"
_TOPS = (
    f"SELECT NULL, (SELECT coalesce(max(id), 0) FROM {nodes.name}), (SELECT coalesce(max(id), 0) FROM {events.name}) "
    "UNION ALL "
)


def _stored(conn: Connection, event_ids: Sequence[str]) -> tuple[set[str], int | None, int | None]:
    """Which of ``event_ids`` are recorded, and the largest node and event ids, in one statement when
    the ids fit in one (``CHUNK``): ``ensure_nodes`` and ``_new_events`` read the latter otherwise, one
    statement (and on PostgreSQL one wait on the server) each."""
    if not event_ids or len(event_ids) > CHUNK:
        return {r[0] for r in _in(conn, _SEEN, event_ids)}, None, None
    cursor = _cursor(conn)
    try:
        if _pg(conn):
            sql = _TOPS + f"SELECT event_id, NULL, NULL FROM {events.name} WHERE event_id = ANY(%s::text[])"
            cursor.execute(sql, (text_array(event_ids),))
        else:
            markers = ", ".join(["?"] * len(event_ids))
            cursor.execute(
                _TOPS + f"SELECT event_id, NULL, NULL FROM {events.name} WHERE event_id IN ({markers})", event_ids
            )
        rows = cursor.fetchall()
    finally:
        cursor.close()
    tops = next(r for r in rows if r[0] is None)
    return {r[0] for r in rows if r[0] is not None}, int(tops[1]), int(tops[2])


def _rank(spec: NodeSpec, specs: dict[NodeKey, NodeSpec]) -> int:
    rank = 0
    while spec.parent is not None and spec.parent in specs:
        spec = specs[spec.parent]
        rank += 1
    return rank


def _node_row(s: NodeSpec, ids: dict[NodeKey, int], born: int) -> tuple[Any, ...]:
    props = sorted_json(s.properties) if s.properties else None
    return (s.type, s.name, s.short, ids.get(s.parent) if s.parent else None, props, born)


_BY_NAME = f"SELECT id, type, name FROM {nodes.name} WHERE name IN ({{}})"


def ensure_nodes(
    conn: Connection,
    specs: dict[NodeKey, NodeSpec],
    born: dict[NodeKey, int],
    known: NodeCache | dict[NodeKey, int] | None = None,
    staged: NodeCache | None = None,
    texts: dict[int, str | None] | None = None,
    top: int | None = None,
) -> tuple[dict[NodeKey, int], set[NodeKey]]:
    """Ids of the given nodes, inserting the missing ones (created at ``born[key]``: the time of the
    earliest event of the batch that mentions it). ``known`` holds ids of nodes known to exist (the
    store's cache of committed nodes); nodes are never deleted, so they stay valid. On SQLite, a
    cache known to hold every stored node (``NodeCache.upto``, with what ``staged`` holds of the
    transaction's earlier batches) spares the lookup by name of the missing ones (on PostgreSQL the
    insert's ``ON CONFLICT DO NOTHING`` and the read after it keep this right under concurrency). ``texts``
    receives the properties (JSON) each inserted node was written with. ``top``: the store's largest
    node id if the caller read it in this transaction (``_stored``), else it is read here.

    Returns the ids and the keys inserted by this call (nodes that cannot have edges yet).
    """
    cache = known if isinstance(known, NodeCache) else NodeCache(known or {})
    have = cache.ids
    ids: dict[NodeKey, int] = {}
    missing: list[NodeKey] = []
    for k in specs:
        nid = have.get(k)
        if nid is None:
            missing.append(k)
        else:
            ids[k] = nid
    if not missing:
        return ids, set()
    pg = _pg(conn)
    # PostgreSQL: a heuristic only (concurrent writers insert beside this one); a node another
    # writer has is not returned by the insert's ON CONFLICT DO NOTHING and is read after it
    start = top if top is not None else _scalar(conn, f"SELECT coalesce(max(id), 0) FROM {nodes.name}")
    if start == cache.upto and (staged is None or staged.base is None):
        if staged is not None:
            staged.base = staged.upto = cache.upto  # every stored node is known: the missing ones are new
        todo = [specs[k] for k in missing]
    elif staged is not None and staged.base is not None and start == staged.upto:
        more = staged.ids  # the cache and this transaction's earlier batches know every node
        todo = []
        for k in missing:
            nid = more.get(k)
            if nid is None:
                todo.append(specs[k])
            else:
                ids[k] = nid
    else:
        if staged is not None:
            staged.base = None  # another writer's nodes: not every node is known any more
        for nid, typ, name in _in(conn, _BY_NAME, sorted({k[1] for k in missing})):
            if (typ, name) in specs:
                ids[(typ, name)] = nid
        todo = [specs[k] for k in missing if k not in ids]
    if not todo:
        return ids, set()
    cols = "type, name, short, parent_id, properties, created_us"
    if not pg:
        # BEGIN IMMEDIATE holds the database: no one else inserts, so ids can be assigned here
        for k, s in enumerate(todo, start + 1):
            ids[s.key] = k
        get = ids.get
        rows = []
        for k, s in enumerate(todo, start + 1):
            props = s.properties
            text = sorted_json(props) if props else None
            parent = s.parent
            rows.append((k, s.type, s.name, s.short, get(parent) if parent else None, text, born[s.key]))
        # (one statement shape: rows without properties apart would go in out of id order, and a
        # table's b-tree costs more to fill in the middle than at its end)
        sql = f"INSERT INTO {nodes.name} (id, {cols}) VALUES (?, ?, ?, ?, ?, ?, ?)"
        insert_many(conn, sql, rows)
        if staged is not None and staged.base is not None:
            staged.upto = start + len(todo)
        if texts is not None:
            texts.update((r[0], r[5]) for r in rows)
        return ids, {s.key for s in todo}
    # generations of parents first, each in the batch's order: the order in which the ON CONFLICT
    # path below inserts them, so that writers meeting on the same nodes take their locks alike
    ranked = sorted(todo, key=lambda s: _rank(s, specs))
    copied = _copy_nodes(conn, ranked, ids, born, texts, staged)
    if copied is not None:
        return ids, copied
    by_rank: dict[int, list[NodeSpec]] = {}
    for s in todo:
        by_rank.setdefault(_rank(s, specs), []).append(s)
    inserted: set[NodeKey] = set()
    sql = (
        f"INSERT INTO {nodes.name} ({cols}) SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], "
        "%s::int[], %s::text[], %s::bigint[]) ON CONFLICT DO NOTHING RETURNING id, type, name"
    )
    cursor = _cursor(conn)
    try:
        for rank in sorted(by_rank):
            group = by_rank[rank]
            # one array per column: one statement text whatever the number of rows (see ``_in``)
            columns = list(zip(*(_node_row(s, ids, born[(s.type, s.name)]) for s in group), strict=True))
            typ, name, short, parent, props, created = columns
            cursor.execute(
                sql,
                (
                    text_array(typ),
                    text_array(name),
                    text_array(short),
                    int_array(parent),
                    text_array(props),
                    int_array(created),
                ),
            )
            for nid, typ, name in cursor.fetchall():
                ids[(typ, name)] = nid
                inserted.add((typ, name))
                if texts is not None:
                    props = specs[(typ, name)].properties
                    texts[nid] = sorted_json(props) if props else None
                if staged is not None and staged.base is not None and nid > staged.upto:
                    staged.upto = nid
            late = sorted({s.name for s in group if (s.type, s.name) not in ids})  # inserted concurrently
            for nid, typ, name in _in(conn, _BY_NAME, late):
                if (typ, name) in specs:
                    ids[(typ, name)] = nid
    finally:
        cursor.close()
    return ids, inserted


_NODE_TYPES_PG = ["int4", "text", "text", "text", "int4", "text", "int8"]
"""The PostgreSQL types of a node row as ``_copy_nodes`` writes it, for a binary COPY."""
_SAVEPOINT = "hw_nodes_copy"
NODE_COPIES = 32
"""Batches of one transaction whose nodes ``_copy_nodes`` copies, each in a savepoint (a
subtransaction); the later ones take the ``ON CONFLICT`` path. Past 64 subtransactions a
transaction's snapshot overflows its cache of them and every other session's visibility checks
look them up in ``pg_subtrans`` until it ends."""
_COPIES = "headwater_node_copies"


_sequences: dict[str, str] = {}


def _node_sequence(conn: Connection) -> str:
    """The name of the sequence of ``hw_nodes.id`` (PostgreSQL), read once per database. (In the
    statement that takes the ids, ``pg_get_serial_sequence`` would be evaluated once per row.)"""
    url = database_key(conn)
    name = _sequences.get(url)
    if name is None:
        name = _sequences[url] = _scalar(conn, f"SELECT pg_get_serial_sequence('{nodes.name}', 'id')")
        if "'" in name:
            raise ValueError(f"unexpected sequence name {name!r}")
    return name


def _copy_nodes(
    conn: Connection,
    todo: Sequence[NodeSpec],
    ids: dict[NodeKey, int],
    born: dict[NodeKey, int],
    texts: dict[int, str | None] | None,
    staged: NodeCache | None,
) -> set[NodeKey] | None:
    """PostgreSQL: insert the nodes ``todo`` with ids taken from the table's sequence (one
    ``nextval`` per node, in one statement), every parent's id known before the insert, in one binary
    COPY: no statement per generation of parents, no conflict check per row, no ids read back.

    COPY cannot skip a node another writer inserted first (committed, or committing while this one
    waits for it): the COPY runs inside a savepoint, and on the unique violation (or a deadlock
    between two such writers) the savepoint is rolled back, nothing of it stays, and None tells the
    caller to insert with ``ON CONFLICT DO NOTHING`` instead. Returns the keys inserted."""
    import psycopg

    tx = conn.get_transaction()
    used = conn.info.get(_COPIES)
    if used is None or used[0] is not tx:
        used = conn.info[_COPIES] = [tx, 0]
    if used[1] >= NODE_COPIES:
        return None
    used[1] += 1
    seq = _node_sequence(conn)
    cursor = _cursor(conn)
    try:
        cursor.execute(f"SAVEPOINT {_SAVEPOINT}; SELECT nextval('{seq}') FROM generate_series(1, {len(todo)})")
        cursor.nextset()
        taken = dict(zip((s.key for s in todo), (r[0] for r in cursor.fetchall()), strict=True))
        get, have = taken.get, ids.get
        rows = []
        for s in todo:
            props = s.properties
            parent = s.parent
            rows.append(
                (
                    taken[s.key],
                    s.type,
                    s.name,
                    s.short,
                    (get(parent) or have(parent)) if parent else None,
                    sorted_json(props) if props else None,
                    born[s.key],
                )
            )
        cols = "id, type, name, short, parent_id, properties, created_us"
        try:
            with cursor.copy(f"COPY {nodes.name} ({cols}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(_NODE_TYPES_PG)
                for r in rows:
                    copy.write_row(r)
        except (psycopg.errors.UniqueViolation, psycopg.errors.DeadlockDetected):
            cursor.execute(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
            return None
    finally:
        cursor.close()
    ids.update(taken)
    if texts is not None:
        texts.update((r[0], r[5]) for r in rows)
    if staged is not None and staged.base is not None:
        staged.upto = max(staged.upto, max(taken.values()))
    return set(taken)


def _squeeze(payload: str | None) -> bytes | None:
    """The stored form of an event payload: zlib level 1 takes the benchmark's 10.8 KB events to
    1.3 KB for ~30 µs each, and months of re-runs are mostly event rows."""
    return None if payload is None else zlib.compress(payload.encode(), 1)


def _new_events(
    conn: Connection, batch: Sequence[Facts], job_ids: dict[str, int | None], now: int, top: int | None = None
) -> dict[str, int]:
    """Insert the batch's event rows; their ids by event id. ``top`` (SQLite): the largest event id,
    if the caller read it in this transaction (``_stored``)."""
    cols = "event_id, kind, job_id, run_key, event_us, recorded_us, status, payload_zlib, fingerprint"
    rows = [
        (
            f.event_id,
            f.kind,
            job_ids[f.event_id],
            f.run_key,
            f.event_us,
            now,
            f.status,
            _squeeze(f.payload),
            f.fingerprint,
        )
        for f in batch
    ]
    if not _pg(conn):
        # the batch's event ids were checked inside this BEGIN IMMEDIATE transaction: all are new
        start = top if top is not None else _scalar(conn, f"SELECT coalesce(max(id), 0) FROM {events.name}")
        pks = {f.event_id: k for k, f in enumerate(batch, start + 1)}
        sql = f"INSERT INTO {events.name} (id, {cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        insert_many(conn, sql, [(pks[r[0]], *r) for r in rows])
        return pks
    sql = (
        f"INSERT INTO {events.name} ({cols}) SELECT * FROM unnest(%s::text[], %s::text[], %s::int[], %s::text[], "
        "%s::bigint[], %s::bigint[], %s::text[], %s::bytea[], %s::text[]) ON CONFLICT DO NOTHING RETURNING id, event_id"
    )
    cursor = _cursor(conn)
    try:
        event_id, kind, job, run_key, event_us, recorded_us, status, payload, fingerprint = zip(*rows, strict=True)
        literals = (
            text_array(event_id),
            text_array(kind),
            int_array(job),
            text_array(run_key),
            int_array(event_us),
            int_array(recorded_us),
            text_array(status),
            bytea_array(payload),
            text_array(fingerprint),
        )
        cursor.execute(sql, literals)
        return {event_id: pk for pk, event_id in cursor.fetchall()}
    finally:
        cursor.close()


_OPEN_EDGES = (
    f"SELECT id, job_id, type, src_id, dst_id, subtype, dependency, expression, labels, masking, valid_from, "
    f"event_pk FROM {edges.name} WHERE valid_to = {OPEN} AND job_id IN ({{}})"
)
_RUN_KEYS = f"SELECT id, run_key FROM {events.name} WHERE id IN ({{}})"


def _load_open(conn: Connection, scopes: Sequence[int]) -> dict[int, dict[tuple[Any, ...], _Edge]]:
    """The open edges of ``scopes`` (jobs), by key, with the run key of the event that opened each."""
    state: dict[int, dict[tuple[Any, ...], _Edge]] = {s: {} for s in scopes}
    rows = list(_in(conn, _OPEN_EDGES, scopes))
    run_keys = dict(_in(conn, _RUN_KEYS, sorted({r[11] for r in rows if r[11] is not None})))
    for eid, job, typ, src, dst, subtype, dep, expr, labels, masking, valid_from, event_pk in rows:
        attrs = (dep, expr, labels, bool(masking))
        state[job][(typ, src, dst, subtype)] = _Edge(attrs, run_keys.get(event_pk) or "", valid_from, id=eid)
    return state


_LATEST = f"SELECT job_id, max(event_us), max(id) FROM {events.name} WHERE job_id IN ({{}}) GROUP BY job_id"
_LOCK = f"SELECT id FROM {nodes.name} WHERE id IN ({{}}) ORDER BY id FOR UPDATE"


def _latest(conn: Connection, jobs: Sequence[int]) -> tuple[dict[int, int], dict[int, int]]:
    """Per job: the time of its latest event, and the id of its newest event row."""
    latest: dict[int, int] = {}
    last: dict[int, int] = {}
    for j, t, pk in _in(conn, _LATEST, jobs):
        if t is not None:
            latest[j] = t
        if pk is not None:
            last[j] = pk
    return latest, last


_SCOPE = itemgetter(8)
"""An edge's scope (``facts.Edge``)."""
_Sig = tuple[list[Any], list[tuple[Any, ...]]]
"""What a job's open edges are exactly (``OpenEdges``, ``_rerun``): the edges (``Facts.edges``) of the
recording that left them so, and the key of the open edge each one is, in the same order."""


@dataclass(slots=True)
class OpenEdges:
    """A writer's cache of jobs' open edges as ``_load_open`` reads them, so that a re-run which
    asserts what its job already holds needs no read of them (SQLite only).

    An entry is kept with the id of the job's newest event row when it was made, and the time of
    its latest event: every write that changes a job's open edges (a recording of it, here or in
    another process) adds an event row of that job with a greater id, and every deletion or rename
    changes the membership epoch, which clears the cache (``LineageStore._write``). So an entry
    whose id is still the job's newest is the job's open edges. Only states with every edge stored
    (ids known) are kept, and their ``_Edge`` objects are never changed in place (``apply``
    replaces one whose start moves).

    ``top``: the store's largest event id when the cache was last made current as a whole. While the
    store's largest event id is still ``top`` (read in the same statement as the batch's event ids,
    ``_stored``), no one else has recorded anything since: every entry is right as it stands, and
    the ids and times of the cached jobs' newest events need no read (``_latest``). A transaction
    that finds another largest id (another writer's events) checks each job it records as before,
    and when it commits the cache keeps only the entries it made."""

    jobs: dict[int, tuple[int, dict[tuple[Any, ...], _Edge], int | None, _Sig | None]] = field(default_factory=dict)
    gone: set[int] = field(default_factory=set)  # staged: jobs whose entries are no longer right
    edges: int = 0  # in all entries
    top: int | None = None
    """Committed: see above. Staged: the store's largest event id after the transaction's writes."""
    start: int | None = None
    """Staged: the store's largest event id its first recording found (-1: not known)."""

    def __len__(self) -> int:
        return self.edges

    def keep(
        self,
        job: int,
        pk: int,
        current: dict[tuple[Any, ...], _Edge],
        latest: int | None = None,
        sig: _Sig | None = None,
    ) -> None:
        self.drop(job)
        self.gone.discard(job)
        self.jobs[job] = (pk, current, latest, sig)
        self.edges += len(current)

    def drop(self, job: int) -> None:
        old = self.jobs.pop(job, None)
        if old is not None:
            self.edges -= len(old[1])
        self.gone.add(job)

    def stage(self, top: int | None) -> None:
        """Staged: a recording of the transaction found ``top`` as the store's largest event id."""
        if self.start is None:
            self.start = -1 if top is None else top
        self.top = top

    def current(self, top: int | None) -> bool:
        """Committed: whether every entry is right without a check, the store's largest event id
        being ``top``."""
        return top is not None and top == self.top

    def update(self, other: OpenEdges) -> None:
        """Add what a committed transaction staged in ``other``."""
        if other.start is not None:
            if other.start != self.top or other.top is None:
                # another writer's events in between: entries this transaction did not make may be stale
                self.jobs.clear()
                self.edges = 0
            self.top = other.top
        for job in other.gone:
            self.drop(job)
        for job, (pk, current, latest, sig) in other.jobs.items():
            self.keep(job, pk, current, latest, sig)
        self.gone.clear()


def _rerun(
    f: Facts, sig: _Sig, current: dict[tuple[Any, ...], _Edge], ids: dict[NodeKey, int], evpk: int, diff: _Diff
) -> bool:
    """A recording (not late) of a job whose open edges are exactly those ``sig`` tells, worked out
    without ``_wanted``: when its edges are those of ``sig`` but for a few whose expression, labels or
    masking changed (a re-run with other literals), only those are compared, closed and opened, as
    the general loop of ``apply`` would. False (nothing done) when the edges differ otherwise."""
    before, keys = sig
    edges = f.edges
    if len(edges) != len(before):
        return False
    changed = list(compress(range(len(edges)), map(ne, edges, before)))
    for i in changed:
        typ, src, dst, subtype, _, _, _, _, scope = edges[i]
        if scope is not None or (typ, ids[src], ids[dst], subtype) != keys[i]:
            return False
    t = f.event_us
    process = PROCESS_TYPES
    for i in changed:
        typ, src, dst, subtype, dep, expr, labels, masking, _ = edges[i]
        key = keys[i]
        cur = current[key]
        if cur.attrs == (dep, expr, labels, 1 if masking else 0):
            continue
        row = [
            typ,
            key[1],
            key[2],
            subtype,
            dep,
            expr,
            labels,
            1 if masking else 0,
            ids[f.job],  # type: ignore[index]
            evpk,
            0 if src[0] in process else 1,
            0 if dst[0] in process else 1,
            t,
            OPEN,
        ]
        diff.close(cur, t)
        current[key] = diff.open(row, f.run_key)
    return True


def _lock_jobs(conn: Connection, jobs: Sequence[int]) -> None:
    """Serialise concurrent recordings of one job (PostgreSQL; SQLite writers are serial)."""
    if _pg(conn) and jobs:
        for _ in _in(conn, _LOCK, sorted(jobs)):
            pass


def _wanted(f: Facts, ids: dict[NodeKey, int], evpk: int) -> dict[int | None, dict[tuple[Any, ...], list[Any]]]:
    """The edge rows a recording asserts, per scope, merged by key (labels united, masking or-ed).

    Rows are in ``EDGE_COLUMNS`` order, open from the event time."""
    out: dict[int | None, dict[tuple[Any, ...], list[Any]]] = {}
    job = ids[f.job] if f.job else None
    t = f.event_us
    process = PROCESS_TYPES
    per: dict[tuple[Any, ...], list[Any]] | None = None
    last: int | None = None
    for typ, src, dst, subtype, dep, expr, labels, masking, scope in f.edges:
        sc = ids[scope] if scope else job
        if per is None or sc != last:
            per = out.get(sc)
            if per is None:
                per = out[sc] = {}
            last = sc
        s, d = ids[src], ids[dst]
        key = (typ, s, d, subtype)
        row = per.get(key)
        if row is None:
            per[key] = [
                typ,
                s,
                d,
                subtype,
                dep,
                expr,
                labels,
                1 if masking else 0,  # not a bool: pysqlite binds an int without its adapter protocol
                sc,
                evpk,
                0 if src[0] in process else 1,
                0 if dst[0] in process else 1,
                t,
                OPEN,
            ]
        elif labels or (masking and not row[7]):
            if labels:
                merged = [x for x in dict.fromkeys([*(row[6] or "").split(","), *labels.split(",")]) if x]
                row[6] = ",".join(merged) or None
            row[7] = 1 if row[7] or masking else 0
    return out


class _Diff:
    """Accumulates the inserts, closes and start-time changes of one batch."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []
        self.closes: list[tuple[int, int]] = []
        self.starts: list[tuple[int, int]] = []

    def close(self, e: _Edge, t: int) -> None:
        if e.id is not None:
            self.closes.append((max(t, e.valid_from), e.id))
        elif e.row is not None:
            if t <= e.valid_from:
                e.row[_TO] = None  # never valid: dropped from the insert
            else:
                e.row[_TO] = t

    def open(self, row: list[Any], run_key: str, until: int = OPEN) -> _Edge:
        row[_TO] = until
        self.rows.append(row)
        return _Edge((row[4], row[5], row[6], row[7]), run_key, row[_FROM], row=row)


def apply(
    conn: Connection,
    batch: Sequence[Facts],
    known: NodeCache | None = None,
    staged: NodeCache | None = None,
    open_known: OpenEdges | None = None,
    open_staged: OpenEdges | None = None,
) -> WriteResult:
    """Record ``batch`` inside the caller's transaction. ``known``: what the caller knows of committed
    nodes (read only); ``staged`` receives what this batch learnt, for the caller to add to ``known``
    once the transaction commits (nodes inserted by a transaction that rolls back must be forgotten).
    ``open_known`` / ``open_staged``: the same for jobs' open edges (``OpenEdges``; SQLite only)."""
    from headwater.store.node_properties import update_properties  # they import this module
    from headwater.store.reopen import returning

    result = WriteResult()
    now = now_us()
    if _pg(conn):
        table_statistics.look_when_due(conn)
    for f in batch:
        check(f)
    unique: dict[str, Facts] = {}
    for f in batch:
        if f.event_id in unique:
            result.duplicates += 1
        else:
            unique[f.event_id] = f
    seen, node_top, event_top = _stored(conn, list(unique))
    todo = [f for f in unique.values() if f.event_id not in seen]
    todo += returning(conn, [f for f in unique.values() if f.event_id in seen]) if seen else []
    result.duplicates += len(unique) - len(todo)
    if not todo:
        return result
    propped: dict[int, list[tuple[NodeKey, NodeSpec]]] = {}
    specs, born = _mentions(todo, propped)
    known = known or NodeCache()
    texts: dict[int, str | None] = {}
    ids, fresh_keys = ensure_nodes(conn, specs, born, known, staged, texts, node_top)
    fresh = {ids[k] for k in fresh_keys}
    jobs = sorted({ids[f.job] for f in todo if f.job})
    stored_jobs = [j for j in jobs if j not in fresh]
    pg = _pg(conn)
    cached = open_known.jobs if open_known is not None and not pg else {}
    # no one else recorded anything since the cache was current (SQLite): its jobs' newest event rows
    # and times are those it holds
    whole = (
        open_staged is not None
        and open_staged.start is None
        and open_known is not None
        and open_known.current(event_top)
    )
    if open_staged is not None and not pg:
        open_staged.stage(event_top)
    _lock_jobs(conn, stored_jobs)
    if whole:
        hits = [j for j in stored_jobs if j in cached and cached[j][2] is not None]
        latest, last_pk = _latest(conn, [j for j in stored_jobs if j not in cached or cached[j][2] is None])
        for j in hits:
            pk, _, t, _ = cached[j]
            last_pk[j] = pk
            latest[j] = t  # type: ignore[assignment]
    else:
        latest, last_pk = _latest(conn, stored_jobs)
    pks = _new_events(conn, todo, {f.event_id: ids[f.job] if f.job else None for f in todo}, now, event_top)
    if open_staged is not None and not pg and pks:
        open_staged.top = max(open_staged.top or 0, max(pks.values()))
    result.duplicates += len(todo) - len(pks)  # recorded concurrently by another writer
    if len(pks) < len(todo):
        specs, born = _mentions([f for f in todo if f.event_id in pks])
    todo = sorted((f for f in todo if f.event_id in pks), key=lambda f: f.event_us)
    result.recorded = len(todo)
    result.event_ids = [f.event_id for f in todo]
    pipeline, members = None, None
    by_database = bool(fresh) and MEMBERSHIPS_BY_DATABASE
    if pg and (by_database or any(f.job for f in todo)):
        # PostgreSQL: the jobs' rows and the memberships of the new nodes are sent now, in pipeline
        # mode, and the server writes them while this process works out the batch's edges (until a
        # read, or the COPY below, waits for them): no wait of their own
        pipeline = conn.connection.dbapi_connection.pipeline()  # type: ignore[union-attr]
        pipeline.__enter__()
    else:
        _seen_jobs(conn, todo, ids)
    try:
        if pipeline is not None:
            _seen_jobs(conn, todo, ids)
            if by_database:
                members = _send_memberships(conn, fresh)
        update_properties(conn, todo, ids, latest, texts, propped)
        uses: dict[int | None, int] = {}  # recordings with edges of each scope
        for f in todo:
            if not f.edges:
                continue
            job = ids[f.job] if f.job else None
            if any(map(_SCOPE, f.edges)):  # (in C: most recordings scope no edge)
                for s in {ids[sc] if sc else job for sc in set(map(_SCOPE, f.edges))}:
                    uses[s] = uses.get(s, 0) + 1
            else:
                uses[job] = uses.get(job, 0) + 1
        state: dict[int, dict[tuple[Any, ...], _Edge]] = {}
        sigs: dict[int, tuple[list[Any], list[tuple[Any, ...]]]] = {}
        misses = []
        for s in sorted(s for s in uses if s is not None and s not in fresh):
            entry = cached.get(s)
            if entry is not None and entry[0] == last_pk.get(s):
                state[s] = dict(entry[1])  # a copy: the loop below changes the dict, never its edges
                if entry[3] is not None:
                    sigs[s] = entry[3]
            else:
                misses.append(s)
        state.update(_load_open(conn, misses))
        diff = _Diff()
        rows = diff.rows
        for f in todo:
            t = f.event_us
            job = ids[f.job] if f.job else None
            late_until = latest.get(job) if job is not None else None
            late = late_until is not None and t < late_until
            if job is not None and not late:
                sig = sigs.get(job)
                if sig is not None and _rerun(f, sig, state[job], ids, pks[f.event_id], diff):
                    sigs[job] = (f.edges, sig[1])
                    latest[job] = t
                    continue
            per_scope = _wanted(f, ids, pks[f.event_id])
            for scope, want in per_scope.items():
                sigs.pop(scope, None)  # type: ignore[arg-type]
                if scope is None or (not late and scope in fresh and scope not in state and uses[scope] == 1):
                    rows.extend(want.values())  # nothing stored or pending for this scope: all new
                    continue
                current = state.setdefault(scope, {})
                for key, row in want.items():
                    cur = current.get(key)
                    if cur is not None and cur.attrs == (row[4], row[5], row[6], row[7]):
                        if late and cur.valid_from > t:
                            if cur.id is not None:
                                diff.starts.append((t, cur.id))
                                current[key] = _Edge(cur.attrs, cur.run_key, t, id=cur.id)  # cached ones stay
                            else:
                                if cur.row is not None:
                                    cur.row[_FROM] = t
                                cur.valid_from = t
                        continue
                    if late:
                        if cur is None:
                            assert late_until is not None
                            diff.open(row, f.run_key, late_until)
                        continue
                    if cur is not None:
                        diff.close(cur, t)
                    current[key] = diff.open(row, f.run_key)
                if not late:
                    for key in [k for k, e in current.items() if k not in want and e.run_key != f.run_key]:
                        diff.close(current.pop(key), t)
            if job is not None and not late:
                latest[job] = t
                # what the job holds now is exactly what this recording asserted, one edge each: a
                # re-run's edges can be compared with its edges (``_rerun``)
                mine = per_scope.get(job)
                if mine is not None and len(per_scope) == 1 and len(mine) == len(f.edges) == len(state.get(job, ())):
                    sigs[job] = (f.edges, list(mine))
        inserts = [r for r in rows if r[_TO] is not None]
        contains, since, implied = _contains(
            conn, specs, born, ids, fresh, known.since, by_database=MEMBERSHIPS_BY_DATABASE
        )
    except BaseException:
        if pipeline is not None:
            pipeline.__exit__(*sys.exc_info())
        if members is not None:
            members.close()
        raise
    if pipeline is not None:
        pipeline.__exit__(None, None, None)
    if members is not None:
        implied = int(members.rowcount)
        members.close()
    inserts += contains
    insert_edges(conn, inserts)
    if any(f.aliases for f in todo):  # a dataset's other names (after the pipeline: it reads)
        from headwater.store import aliases  # it imports this module

        aliases.write(conn, todo, ids)
    if implied and members is None:
        implied = insert_memberships(conn, fresh)
    if diff.closes:
        _executemany(conn, _update_sql(conn, "valid_to"), diff.closes)
    if diff.starts:
        _executemany(conn, _update_sql(conn, "valid_from"), diff.starts)
    if staged is not None:
        if staged.ids or staged.since:
            staged.update(NodeCache(ids, since))
        else:  # the transaction's first batch: its own dicts, not used after it (no copy)
            staged.ids, staged.since = ids, since
    if open_staged is not None and not pg:
        _keep_open(conn, open_staged, state, todo, ids, pks, latest, sigs)
    if pg:
        table_statistics.wrote(conn, len(inserts) + len(fresh) + len(todo))
    result.edges_opened = len(inserts) + implied
    result.edges_closed = len(diff.closes)
    return result


_OPENED = (
    f"SELECT id, job_id, type, src_id, dst_id, subtype FROM {edges.name} "
    f"WHERE event_pk IN ({{}}) AND valid_to = {OPEN} AND job_id IS NOT NULL"
)


def _keep_open(
    conn: Connection,
    cache: OpenEdges,
    state: dict[int, dict[tuple[Any, ...], _Edge]],
    todo: Sequence[Facts],
    ids: dict[NodeKey, int],
    pks: dict[str, int],
    latest: dict[int, int] | None = None,
    sigs: dict[int, tuple[list[Any], list[tuple[Any, ...]]]] | None = None,
) -> None:
    """Stage the open edges of the batch's jobs that it read or kept in ``state``, with the id of
    the job's newest event row (this batch's), the time of its latest event (``latest``) and what
    its edges are exactly, if known (``sigs``, ``_rerun``); the ids of the edges this batch opened
    are read back (one look-up by event of the few a re-run changes). The jobs recorded for the
    first time only once are not kept (nothing was read of them, and their edges are all new)."""
    of_job: dict[int, list[int]] = {}
    for f in todo:
        if f.job:
            j = ids[f.job]
            found = of_job.get(j)
            if found is None:
                of_job[j] = [pks[f.event_id]]
            else:
                found.append(pks[f.event_id])
    kept: dict[int, dict[tuple[Any, ...], _Edge]] = {}
    pending: list[int] = []  # event pks of this batch's jobs that opened edges
    for job, job_pks in of_job.items():
        current = state.get(job)
        if current is None:
            cache.drop(job)
            continue
        kept[job] = current
        for e in current.values():
            if e.id is None:
                pending.extend(job_pks)
                break
    opened: dict[tuple[int, tuple[Any, ...]], int] = {}
    if pending:
        for eid, job, typ, src, dst, subtype in _in(conn, _OPENED, sorted(pending)):
            opened[(job, (typ, src, dst, subtype))] = eid
    for job, current in kept.items():
        for key, e in current.items():
            if e.id is None:
                eid = opened.get((job, key))
                if eid is None:  # not expected: keep nothing rather than guess
                    cache.drop(job)
                    break
                current[key] = _Edge(e.attrs, e.run_key, e.valid_from, id=eid)
        else:
            t = latest.get(job) if latest is not None else None
            cache.keep(job, max(of_job[job]), current, t, sigs.get(job) if sigs is not None else None)


def _seen_jobs(conn: Connection, todo: Sequence[Facts], ids: dict[NodeKey, int]) -> None:
    """Keep ``hw_jobs`` (first and last seen, runs, file and line of the latest statement) for the
    jobs of the recorded events (``todo``, in time order); a job seen again is no longer closed."""
    seen: dict[int, list[Any]] = {}
    for f in todo:
        if not f.job:
            continue
        job = ids[f.job]
        row = seen.get(job)
        if row is None:
            seen[job] = [job, f.event_us, f.event_us, 1, f.file, f.line]
        else:
            row[2], row[3] = f.event_us, row[3] + 1
            if f.file is not None:
                row[4], row[5] = f.file, f.line
    if not seen:
        return
    pg = _pg(conn)
    least, greatest, mark = ("least", "greatest", "%s") if pg else ("min", "max", "?")
    t = jobs_table.name
    newer = f"excluded.last_seen_us >= {t}.last_seen_us"
    sql = (
        f"INSERT INTO {t} (job_id, first_seen_us, last_seen_us, runs, file, line) VALUES "
        f"({', '.join([mark] * 6)}) ON CONFLICT (job_id) DO UPDATE SET "
        f"first_seen_us = {least}({t}.first_seen_us, excluded.first_seen_us), "
        f"last_seen_us = {greatest}({t}.last_seen_us, excluded.last_seen_us), "
        f"runs = {t}.runs + excluded.runs, "
        f"file = CASE WHEN excluded.file IS NOT NULL AND ({newer} OR {t}.file IS NULL) THEN excluded.file "
        f"ELSE {t}.file END, "
        f"line = CASE WHEN excluded.file IS NOT NULL AND ({newer} OR {t}.file IS NULL) THEN excluded.line "
        f"ELSE {t}.line END, "
        f"closed_us = CASE WHEN {newer} THEN NULL ELSE {t}.closed_us END"
    )
    _executemany(conn, sql, [seen[j] for j in sorted(seen)])


def _update_sql(conn: Connection, column: str) -> str:
    mark = "%s" if _pg(conn) else "?"
    return f"UPDATE {edges.name} SET {column} = {mark} WHERE id = {mark}"


_OPEN_CONTAINS = (
    f"SELECT id, src_id, dst_id, valid_from FROM {edges.name} WHERE type = '{_CONTAINS}' AND valid_to = {OPEN} "
    "AND dst_id IN ({})"
)


def _mentions(
    todo: Sequence[Facts], propped: dict[int, list[tuple[NodeKey, NodeSpec]]] | None = None
) -> tuple[dict[NodeKey, NodeSpec], dict[NodeKey, int]]:
    """The nodes the recordings mention, each once, and the time of the earliest one mentioning it;
    ``propped`` receives, by ``id()`` of each recording, the nodes it gives properties."""
    specs: dict[NodeKey, NodeSpec] = {}
    born: dict[NodeKey, int] = {}
    for f in todo:
        t = f.event_us
        mine: list[tuple[NodeKey, NodeSpec]] | None = None
        for k, s in f.nodes.items():
            first = born.get(k)
            if first is None:
                specs[k] = s
                born[k] = t
            elif t < first:
                born[k] = t
            if s.properties:
                if mine is None:
                    mine = []
                mine.append((k, s))
        if propped is not None and mine is not None:
            propped[id(f)] = mine
    return specs, born


def _contains(
    conn: Connection,
    specs: dict[NodeKey, NodeSpec],
    born: dict[NodeKey, int],
    ids: dict[NodeKey, int],
    fresh: set[int],
    since: dict[NodeKey, int],
    by_database: bool = False,
) -> tuple[list[list[Any]], dict[NodeKey, int], int]:
    """CONTAINS rows for the memberships of the batch that are not open yet, and the start of each
    membership the batch touched (``specs``/``born``: the nodes it mentions and the time of the
    earliest recording mentioning each, ``_mentions``). A node inserted by this batch has none; a
    node whose membership is known (``since``) to be open from no later than the batch's time needs
    nothing; the others are read, and an open membership that starts after an event of the batch (a
    late event) starts earlier, as edges a late event confirms do. ``by_database``: no rows
    for the nodes inserted by this batch (``fresh``), whose memberships ``insert_memberships`` writes
    from their node rows; their number is returned third."""
    first: dict[NodeKey, tuple[int, int, int]] = {}  # child -> (parent id, child id, earliest time)
    for k, s in specs.items():
        parent = s.parent
        if parent is None:
            continue
        t = born[k]
        known_from = since.get(k)
        if known_from is None or t < known_from:
            first[k] = (ids[parent], ids[k], t)
    if not first:
        return [], {}, 0
    stored = sorted({c for _, c, _ in first.values() if c not in fresh})
    open_pairs = {(p, c): (eid, t0) for eid, p, c, t0 in _in(conn, _OPEN_CONTAINS, stored)} if stored else {}
    rows: list[list[Any]] = []
    starts: list[tuple[int, int]] = []
    edge_child: dict[int, int] = {}
    out: dict[NodeKey, int] = {}
    implied = 0
    for k, (p, c, t) in first.items():
        if by_database and c in fresh:
            implied += 1
            out[k] = t
            continue
        cur = open_pairs.get((p, c))
        if cur is None:
            rows.append([_CONTAINS, p, c, None, None, None, None, 0, None, None, 1, 1, t, OPEN])
            out[k] = t
        elif t < cur[1]:
            starts.append((t, cur[0]))
            edge_child[cur[0]] = c
            out[k] = t
        else:
            out[k] = cur[1]
    if starts:
        _executemany(conn, _update_sql(conn, "valid_from"), starts)
        mark = "%s" if _pg(conn) else "?"
        sql = f"UPDATE {nodes.name} SET created_us = {mark} WHERE id = {mark} AND created_us > {mark}"
        _executemany(conn, sql, [(t, edge_child[eid], t) for t, eid in starts])
    return rows, out, implied
