"""The renderer's direct comparisons (``Renderer.text`` calling ``LeafEquality`` itself) against
sqlglot's own generator."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from headwater.catalog import LayeredCatalog, Names
from headwater.extract.columns import base_leaf
from headwater.extract.events import Renderer
from headwater.extract.resolve import Resolver
from headwater.model import TableRef

DIALECTS = (None, "oracle", "hive", "trino", "bigquery", "clickhouse", "tsql", "mysql", "snowflake", "spark", "duckdb")


def test_the_renderer_gives_the_generators_text_of_comparisons() -> None:
    t = TableRef("internal", "db", "renderer")
    a, b = (base_leaf(t, n, (t.catalog, t.database, t.name, n)) for n in ("a", "Select"))
    noted = exp.EQ(this=a, expression=exp.Literal.number(1))
    noted.add_comments(["why"])
    nodes = [
        exp.EQ(this=a, expression=b),
        exp.EQ(this=a, expression=exp.Literal.string("it's")),
        exp.EQ(this=exp.Sum(this=b), expression=a),
        exp.EQ(this=exp.column("x"), expression=exp.column("y")),  # no leaf: the generator's handler
        exp.EQ(this=exp.EQ(this=a, expression=b), expression=a),
        noted,  # a comment: through the generator
        exp.GT(this=a, expression=b),
        a,
    ]
    for dialect in DIALECTS:
        d = Dialect.get_or_raise(dialect)
        plain = d.generator()
        resolver = Resolver(
            LayeredCatalog(), Names.for_dialect(dialect or "generic"), "internal", "db", statement_index=0
        )
        renderer = Renderer(d.generator(), False, 1000, resolver)  # a real resolver: the compiled build checks the type
        assert (renderer.equality is None) is (dialect in ("bigquery", "clickhouse")), dialect  # their own ``=``
        for node in nodes:
            assert renderer.text(node) == plain.sql(node).strip(), (dialect, node)
            assert renderer.text(node) == plain.sql(node).strip()  # the text kept for the node
