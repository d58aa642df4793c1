"""Issue 17 item 3: resolution that doubled at every level is linear; a work budget bounds the rest."""

from __future__ import annotations

from headwater.extract import ExtractOptions, Extractor, extract_script


def doubling_ctes(levels: int) -> str:
    parts = ["c0 AS (SELECT a FROM s)"]
    parts += [f"c{i} AS (SELECT x.a + y.a AS a FROM c{i - 1} x CROSS JOIN c{i - 1} y)" for i in range(1, levels)]
    return "INSERT INTO t WITH " + ", ".join(parts) + f" SELECT a FROM c{levels - 1}"


def test_a_cte_chain_using_each_level_twice_keeps_exact_lineage() -> None:
    res = extract_script(doubling_ctes(40) + ";\nINSERT INTO t2 SELECT a FROM s", database="db")
    assert not res.failures
    e, after = res.events
    (d,) = e.direct
    assert ([str(c) for c in d.sources], d.type.value) == (["internal.db.s.a"], "TRANSFORMATION")
    assert [(str(i.column), i.labels) for i in d.inputs] == [("internal.db.s.a", ("ARITHMETIC",))]
    assert [str(t) for t in e.sources] == ["internal.db.s"]
    assert e.status.value == "COMPLETE"
    abbreviated = [x for x in e.diagnostics if x.code == "expression_abbreviated"]
    assert len(abbreviated) == 1 and abbreviated[0].severity.value == "INFO"
    assert "…" in d.expression and d.expression.startswith("((") and len(d.expression) < 200_000
    assert [x.expression for x in after.direct] == ["s.a"]


def test_a_short_doubling_chain_is_rendered_whole() -> None:
    res = extract_script(doubling_ctes(4), database="db")
    (d,) = res.events[0].direct
    assert d.expression == "((s.a + s.a) + (s.a + s.a)) + ((s.a + s.a) + (s.a + s.a))"
    assert "expression_abbreviated" not in [x.code for x in res.events[0].diagnostics]


def test_chained_views_using_each_level_twice() -> None:
    views = ["CREATE VIEW v0 AS SELECT a FROM s"]
    views += [f"CREATE VIEW v{i} AS SELECT x.a + y.a AS a FROM v{i - 1} x CROSS JOIN v{i - 1} y" for i in range(1, 40)]
    res = extract_script(";\n".join([*views, "INSERT INTO t SELECT a FROM v39"]), database="db")
    assert not res.failures
    (e,) = res.events
    (d,) = e.direct
    assert [str(c) for c in d.sources] == ["internal.db.s.a"]
    assert len(e.via) == 40


def test_past_the_work_budget_an_unavailable_event_says_why() -> None:
    from headwater.extract.guards import Limits

    ex = Extractor(options=ExtractOptions(limits=Limits(max_work=200)), database="db")
    wide = "INSERT INTO t SELECT " + ", ".join(f"a + {i} AS c{i}" for i in range(300)) + " FROM s"
    res = ex.run(wide + ";\nINSERT INTO t2 SELECT a FROM s")
    first, second = res.statements
    (e,) = first.events
    assert e.status.value == "UNAVAILABLE" and e.direct == ()
    assert (e.diagnostics[0].code, e.diagnostics[0].severity.value) == ("work_budget_exceeded", "ERROR")
    assert "HEADWATER_EXTRACT_MAX_WORK" in e.diagnostics[0].message
    assert e.target.table.qualified == "db.t"
    assert [d.expression for d in second.events[0].direct] == ["s.a"]
