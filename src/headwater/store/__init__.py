"""The lineage store: a typed, time-aware lineage graph on SQLAlchemy Core (SQLite or PostgreSQL).

>>> store = open_store("sqlite://")
>>> from headwater.dispatch.sample import tiny_event
>>> store.record(tiny_event("q1")).recorded, store.record(tiny_event("q1")).duplicates
(1, 1)
>>> [o.field.name for o in store.get_field_origin("t.a").origins]
['internal.db.s.a']
"""

from __future__ import annotations

import atexit
import threading

from sqlalchemy import Engine

from headwater.model.ol_naming import OpenLineageNaming
from headwater.store import table_statistics
from headwater.store.engine import checkpoint, default_url, make_engine, normalise_url
from headwater.store.errors import AmbiguousNode, InvalidInput, NodeNotFound, StoreError
from headwater.store.migrate import ensure_schema
from headwater.store.results import (
    DeleteResult,
    EdgeInfo,
    FieldImpact,
    FieldOrigin,
    FieldPath,
    ImpactAnalysis,
    ImpactGroup,
    LineageGraph,
    LineageStats,
    LineageSummary,
    NodeInfo,
    OriginPath,
    TraceResult,
)
from headwater.store.store import LineageStore
from headwater.store.types import (
    ChangeType,
    DatasetRef,
    Direction,
    EdgeType,
    ExecutionContext,
    FieldMapping,
    FieldRef,
    ImpactSeverity,
    NodeType,
    TransformType,
)
from headwater.store.write import WriteResult

_engines: dict[str, Engine] = {}
_engines_guard = threading.Lock()


def open_store(url: str | None = None, upgrade: bool = True, naming: OpenLineageNaming | None = None) -> LineageStore:
    """The store at ``url`` (None: ``$HEADWATER_STORE`` or ``~/.headwater/lineage.db``).

    Engines are shared per URL within the process, so calling this for every event is cheap;
    ``upgrade`` brings the schema to the current version on first use. ``naming`` maps OpenLineage
    namespaces to catalogs for the RunEvents it records (``command_naming``).
    """
    key = normalise_url(url or default_url())
    with _engines_guard:
        engine = _engines.get(key)
        if engine is None:
            engine = make_engine(key)
            if upgrade:
                ensure_schema(engine)
            if key != "sqlite://":  # each in-memory store is its own
                if not _engines:
                    atexit.register(close_all)  # a command's last connection leaves the store one file
                _engines[key] = engine
    return LineageStore(engine, naming=naming)


def close_all() -> None:
    """Dispose every engine ``open_store`` made (tests, shutdown; registered to run at exit), a SQLite
    file's write-ahead log checkpointed into the file first: the ``.db`` alone is then the store."""
    with _engines_guard:
        for engine in _engines.values():
            table_statistics.wait(engine)  # a look at PostgreSQL's statistics still using the engine
            checkpoint(engine)
            engine.dispose()
        _engines.clear()
        atexit.unregister(close_all)


__all__ = [
    "AmbiguousNode",
    "ChangeType",
    "DatasetRef",
    "DeleteResult",
    "Direction",
    "EdgeInfo",
    "EdgeType",
    "ExecutionContext",
    "FieldImpact",
    "FieldMapping",
    "FieldOrigin",
    "FieldPath",
    "FieldRef",
    "ImpactAnalysis",
    "ImpactGroup",
    "ImpactSeverity",
    "InvalidInput",
    "LineageGraph",
    "LineageStats",
    "LineageStore",
    "LineageSummary",
    "NodeInfo",
    "NodeNotFound",
    "NodeType",
    "OriginPath",
    "StoreError",
    "TraceResult",
    "TransformType",
    "WriteResult",
    "close_all",
    "default_url",
    "open_store",
]
