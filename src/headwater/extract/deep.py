"""Room for deep statements: run a call in a worker thread with a large stack and recursion limit.

sqlglot's parser and generator, and the resolver, recurse once per nesting level and once per
term of an operator chain. A statement nested 500 deep or with 10,000 terms needs more than the
main thread's 8 MB C stack and Python's default recursion limit of 1,000. ``call_deep`` runs such
a statement in a thread whose stack is ``DEEP_STACK_BYTES`` (reserved, used only as deep as the
call goes) while the process's recursion limit is raised to ``DEEP_RECURSION_LIMIT``; the limit
is restored when the last deep call ends. The guards (``headwater.extract.guards``) keep every
statement well inside that room.

>>> call_deep(sum, [1, 2, 3])
6
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 200_000

_lock = threading.Lock()
_active = 0
_saved_limit = 0
_local = threading.local()


def in_deep_thread() -> bool:
    """True inside a ``call_deep`` worker."""
    return bool(getattr(_local, "deep", False))


def call_deep(fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` in a worker thread with room for deep recursion; its exception is re-raised here."""
    if in_deep_thread():
        return fn(*args)
    outcome: list[object] = []

    def work() -> None:
        _local.deep = True
        try:
            outcome.append(("ok", fn(*args)))
        except BaseException as err:  # re-raised in the caller's thread
            outcome.append(("err", err))

    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, DEEP_RECURSION_LIMIT))
        _active += 1
        previous = threading.stack_size(DEEP_STACK_BYTES)
        try:
            worker = threading.Thread(target=work, name="headwater-deep", daemon=True)
            worker.start()
        except BaseException:
            _active -= 1
            if _active == 0:
                sys.setrecursionlimit(_saved_limit)
            raise
        finally:
            threading.stack_size(previous)
    try:
        worker.join()
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                sys.setrecursionlimit(_saved_limit)
    status, value = outcome[0] if outcome else ("err", RuntimeError("the deep worker ended without a result"))
    if status == "err":
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]
