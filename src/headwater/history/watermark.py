"""Where watermarks live: by default a small table in the store's own database; or a JSON file.

The table, ``hw_history_watermarks`` (one row per source name), belongs to ``headwater.history``
and is created on first use with ``CREATE TABLE IF NOT EXISTS``; it is not part of the store's
graph schema or its migrations. Keeping it in the store's database means the watermark travels with
the lineage it describes (a second machine ingesting into the same PostgreSQL store continues where
the first stopped). ``--state FILE`` keeps watermarks in a JSON file instead.

The watermark is saved only after every event of the run is recorded, so a crash re-reads rows
rather than losing them (re-recording changes nothing: event ids are stable).

>>> import tempfile, os
>>> from headwater.history.record import parse_time
>>> path = os.path.join(tempfile.mkdtemp(), "state.json")
>>> w = FileWatermarks(path)
>>> w.put("src", Watermark(parse_time("2024-05-01 10:00:00"), frozenset({"q9"})))
>>> FileWatermarks(path).get("src").to_dict()
{'timestamp': '2024-05-01T10:00:00.000Z', 'query_ids': ['q9']}
>>> os.remove(path)
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Protocol

import sqlalchemy as sa

from headwater.history.window import Watermark

metadata = sa.MetaData()
watermarks = sa.Table(
    "hw_history_watermarks",
    metadata,
    sa.Column("source", sa.String(512), primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
)


class WatermarkStore(Protocol):
    def get(self, source: str) -> Watermark | None: ...

    def put(self, source: str, mark: Watermark) -> None: ...


class TableWatermarks:
    """Watermarks in ``hw_history_watermarks`` of a SQLAlchemy database (the store's)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        metadata.create_all(engine, checkfirst=True)

    def get(self, source: str) -> Watermark | None:
        with self.engine.connect() as conn:
            state = conn.execute(sa.select(watermarks.c.state).where(watermarks.c.source == source)).scalar()
        return None if state is None else Watermark.from_dict(json.loads(state))

    def put(self, source: str, mark: Watermark) -> None:
        state = json.dumps(mark.to_dict())
        with self.engine.begin() as conn:
            conn.execute(watermarks.delete().where(watermarks.c.source == source))
            conn.execute(watermarks.insert().values(source=source, state=state))


class ResumeMarks:
    """How far an interrupted run got: ``(plan, tasks)``, the digest of the run's plan of work and how
    many of its tasks are recorded, kept under ``resume:<source>`` in ``hw_history_watermarks`` of the
    store's database (with the lineage it speaks of, whatever ``--state`` says). The next run with the
    same plan starts after those tasks; a run that ends removes the mark."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        metadata.create_all(engine, checkfirst=True)

    @staticmethod
    def _key(source: str) -> str:
        return f"resume:{source}"[:512]

    def get(self, source: str) -> tuple[str, int] | None:
        with self.engine.connect() as conn:
            state = conn.execute(sa.select(watermarks.c.state).where(watermarks.c.source == self._key(source))).scalar()
        if state is None:
            return None
        data = json.loads(state)
        return str(data["plan"]), int(data["tasks"])

    def put(self, source: str, plan: str, tasks: int) -> None:
        key = self._key(source)
        with self.engine.begin() as conn:
            conn.execute(watermarks.delete().where(watermarks.c.source == key))
            conn.execute(watermarks.insert().values(source=key, state=json.dumps({"plan": plan, "tasks": tasks})))

    def drop(self, source: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(watermarks.delete().where(watermarks.c.source == self._key(source)))


class FileWatermarks:
    """Watermarks in a JSON file ``{source: {"timestamp": …, "query_ids": […]}}``, replaced atomically."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _all(self) -> dict[str, dict[str, object]]:
        if not self.path.exists():
            return {}
        return json.loads(self.path.read_text(encoding="utf-8") or "{}")

    def get(self, source: str) -> Watermark | None:
        entry = self._all().get(source)
        return None if entry is None else Watermark.from_dict(entry)

    def put(self, source: str, mark: Watermark) -> None:
        data = self._all()
        data[source] = mark.to_dict()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".watermarks-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
        os.replace(tmp, self.path)
