"""The sight of a skeleton's first statement, which makes its plan, and later sights answered from the
plan: names, spans and positions as the tokens give them (the plan keeps only what it reads)."""

from __future__ import annotations

import pytest
from sqlglot.dialects.dialect import Dialect

from headwater.extract.reuse import _Plan, shape_of, sight_of
from tests.extract.test_reuse_skeleton import PAIRS


def _seen(sight):
    tokens = sight.shape().tokens
    positions = [sight.position(k) for k in range(len(tokens) + 1)]
    return sight.key, sight.names, sight.literals, sight.text, sight.first, sight.spans(), positions


@pytest.mark.parametrize("dialect", ["doris", "postgres", "bigquery", "tsql"])
@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_the_first_sight_and_a_later_one_are_what_the_tokens_say(dialect, first, second):
    d = Dialect.get_or_raise(dialect)
    plans: dict = {}
    made = sight_of(first, d, plans)
    if made is None:
        return
    made_names = made.names  # asked for before the tokens are dropped
    assert made_names == shape_of(first, d).names == frozenset(t.text.lower() for t in shape_of(first, d).tokens)
    assert _seen(made) == _seen(sight_of(first, d))
    later = sight_of(second, d, plans)
    if later is not None:
        assert _seen(later) == _seen(sight_of(second, d))


def test_a_plan_names_the_tokens_that_are_not_candidates_and_reads_no_other_token():
    d = Dialect.get_or_raise("doris")
    plans: dict = {}
    sight = sight_of("SELECT Ab, 3 FROM s WHERE d = 'X1' GROUP BY 1", d, plans)
    plan = sight.plan
    assert isinstance(plan, _Plan)
    assert plan.names() == frozenset({"select", "ab", ",", "from", "s", "where", "d", "=", "group by"})
    assert sight.names == plan.names() | {"3", "x1", "1"}
    assert plan.count == len(shape_of(sight.sql, d).tokens) and plan.starts == ()  # made when a position is asked
    assert sight.position(1) == (1, 8) and plan.starts[1] == 7
