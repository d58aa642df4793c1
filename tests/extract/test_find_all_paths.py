"""``scope.find_all``'s two loops (the compiled build's, over every argument, and the interpreted
build's, over sqlglot's ``iter_expressions``) find the same nodes in the same order as sqlglot's
``find_all``, for the node types extraction asks for and for identifiers and literals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from headwater.extract import scope

CORPUS = Path(os.environ.get("HEADWATER_SHARED", "/work/shared")) / "corpus"
SQL = [
    "SELECT a + f(b, (SELECT c FROM u WHERE u.d = 1)) AS x FROM t JOIN s ON t.k = s.k WHERE e > 'z' ORDER BY 1",
    "WITH w AS (SELECT * FROM t) SELECT SUM(x) OVER (PARTITION BY y ORDER BY z ROWS 2 PRECEDING) FROM w",
    "INSERT INTO t SELECT CASE WHEN a IN (1, 2) THEN b ELSE NULL END FROM s UNION ALL SELECT c FROM u",
]
TYPES = [exp.Column, (exp.Column, exp.Select, exp.Subquery, exp.Union), exp.Identifier, (exp.Literal, exp.Column)]


def trees() -> list[exp.Expression]:
    out = [sqlglot.parse_one(sql) for sql in SQL]
    path = CORPUS / "insert_tpcds.sql"
    if path.exists():
        out += [t for t in sqlglot.parse(path.read_text()) if t is not None][:40]
    return out


@pytest.mark.parametrize("compiled", [True, False])
def test_both_loops_find_what_sqlglot_finds(monkeypatch: pytest.MonkeyPatch, compiled: bool) -> None:
    monkeypatch.setattr(scope, "_COMPILED", compiled)
    for tree in trees():
        for node in [tree, *tree.find_all(exp.Select, exp.Where, exp.Join)]:
            for types in TYPES:
                wanted = list(node.find_all(*types)) if isinstance(types, tuple) else list(node.find_all(types))
                assert [id(n) for n in scope.find_all(node, types)] == [id(n) for n in wanted]
