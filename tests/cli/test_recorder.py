"""``Recorder``: items reach the writer in order, and how many may wait depends on items, not batches."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from headwater.cli.recording import Recorder


def _gated() -> tuple[threading.Event, list[int], Callable[[Sequence[int]], None]]:
    gate = threading.Event()
    written: list[int] = []

    def write(items: Sequence[int]) -> None:
        gate.wait()
        written.extend(items)

    return gate, written, write


def _in_thread(fn: Callable[[], None]) -> threading.Thread:
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(2)
    return t


def test_batches_cut_small_wait_up_to_depth_times_batch_items() -> None:
    """A project of one-statement files cuts a batch per file: ten of them still fit beside a writer
    that is busy, as two batches of five would; the eleventh item waits for room."""
    gate, written, write = _gated()
    recorder = Recorder(write, batch=5, depth=2)

    def ten() -> None:
        for i in range(10):
            recorder.add(i)
            recorder.cut()

    assert not _in_thread(ten).is_alive()  # handed over without waiting for the writer
    assert recorder.waited_s == 0.0
    eleventh = _in_thread(lambda: (recorder.add(10), recorder.cut()))
    assert eleventh.is_alive()  # no room until the writer commits
    gate.set()
    eleventh.join(30)
    recorder.close()
    assert written == list(range(11)) and recorder.written == 11
    assert recorder.waited_s > 0


def test_statements_with_no_item_take_room_too() -> None:
    """A statement with no event waits behind the batches before it, and takes room as one item."""
    gate, written, write = _gated()
    recorder = Recorder(write, batch=2, depth=2)  # room for 4

    def one_item_three_counts() -> None:
        recorder.add(0)
        recorder.cut()
        for _ in range(3):
            recorder.count(1)

    assert not _in_thread(one_item_three_counts).is_alive()
    fifth = _in_thread(lambda: recorder.count(1))
    assert fifth.is_alive()
    gate.set()
    fifth.join(30)
    recorder.close()
    assert written == [0] and recorder.done_count == 4
