"""The renderer's kept literal and identifier texts (``events.LiteralTexts``, ``IdentifierTexts``) and its
direct comparisons (``Renderer.text``) against sqlglot's own generator."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from headwater.extract.columns import base_leaf
from headwater.extract.compiled import compiled_modules
from headwater.extract.events import IdentifierTexts, LiteralTexts, Renderer, leaf_texts
from headwater.model import TableRef

DIALECTS = (
    None,
    "oracle",
    "hive",
    "trino",
    "bigquery",
    "clickhouse",
    "tsql",
    "mysql",
    "snowflake",
    "spark",
    "postgres",
    "duckdb",
    "doris",
)
TEXTS = ("", "a", "it's", "back\\slash", "two\nlines", "tab\there", 'dq"', "ünï", "%_", "''", "\\'", "24128")


def _literals() -> list[exp.Expression]:
    out: list[exp.Expression] = []
    for text in TEXTS:
        out.append(exp.Literal.string(text))
        out.append(exp.Literal(this=text, is_string=False))
    noted = exp.Literal.string("n")
    noted.add_comments(["note"])
    out.append(noted)
    return out


def test_literals_render_as_the_generator_does_alone_and_inside_expressions() -> None:
    for dialect in DIALECTS:
        d = Dialect.get_or_raise(dialect)
        plain, ours = d.generator(), d.generator()
        leaf_texts(ours, texts=True)
        assert isinstance(ours._dispatch[exp.Literal], LiteralTexts)
        for _ in range(2):  # first sight, then the kept text
            for lit in _literals():
                assert ours.sql(lit) == plain.sql(lit), (dialect, lit.args)
                for node in (
                    exp.In(this=exp.column("x"), expressions=[lit.copy(), exp.Literal.string("b")]),
                    exp.EQ(this=exp.column("x"), expression=lit.copy()),
                    exp.Between(this=exp.column("x"), low=lit.copy(), high=lit.copy()),
                ):
                    assert ours.sql(node) == plain.sql(node), (dialect, node)


def test_parsed_statements_render_as_the_generator_does() -> None:
    sql = (
        "SELECT CASE WHEN a = 'its' THEN 1.5 ELSE -2 END, SUBSTR(z, 1, 5) IN ('24128', '76232', 'x\\ty') "
        "FROM t WHERE d BETWEEN CAST('2000-01-01' AS DATE) AND '2000-02-01' AND n LIKE '%a_'"
    )
    for dialect in DIALECTS:
        tree = sqlglot.parse_one(sql, read=dialect)
        d = Dialect.get_or_raise(dialect)
        plain, ours = d.generator(), d.generator()
        leaf_texts(ours, texts=True)
        for _ in range(2):
            for node in tree.walk():
                assert ours.sql(node) == plain.sql(node), (dialect, node)


def test_the_kept_texts_are_the_strings_met() -> None:
    ours = Dialect.get_or_raise("tsql").generator()
    leaf_texts(ours, texts=True)
    kept = ours._dispatch[exp.Literal]
    assert isinstance(kept, LiteralTexts)
    ours.sql(exp.Literal.string("k'"))
    ours.sql(exp.Literal.number(3))
    assert kept.texts == {"k'": "'k'''"}


NAMES = ("a", "Mixed", "select", "from", "7up", "x`y", 'x"y', "x]y", "rownum", "dual", "ünï", "two words", "")


def _identified() -> list[exp.Expression]:
    out: list[exp.Expression] = []
    for name in NAMES:
        for quoted in (False, True):
            ident = exp.Identifier(this=name, quoted=quoted)
            out += [
                ident,
                exp.Column(this=ident.copy(), table=exp.Identifier(this=name, quoted=quoted)),
                exp.Table(this=ident.copy(), db=exp.to_identifier("db")),
                exp.Alias(this=exp.column("c"), alias=ident.copy()),
                exp.Anonymous(this=name or "f", expressions=[exp.Column(this=ident.copy())]),
                exp.Pseudocolumn(this=ident.copy()),
            ]
    return out


def test_identifiers_render_as_the_generator_does_wherever_they_stand() -> None:
    for dialect in (*DIALECTS, "tsql", "starrocks", "databricks", "redshift", "sqlite"):
        d = Dialect.get_or_raise(dialect)
        plain, ours = d.generator(), d.generator()
        leaf_texts(ours, texts=True)
        for _ in range(2):  # first sight, then the kept text
            for node in _identified():
                assert ours.sql(node) == plain.sql(node), (dialect, node)


def test_identifiers_are_kept_only_where_quoting_follows_quoted_alone() -> None:
    assert not isinstance(Dialect.get_or_raise("tsql").generator()._dispatch[exp.Identifier], IdentifierTexts)
    for dialect, identify, kept in (("snowflake", False, True), ("oracle", False, True), ("mysql", True, False)):
        ours = Dialect.get_or_raise(dialect).generator(identify=identify)
        leaf_texts(ours, texts=True)
        assert isinstance(ours._dispatch[exp.Identifier], IdentifierTexts) is kept, dialect
    tsql = Dialect.get_or_raise("tsql").generator()
    leaf_texts(tsql, texts=True)
    assert not isinstance(tsql._dispatch[exp.Identifier], IdentifierTexts)  # its own identifier_sql
    ours = Dialect.get_or_raise("mysql").generator()
    leaf_texts(ours, texts=True)
    kept = ours._dispatch[exp.Identifier]
    assert isinstance(kept, IdentifierTexts)
    ours.sql(exp.column("select", table="t"))
    ours.sql(exp.Identifier(this="q", quoted=True))
    assert (kept.plain, kept.quoted) == ({"select": "`select`", "t": "t"}, {"q": "`q`"})


def test_the_renderer_gives_the_generators_text_of_comparisons() -> None:
    t = TableRef("internal", "db", "renderer")
    a, b = (base_leaf(t, n, (t.catalog, t.database, t.name, n)) for n in ("a", "Select"))
    noted = exp.EQ(this=a, expression=exp.Literal.number(1))
    noted.add_comments(["why"])
    nodes = [
        exp.EQ(this=a, expression=b),
        exp.EQ(this=a, expression=exp.Literal.string("k")),
        exp.EQ(this=exp.Sum(this=b), expression=a),
        exp.EQ(this=exp.column("x"), expression=exp.column("y")),  # no leaf: the generator's handler
        exp.EQ(this=exp.EQ(this=a, expression=b), expression=a),
        noted,
        exp.GT(this=a, expression=b),
    ]
    for dialect in DIALECTS:
        d = Dialect.get_or_raise(dialect)
        plain = d.generator()
        renderer = Renderer(d.generator(), False, 1000, None)  # type: ignore[arg-type]  # no diagnostic made
        if dialect not in ("bigquery", "clickhouse"):  # their ``=`` is their own
            assert renderer.equality is not None
        for node in nodes:
            assert renderer.text(node) == plain.sql(node).strip(), (dialect, node)


def test_the_texts_are_kept_by_default_only_in_the_compiled_build() -> None:
    ours = Dialect.get_or_raise("mysql").generator()
    leaf_texts(ours)
    kept = isinstance(ours._dispatch[exp.Literal], LiteralTexts)
    assert kept is isinstance(ours._dispatch[exp.Identifier], IdentifierTexts)
    assert kept is ("headwater.extract.events" in compiled_modules())
