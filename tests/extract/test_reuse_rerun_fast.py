"""A re-run's shortcuts (issue 14 item 3): each against the plain code it stands for."""

from __future__ import annotations

import random

from headwater.extract import Extractor, RunInfo
from headwater.extract.reuse import _HINTS, _NO_HINT, StatementReuse, _found_hinted, _Plan
from headwater.model.codec import event_to_dict
from headwater.model.secrets import may_hold_secret

_PIECES = [
    "key", "Key", "api", "access", "aes", "256", "_", ".", "-", ":", "//", "cred", "credit", "ential", "s",
    "pass", "word", "x", "1", "2024-01-01", " ", "+", ",", "/", "tab", "token", "sig", "\u017f", "é", "=", "'",
    "account", "7", "0", "monkey", "order", "jaas", "private", "http", "auth", "pw", "basic",
]  # fmt: skip


def _random_found(rnd: random.Random) -> tuple[list[str], tuple[bool, ...]]:
    found: list[str] = []
    numbers: list[bool] = []
    for _ in range(rnd.randint(0, 5)):
        if rnd.random() < 0.3:
            found.append(str(rnd.randint(0, 10 ** rnd.randint(0, 6))))
            numbers.append(True)
        else:
            pool = rnd.choice([_PIECES, list(_NO_HINT), _PIECES + list(_NO_HINT)])
            found.append("".join(rnd.choice(pool) for _ in range(rnd.randint(0, 5))))
            numbers.append(False)
    return found, tuple(numbers)


def test_the_remembered_hint_is_the_plain_search_of_the_joined_candidates() -> None:
    rnd = random.Random(14)
    for _ in range(30_000):
        found, numbers = _random_found(rnd)
        _HINTS.clear() if rnd.random() < 0.01 else None
        assert _found_hinted(found, numbers) == may_hold_secret("\0".join(found)), found
    # the cases the reduction leans on: a qualifier before key past letterless candidates, and :// kept
    for found, numbers in [
        (["api", "2024-01-01", "key"], (False, False, False)),
        (["api", "7", "key"], (False, True, False)),
        (["x", "7", "key"], (False, True, False)),
        (["cred", "1"], (False, True)),
        (["http:", "//x"], (False, False)),
        (["12:30", "x"], (False, False)),
    ]:
        assert _found_hinted(found, numbers) == may_hold_secret("\0".join(found)), found


def _run_log(reuse: StatementReuse | None) -> list[list[dict]]:
    ex = Extractor(database="db", reuse=reuse)
    out = []
    for k, (status, day) in enumerate([("PAID", 1), ("VOID", 2), ("PAID", 3), ("PAID", 4), ("VOID", 5)]):
        sql = f"INSERT INTO t SELECT a FROM s WHERE st = '{status}' AND d >= '2024-01-0{day}'"
        res = ex.run(sql, RunInfo(query_id=f"q{k}", timestamp="2024-01-01T00:00:00.000Z"))
        out.append([event_to_dict(e) for s in res.statements for e in s.events])
    return out


def test_an_entry_whose_expression_comes_out_again_is_the_same_object_and_the_events_are_reuse_offs() -> None:
    reuse = StatementReuse(size=100)
    ex = Extractor(database="db", reuse=reuse)
    entries = []
    for k, status in enumerate(["PAID", "VOID", "PAID", "PAID"]):
        sql = f"INSERT INTO t SELECT a FROM s WHERE st = '{status}' AND d >= '2024-01-0{k + 1}'"
        res = ex.run(sql, RunInfo(query_id=f"q{k}"))
        entries.append({x.expression: x for x in res.statements[0].events[0].dataset_indirect})
    assert reuse.hits >= 3
    paid = "s.st = 'PAID'"
    assert entries[2][paid] is entries[3][paid]  # re-runs: made once
    assert entries[3][paid] == entries[0][paid]
    assert _run_log(StatementReuse(size=100)) == _run_log(None)


def test_a_plan_keeps_its_shape_key_in_a_frozenset_for_the_cache() -> None:
    reuse = StatementReuse(size=100)
    ex = Extractor(database="db", reuse=reuse)
    for day in range(1, 5):
        ex.run(f"INSERT INTO t SELECT a FROM s WHERE d = '2024-01-0{day}'", RunInfo(query_id=f"q{day}"))
    assert reuse.hits == 3
    plans = [p for p in (reuse._plans or {}).values() if isinstance(p, _Plan)]
    assert plans and all(p.ident == frozenset((p.key,)) for p in plans)
    assert all(k[0] in {p.ident for p in plans} for k in reuse._entries)
