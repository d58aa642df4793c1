"""The classifier's one walk gives what the separate walks gave: each indirect expression's columns in
``refs_of``'s breadth-first order, and ``has_unresolved`` of the whole expression."""

import pytest
import sqlglot
from sqlglot import exp

from headwater.extract.classify import classify
from headwater.extract.scope import UNRESOLVED, column_node, has_unresolved, refs_of
from headwater.model import TableRef

T = TableRef("internal", "db", "t")


def resolved(sql: str) -> exp.Expression:
    """``sql`` with its columns bound to ``t`` but those named ``u*``, marked unresolved."""

    def bind(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column):
            return node
        if node.name.startswith("u"):
            node.meta[UNRESOLVED] = True
            return node
        return column_node(T, node.name)

    return sqlglot.parse_one(sql, read="spark").transform(bind)


CASES = [
    # several columns at different depths: breadth first is not the walk's (depth-first) order
    "CASE WHEN f(g(a)) + b = c THEN 1 END",
    "CASE WHEN (a + (b + (c + d))) > e AND x = 1 THEN 1 ELSE 2 END",
    "SUM(v) OVER (PARTITION BY LOWER(UPPER(a)) || b ORDER BY c + d DESC)",
    # the window frame is not classified, but its columns count
    "SUM(v) OVER (ORDER BY a ROWS BETWEEN u1 PRECEDING AND CURRENT ROW)",
    "CASE WHEN SUM(v) OVER (ORDER BY a ROWS BETWEEN u1 PRECEDING AND CURRENT ROW) > 0 THEN 1 END",
    # conditions that read no column are dropped, with what their walk met
    "CASE WHEN COUNT(*) OVER (PARTITION BY 1) > 0 THEN a END",
    "CASE WHEN CURRENT_DATE > '2020-01-01' THEN a ELSE b END",
    "IF(RAND() > 0.5, a, b)",
    "COALESCE(1, a, COALESCE(b, 2), c + d * e)",
    "CASE u2 WHEN 1 THEN a END",
    "CASE WHEN x IN (u3, a) THEN COALESCE(b, u4) END",
]


@pytest.mark.parametrize("sql", CASES)
def test_one_walk_matches_the_separate_walks(sql):
    expr = resolved(sql)
    c = classify(expr)
    assert c.unbound == has_unresolved(expr)
    assert len(c.indirect_refs) == len(c.indirect)
    for (_, node), refs in zip(c.indirect, c.indirect_refs, strict=True):
        assert list(refs) == refs_of(node)
    shared = classify(expr, shared=True)
    assert (shared.indirect, shared.indirect_refs, shared.unbound) == (c.indirect, c.indirect_refs, c.unbound)


def test_breadth_first_order_is_kept():
    c = classify(resolved("CASE WHEN f(g(a)) + b = c THEN 1 END"))
    assert [r.column for r in c.indirect_refs[0]] == ["c", "b", "a"]


def test_dropped_conditions_leave_no_trace():
    c = classify(resolved("CASE WHEN COUNT(*) OVER (PARTITION BY 1) > 0 THEN a END"))
    assert c.indirect == ()
    assert (c.type.value, c.origin.value) == ("TRANSFORMATION", "COLUMN")


def test_frame_columns_make_the_expression_unbound():
    assert classify(resolved("SUM(v) OVER (ORDER BY a ROWS BETWEEN u1 PRECEDING AND CURRENT ROW)")).unbound
