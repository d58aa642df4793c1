"""PostgreSQL: the graph tables' planner statistics kept current while a process writes, off the
writer's path.

During a bulk load the tables grow faster than autovacuum analyzes them, and a planner that believes
them tiny answers each key lookup of the write path with a whole-table scan. So the write path counts
the rows it writes into each database (``wrote``) and, at the start of a write transaction once
``CHECK_ROWS`` rows have gone in since the last look (and at a process's first write), starts a look
(``look_when_due``): the tables' statistics are read, and each table that changed enough since its
last analysis (``grown``) is analyzed.

The look runs on a thread of its own, with a connection of its own in autocommit. The writer does not
wait for it: inside the writer's transaction the ANALYZEs took 6 to 19 % of a bulk load's wall time
(docs/performance.md), and ANALYZE's lock (SHARE UPDATE EXCLUSIVE) neither waits for nor blocks the
writers' inserts. At most one look runs per database at a time; ``wait`` joins it (``LineageStore.close``
does). A look that fails (the schema dropped meanwhile, the server gone) is logged and changes nothing
else: statistics only guide plans, and autovacuum analyzes the tables in time anyway.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Connection, Engine

from headwater.store.engine import READ, database_key
from headwater.store.schema import edges, events, nodes

CHECK_ROWS = 2000
"""Rows a process writes into one database between two looks at its tables' statistics (a look is a
round trip and a scan of the statistics views)."""

TABLES = (nodes.name, edges.name, events.name)
"""The tables a look may analyze: those the write path reads by key while it grows them."""

log = logging.getLogger("headwater.store")

_STATISTICS = (
    "SELECT s.relname, s.n_mod_since_analyze, greatest(c.reltuples, 0) FROM pg_stat_user_tables s "
    "JOIN pg_class c ON c.oid = s.relid WHERE s.relid IN (to_regclass(%s), to_regclass(%s), to_regclass(%s))"
)
_written: dict[str, int] = {}
_looks: dict[str, threading.Thread] = {}
_guard = threading.Lock()


def grown(modified: int, tuples: float) -> bool:
    """Whether a table changed enough since its last analysis to be analyzed again: by more than
    half its rows, and by more than 1,000 rows.

    >>> grown(1_500, 0), grown(900, 0), grown(40_000, 100_000), grown(60_000, 100_000)
    (True, False, False, True)
    """
    return modified > max(1000, tuples / 2)


def wrote(conn: Connection, rows: int) -> None:
    """Count ``rows`` this process wrote into ``conn``'s database."""
    key = database_key(conn)
    _written[key] = _written.get(key, 0) + rows


def look_when_due(conn: Connection) -> None:
    """Start a look at the statistics of ``conn``'s database on a thread of its own, when one is due
    and none is running; never waits."""
    key = database_key(conn)
    if _written.get(key, CHECK_ROWS) < CHECK_ROWS:
        return
    with _guard:
        running = _looks.get(key)
        if running is not None and running.is_alive():
            return  # the count stays: a later write transaction starts the next look
        _written[key] = 0
        thread = _looks[key] = threading.Thread(target=_look, args=(conn.engine,), name="headwater-statistics")
        thread.daemon = True  # an exit does not wait for an ANALYZE (the server ends it with the connection)
        thread.start()


def analyze_grown(engine: Engine) -> list[str]:
    """Analyze the graph tables of ``engine``'s database that ``grown`` says changed enough, in
    autocommit (``READ``: a connection of the engine that runs no transaction); returns their names."""
    with engine.connect().execution_options(**READ) as conn:
        rows = conn.exec_driver_sql(_STATISTICS, TABLES)
        names = [name for name, modified, tuples in rows if grown(modified, tuples)]
        for name in names:
            conn.exec_driver_sql(f"ANALYZE {name}")
    return names


def _look(engine: Engine) -> None:
    try:
        analyze_grown(engine)
    except Exception as e:  # statistics only guide plans: a failed look changes nothing else
        log.warning("the store's table statistics were not refreshed (%s); autovacuum will refresh them", e)


def wait(engine: Engine) -> None:
    """Wait for the look at ``engine``'s database that is running, if one is."""
    with _guard:
        running = _looks.get(database_key(engine))
    if running is not None:
        running.join()
