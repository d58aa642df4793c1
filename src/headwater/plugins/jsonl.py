"""``jsonl``: append each event as one JSON object a line, with an fsync policy and rotation by size.

Settings:

- ``path`` (required): the file; its directory is created;
- ``fsync_every`` (0): fsync after every N events; 0 flushes to the OS only (fsync at rotation and close);
- ``max_bytes`` (0): rotate before a line would make the file larger than this; 0 never rotates;
- ``backup_count`` (5): rotated files kept as ``path.1`` (newest) … ``path.N``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from headwater.dispatch.spi import LineagePlugin, LineagePluginFactory, PluginContext
from headwater.model import LineageInfo, event_to_json
from headwater.plugins import _settings as s

NAME = "jsonl"


class JsonlPlugin(LineagePlugin):
    def __init__(self) -> None:
        self.path = Path()
        self._fh: IO[bytes] | None = None
        self._size = 0
        self._fsync_every = 0
        self._unsynced = 0
        self._max_bytes = 0
        self._backups = 5
        self.fsyncs = 0

    def name(self) -> str:
        return NAME

    def initialize(self, context: PluginContext) -> None:
        self.path = Path(s.string(context, "path")).expanduser()
        self._fsync_every = s.integer(context, "fsync_every", 0)
        self._max_bytes = s.integer(context, "max_bytes", 0)
        self._backups = s.integer(context, "backup_count", 5)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._open()

    def _open(self) -> None:
        self._fh = self.path.open("ab")
        self._size = self._fh.tell()

    def _sync(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self.fsyncs += 1
            self._unsynced = 0

    def _rotate(self) -> None:
        assert self._fh is not None
        self._sync()
        self._fh.close()
        if self._backups == 0:
            self.path.unlink()
        else:
            for n in range(self._backups - 1, 0, -1):
                older = self.path.with_name(f"{self.path.name}.{n}")
                if older.exists():
                    older.replace(self.path.with_name(f"{self.path.name}.{n + 1}"))
            self.path.replace(self.path.with_name(f"{self.path.name}.1"))
        self._open()

    def event_filter(self) -> bool:
        return self._fh is not None

    def exec(self, event: LineageInfo) -> None:
        if self._fh is None:
            raise RuntimeError("jsonl plugin is closed")
        line = (event_to_json(event) + "\n").encode("utf-8")
        if self._max_bytes and self._size and self._size + len(line) > self._max_bytes:
            self._rotate()
        assert self._fh is not None
        self._fh.write(line)
        self._fh.flush()
        self._size += len(line)
        self._unsynced += 1
        if self._fsync_every and self._unsynced >= self._fsync_every:
            self._sync()

    def close(self) -> None:
        if self._fh is not None:
            self._sync()
            self._fh.close()
            self._fh = None


class JsonlPluginFactory(LineagePluginFactory):
    def name(self) -> str:
        return NAME

    def create(self, context: PluginContext) -> LineagePlugin:
        return JsonlPlugin()
