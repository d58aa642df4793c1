"""``check_tokens`` skips the token-by-token ``measure`` when bounds show no limit can be passed:
its answers stay those of the exact measure, at every limit around the statement's own figures."""

from __future__ import annotations

import itertools

from sqlglot.dialects.dialect import Dialect

from headwater.extract.guards import Limits, _may_pass, check_tokens, measure

STATEMENTS = [
    "SELECT " + "(" * 9 + "1" + ")" * 9,
    "SELECT NOT NOT - - ~a FROM t WHERE (b + c) * d > 1 AND e OR f",
    "SELECT CASE WHEN a THEN (SELECT MAX(x) FROM s) END, " + " + ".join(f"c{i}" for i in range(40)) + " FROM t",
    "INSERT INTO t SELECT a, b FROM s UNION SELECT c, d FROM u",
]


def exact(tokens: list, limits: Limits) -> str | None:
    depth, terms = measure(tokens)
    if depth > limits.max_nesting:
        return "nesting_too_deep"
    if terms > limits.max_terms:
        return "expression_too_long"
    return None


def test_bounds_never_hide_a_passed_limit() -> None:
    d = Dialect.get_or_raise("doris")
    for sql in STATEMENTS:
        tokens = d.tokenize(sql)
        depth, terms = measure(tokens)
        for nesting, chain in itertools.product(
            range(max(depth - 2, 0), depth + 3), range(max(terms - 2, 0), terms + 3)
        ):
            limits = Limits(max_nesting=nesting, max_terms=chain)
            over = check_tokens(tokens, limits)
            assert (over[0] if over else None) == exact(tokens, limits), (sql, nesting, chain)


def test_short_statements_skip_the_measure() -> None:
    tokens = Dialect.get_or_raise("doris").tokenize(STATEMENTS[1])
    assert not _may_pass(tokens, Limits())  # fewer tokens than either limit
    assert _may_pass(tokens, Limits(max_nesting=3))  # five prefix tokens and one opening: may pass 3
    assert not _may_pass(tokens, Limits(max_nesting=len(tokens) - 1, max_terms=len(tokens) - 1))
