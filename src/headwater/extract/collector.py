"""Python's cyclic garbage collector around extraction.

sqlglot trees link each node to its parent, so only the cyclic collector frees them, and each of
its full collections walks every live object. Two things keep that cost flat as a script grows:
the heap loaded at import (sqlglot's dialects, parsers, tables) is frozen once, so the collector
never walks it again; and during each statement the collector waits, collecting once between
statements what that statement left behind.

>>> import gc
>>> with collector_paused():
...     gc.isenabled()
False
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_import_heap() -> None:
    """Move every object alive now (the import-time heap) out of the collector's reach for good.

    Call once, after the modules are imported and before the work starts (the ``headwater``
    command, each history worker). The objects stay alive as before; they are no longer walked.
    """
    gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector paused for one step (a statement), and its collection of what the step left after.

    Only where it was enabled (a caller that turned it off keeps it off); process-wide, as the
    collector is, so it covers one step and never a suspended generator. The young objects
    the step left are collected on leaving (generation 0, or older when their turn has come,
    as the collector's own thresholds decide), so memory stays bounded over any number of
    statements.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
