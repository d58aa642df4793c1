"""History extraction reuses statements that differ only in literals: the same outcomes, event for
event, as with reuse off, on a generated log of scheduled re-runs and on the mixed log."""

from __future__ import annotations

import pytest

from headwater.catalog import open_catalog
from headwater.history import HistoryExtractor
from headwater.history.ordering import group_sessions
from headwater.history.record import LogRecord
from headwater.history.synthetic import generate_log, generate_rerun_log, synthetic_schema
from headwater.model import event_to_dict


def _records(rows: list[dict]) -> list[LogRecord]:
    return [
        LogRecord(
            r["stmt"],
            r["query_id"],
            session=r["client_ip"],
            timestamp=r["time"],
            user=r["user"],
            database=r["db"],
            catalog=r["catalog"],
            state=r["state"],
            error_code=str(r["error_code"]),
            seq=n,
        )
        for n, r in enumerate(rows)
    ]


def _outcomes(rows: list[dict], reuse_size: int, tmp_path) -> tuple[list, HistoryExtractor]:
    path = tmp_path / "schema.json"
    if not path.exists():
        import json

        path.write_text(json.dumps(synthetic_schema()))
    hx = HistoryExtractor(open_catalog(str(path), None, "doris", "internal"), reuse_size=reuse_size)
    out = []
    for session in group_sessions(_records(rows)):
        for o in hx.session(session.records):
            out.append((o.query_id, o.kind, o.detail, [event_to_dict(e) for e in o.events]))
    return out, hx


@pytest.mark.parametrize("make", [generate_rerun_log, generate_log], ids=["reruns", "mixed"])
def test_reuse_gives_the_events_of_extraction_anew(make, tmp_path):
    rows = make(1500, seed=3) if make is generate_log else make(1500, distinct=150, seed=3)
    plain, _ = _outcomes(rows, 0, tmp_path)
    reused, hx = _outcomes(rows, 10_000, tmp_path)
    assert len(plain) == len(reused)
    for a, b in zip(plain, reused, strict=True):
        assert a == b
    assert hx.reuse is not None and hx.reuse.hits > 0
    if make is generate_rerun_log:
        assert hx.reuse.hits / len(rows) > 0.85  # the 150 first sights are extracted


def test_a_small_cache_forgets_but_stays_right(tmp_path):
    rows = generate_rerun_log(600, distinct=50, seed=5)
    plain, _ = _outcomes(rows, 0, tmp_path)
    small, hx = _outcomes(rows, 3, tmp_path)
    assert plain == small
    assert hx.reuse is not None and len(hx.reuse._entries) <= 3
