"""The job names one project file's statements have, kept in memory that does not grow per statement.

``ingest`` collects them as it extracts, to close the file's jobs that are no longer in it. Most are
``<file>#<n>`` (``headwater.model.job.file_job_name``): those are a bitmap of ordinals (a bit each, where
a set of strings takes ~100 bytes each); the others (``-- name:`` names, multi-insert targets) a set.

>>> names = FileJobNames("etl/a.sql")
>>> names.update(["etl/a.sql#1", "etl/a.sql#3", "load_b", "etl/a.sql#4→db.t"])
>>> [n in names for n in ("etl/a.sql#1", "etl/a.sql#2", "etl/a.sql#3", "load_b", "etl/a.sql#4→db.t", "etl/a.sql#01")]
[True, False, True, True, True, False]
>>> len(names)
4
"""

from __future__ import annotations

from collections.abc import Container, Iterable


class FileJobNames(Container[str]):
    """Job names of the project file ``relpath`` (``add``, ``update``, ``in``, ``len``)."""

    def __init__(self, relpath: str) -> None:
        self.prefix = f"{relpath}#"
        self._bits = bytearray()
        self._count = 0
        self._others: set[str] = set()

    def _ordinal(self, name: str) -> int | None:
        if not name.startswith(self.prefix):
            return None
        rest = name[len(self.prefix) :]
        if rest.isascii() and rest.isdigit() and rest[0] != "0":
            return int(rest)
        return None

    def add(self, name: str) -> None:
        n = self._ordinal(name)
        if n is None:
            self._others.add(name)
            return
        byte, bit = divmod(n, 8)
        if byte >= len(self._bits):
            self._bits.extend(bytes(byte + 1 - len(self._bits)))
        if not self._bits[byte] & (1 << bit):
            self._bits[byte] |= 1 << bit
            self._count += 1

    def update(self, names: Iterable[str]) -> None:
        for name in names:
            self.add(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        n = self._ordinal(name)
        if n is None:
            return name in self._others
        byte, bit = divmod(n, 8)
        return byte < len(self._bits) and bool(self._bits[byte] & (1 << bit))

    def __len__(self) -> int:
        return self._count + len(self._others)
