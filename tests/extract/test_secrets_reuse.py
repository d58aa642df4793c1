"""Statement reuse and the secrets pre-check: re-runs filtered on a key column (``o_orderkey``) are
reused with their literals kept; re-runs filtered on a secret key (``api_key``) are extracted and
redacted each time."""

from __future__ import annotations

from tests.extract.test_reuse import _both


def test_reruns_on_a_key_column_are_reused_and_keep_their_literals() -> None:
    sqls = [f"INSERT INTO t SELECT a, b, d, k FROM s WHERE s.o_orderkey = '{v}' AND s.sort_key = 'z'" for v in "xyzw"]
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    assert reuse.hits == 3  # the first is extracted, the three others answered from its shape
    assert "o_orderkey = 'w'" in str(reused[-1])


def test_reruns_on_a_secret_key_are_redacted_not_reused() -> None:
    sqls = [
        f"INSERT INTO t SELECT a, b, d, k FROM s WHERE s.o_orderkey = '5' AND s.api_key = 'hunter{v}'" for v in "123"
    ]
    plain, reused, reuse = _both(sqls)
    assert plain == reused
    assert reuse.hits == 0
    assert "hunter" not in str(reused) and "s.api_key = '***'" in str(reused[-1]) and "'5'" in str(reused[-1])
