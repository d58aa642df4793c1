"""bench/realworld.py's machinery over a tiny synthetic corpus made in a temporary directory (no mirror
needed): corpus selection and wrapping, schema conversion, the report, the detectors, gold scoring."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import realworld as rw
import realworld_detect as det
from headwater.catalog import schema_from_data
from headwater.extract import ExtractOptions, Extractor
from headwater.model import ColumnRef, IndirectLineage, IndirectType, TableRef

CORPORA = """
corpora:
  - name: tiny-bq
    repo: example/tiny
    commit: null
    dialect: bigquery
    wrap: bigquery-etl
    include: ["sql/*/*/*/query.sql"]
    schema: bigquery-etl
"""

GOLD = """
corpus: tiny-bq
repo: example/tiny
commit: null
columns:
  - path: sql/proj/ds/daily/query.sql
    tables: {s: proj.ds.src}
    targets:
      client_id: {direct: [s.client_id], indirect: [s.day]}
      total: {direct: [s.amount], indirect: [s.day]}
"""


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path, Path]:
    repo = tmp_path / "repo"
    write(
        repo,
        "sql/proj/ds/daily/query.sql",
        "-- daily totals\nSELECT client_id, amount AS total\nFROM `proj.ds.src`\nWHERE day = @d;\n",
    )
    write(
        repo,
        "sql/proj/ds/daily/schema.yaml",
        "fields:\n- name: client_id\n  type: STRING\n  description: !include-field-description\n"
        "- {name: total, type: FLOAT}\n- !some-tag x\n",
    )
    write(repo, "sql/proj/ds/flat/query.sql", "SELECT d.client_id FROM `proj.ds.daily` AS d")
    write(repo, "sql/proj/ds/templated/query.sql", "SELECT * FROM {{ table }}")
    write(repo, "sql/proj/ds/notes.md", "not SQL")
    corpora = tmp_path / "corpora.yaml"
    corpora.write_text(CORPORA, encoding="utf-8")
    gold = tmp_path / "gold"
    write(gold, "tiny.yaml", GOLD)
    return repo, corpora, gold


def test_the_report_over_a_plain_directory(corpus: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    repo, corpora, gold = corpus
    figures = repo.parent / "figures.json"
    argv = ["--corpora", str(corpora), "--gold", str(gold), "--mirror", f"example/tiny={repo}", "--show", "--json"]
    assert rw.main([*argv, str(figures)]) == 0
    out = capsys.readouterr().out
    runs = json.loads(figures.read_text(encoding="utf-8"))
    assert [(r["corpus"], r["schema"], r["files"], r["left_out"], r["error_events"]) for r in runs] == [
        ("tiny-bq", False, 2, {"jinja": 1}, 0),
        ("tiny-bq", True, 2, {"jinja": 1}, 0),
    ]
    assert runs[1]["gold"]["direct"] == {"p": 100.0, "r": 100.0, "f1": 100.0} and runs[1]["gold"]["columns"] == 2
    assert "== tiny-bq (bigquery, without schema)" in out and "== tiny-bq (bigquery, with schema)" in out
    assert out.count("files 2 (left out: jinja 1); statements 2; parse failures 0;") == 2
    assert "events with an ERROR diagnostic: 0" in out
    # the two labelled columns are found and right, with and without the schema
    assert out.count("gold tiny-bq") == 2
    assert out.count("2 columns (0 not found); direct P/R/F1 100.0/100.0/100.0; indirect P/R/F1 100.0/100.0/100.0") == 2


def test_the_report_over_a_bare_git_mirror_at_its_commit(corpus: tuple[Path, Path, Path], tmp_path: Path) -> None:
    repo, _, _ = corpus
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    mirror = rw.Mirror(bare, commit)
    assert mirror.git and "sql/proj/ds/daily/query.sql" in mirror.files()
    corpus_ = rw.load_corpora(corpus[1])[0]
    sqls, skipped, _ = rw.prepare(corpus_, mirror)
    assert sorted(sqls) == ["sql/proj/ds/daily/query.sql", "sql/proj/ds/flat/query.sql"] and skipped["jinja"] == 1
    assert sqls["sql/proj/ds/daily/query.sql"].startswith("CREATE OR REPLACE TABLE `proj.ds.daily` AS\n-- daily totals")
    assert not sqls["sql/proj/ds/daily/query.sql"].endswith(";")
    with pytest.raises(SystemExit):
        rw.Mirror(bare, "0" * 40)


def test_bigquery_schema_yaml_becomes_headwater_schema(corpus: tuple[Path, Path, Path]) -> None:
    assert rw.bq_type({"type": "RECORD", "mode": "REPEATED", "fields": [{"name": "key", "type": "STRING"}]}) == (
        "ARRAY<STRUCT<`key` STRING>>"
    )
    assert rw.bq_type({"type": "INTEGER", "mode": "NULLABLE"}) == "INT64"
    data = rw.bigquery_etl_schema(rw.Mirror(corpus[0], None), ["sql/proj/ds/daily/query.sql"])
    assert data == {"`proj`.`ds`.`daily`": {"client_id": "STRING", "total": "FLOAT64"}}
    cat = schema_from_data(data, dialect="bigquery")
    assert cat.table(TableRef("proj", "ds", "daily")).column_names == ("client_id", "total")


def test_dbt_models_render_simply_or_are_left_out() -> None:
    text = (
        "{{ config(materialized='incremental', cluster_by=['d']) }}\n"
        "select a.x from {{ ref('stg_a') }} a join {{ source('raw', 'b') }} b on a.k = b.k\n"
        "{% if is_incremental() %} where a.d > (select max(d) from {{ this }}) {% endif %}"
    )
    assert rw.render_dbt(text, "m").split() == [
        "select",
        "a.x",
        "from",
        "stg_a",
        "a",
        "join",
        "raw.b",
        "b",
        "on",
        "a.k",
        "=",
        "b.k",
    ]
    assert rw.render_dbt("select {{ dbt_utils.star(ref('a')) }} from {{ ref('a') }}", "m") is None
    assert rw.wrap_dbt("models/m.sql", "select 1 as x from {{ ref('a') }}") == (
        "CREATE TABLE m AS\nselect 1 as x from a",
        "wrapped",
    )


def test_hive_variables_take_the_usage_comment_values() -> None:
    text = (
        "--   -d source_table=wmf.pageview_hourly \\\n"
        "-- the table's rows (an apostrophe in a comment)\n"
        "INSERT OVERWRITE TABLE ${destination_table} PARTITION (year=${year})\n"
        "SELECT a FROM ${source_table} WHERE year = ${year} AND d = '${day}'"
    )
    out = rw.render_script(text, "load")
    assert "TABLE destination_table__load PARTITION (year=0)" in out
    assert "FROM wmf.pageview_hourly WHERE year = 0 AND d = '${day}'" in out


def event_of(sql: str, dialect: str = "bigquery"):
    (event,) = Extractor(None, ExtractOptions(dialect=dialect)).run(sql).events
    return event


def test_alias_detector_flags_a_source_column_named_like_a_grouped_alias() -> None:
    sql = "CREATE TABLE d.o AS SELECT DATE(ts) AS day, COUNT(*) AS n FROM d.t GROUP BY day"
    event = event_of(sql)
    t = TableRef("internal", "d", "t")
    right = IndirectLineage(IndirectType.GROUP_BY, "DATE(t.ts)", (ColumnRef(t, "ts"),))
    wrong = IndirectLineage(IndirectType.GROUP_BY, "t.day", (ColumnRef(t, "day"),))
    ok = dataclasses.replace(event, dataset_indirect=(right,))
    bad = dataclasses.replace(event, dataset_indirect=(wrong,))
    assert [h.detector for h in det.detect(sql, "bigquery", ok, None, "f")] == []
    hits = det.detect(sql, "bigquery", bad, None, "f")
    assert [h.detector for h in hits] == ["a"] and hits[0].complete == (bad.status.value == "COMPLETE")
    # a column the statement really reads under that name is no leak
    sql2 = "CREATE TABLE d.o AS SELECT DATE(ts) AS day, MAX(day) AS m FROM d.t GROUP BY day"
    assert det.detect(sql2, "bigquery", dataclasses.replace(event_of(sql2), dataset_indirect=(wrong,)), None, "f") == []


def test_unnest_detector_flags_an_element_field_bound_to_the_table() -> None:
    sql = "CREATE TABLE d.o AS SELECT m.name FROM d.h AS h, UNNEST(h.metadata) AS m"
    event = event_of(sql)
    h = TableRef("internal", "d", "h")
    (d,) = event.direct
    bad = dataclasses.replace(event, direct=(dataclasses.replace(d, sources=(ColumnRef(h, "name"),)),))
    good = dataclasses.replace(event, direct=(dataclasses.replace(d, sources=(ColumnRef(h, "metadata.name"),)),))
    assert [x.detector for x in det.detect(sql, "bigquery", bad, None, "f")] == ["b"]
    assert det.detect(sql, "bigquery", good, None, "f") == []


def test_window_detector_flags_named_window_keys_missing_from_window_lineage() -> None:
    sql = "CREATE TABLE d.o AS SELECT id, LAG(s) OVER w AS prev FROM d.t WINDOW w AS (PARTITION BY k ORDER BY v)"
    event = event_of(sql)
    t = TableRef("internal", "d", "t")
    keys = tuple(IndirectLineage(IndirectType.WINDOW, c, (ColumnRef(t, c),), target_column="prev") for c in ("k", "v"))
    assert [
        x.detector for x in det.detect(sql, "bigquery", dataclasses.replace(event, output_indirect=()), None, "f")
    ] == ["c"]
    assert det.detect(sql, "bigquery", dataclasses.replace(event, output_indirect=keys), None, "f") == []


def test_known_table_detector_flags_a_column_the_table_does_not_have() -> None:
    sql = "CREATE TABLE d.o AS SELECT a FROM d.t"
    cat = schema_from_data({"d.t": {"a": "INT64", "b": "STRING"}}, dialect="bigquery")
    event = event_of(sql)
    t = TableRef("internal", "d", "t")
    (d,) = event.direct
    bad = dataclasses.replace(event, direct=(dataclasses.replace(d, sources=(ColumnRef(t, "zz"),)),))
    assert det.detect(sql, "bigquery", event, cat, "f") == []
    assert [x.detector for x in det.detect(sql, "bigquery", bad, cat, "f")] == ["d"]


def test_gold_labels_expand_aliases_and_struct_fields(tmp_path: Path) -> None:
    write(
        tmp_path,
        "g.yaml",
        "corpus: c\nrepo: r\ncommit: x\ntables: {s: p.d.src}\ncolumns:\n"
        "  - path: f.sql\n    target: result\n    targets:\n      A: {direct: [s.(rec.f)], indirect: [s.k, other.t.c]}\n",
    )
    (label,) = rw.load_gold(tmp_path)
    assert (label.column, label.target, label.direct, label.indirect) == (
        "a",
        "result",
        {"p.d.src.rec.f"},
        {"p.d.src.k", "other.t.c"},
    )


def test_line_comments_are_stripped_outside_quotes() -> None:
    text = "SELECT a, --Most recent\n'--kept' AS b, `x--y` FROM t -- end"
    assert rw.strip_line_comments(text) == "SELECT a, \n'--kept' AS b, `x--y` FROM t "


def test_schema_includes_are_followed_or_the_table_left_out(tmp_path: Path) -> None:
    write(tmp_path, "sql/p/d/a/query.sql", "SELECT 1 AS x")
    write(
        tmp_path,
        "sql/p/d/a/schema.yaml",
        "fields:\n- {name: x, type: INTEGER}\n- {name: rec, type: RECORD, fields: [{name: f, type: STRING}]}\n",
    )
    write(tmp_path, "sql/p/d/b/query.sql", "SELECT 1 AS y")
    write(
        tmp_path,
        "sql/p/d/b/schema.yaml",
        "fields:\n- {name: y, type: STRING}\n- !include-field\n  table: p.d.a\n  field: rec\n",
    )
    write(tmp_path, "sql/p/d/c/query.sql", "SELECT 1 AS z")
    write(tmp_path, "sql/p/d/c/schema.yaml", "fields: !include-fields\n  table: p.d.a\n")
    write(tmp_path, "sql/p/d/e/query.sql", "SELECT 1 AS z")
    write(tmp_path, "sql/p/d/e/schema.yaml", "fields:\n- !include-field\n  table: p.d.missing\n  field: rec\n")
    queries = [f"sql/p/d/{t}/query.sql" for t in "abce"]
    data = rw.bigquery_etl_schema(rw.Mirror(tmp_path, None), queries)
    assert data == {
        "`p`.`d`.`a`": {"x": "INT64", "rec": "STRUCT<`f` STRING>"},
        "`p`.`d`.`b`": {"y": "STRING", "rec": "STRUCT<`f` STRING>"},
        "`p`.`d`.`c`": {"x": "INT64", "rec": "STRUCT<`f` STRING>"},
    }


def test_a_bigquery_script_s_last_query_is_the_table() -> None:
    text = "CREATE TEMP FUNCTION f(x INT64) AS (x + 1);\n-- then\nSELECT f(a) AS b FROM `p.d.s`;\n"
    sql, how = rw.wrap_bigquery_etl("sql/p/d/t/query.sql", text)
    assert how == "script-wrapped"
    assert (
        sql
        == "CREATE TEMP FUNCTION f(x INT64) AS (x + 1);\n-- then\nCREATE OR REPLACE TABLE `p.d.t` AS\nSELECT f(a) AS b FROM `p.d.s`"
    )
    assert rw.wrap_bigquery_etl("sql/p/d/t/query.sql", "DECLARE x INT64;\nDELETE FROM d.t WHERE true;") == (
        "DECLARE x INT64;\nDELETE FROM d.t WHERE true;",
        "script",
    )


def test_events_not_complete_are_told_by_cause_and_the_floor_is_what_the_corpus_cannot_know() -> None:
    """A ``*`` over a table no file defines is the floor; an ambiguity between two tables the corpus
    defines with listed columns is not (the corpus knew enough); a ``*`` over a table the corpus made
    open (CREATE TABLE AS SELECT * over an unknown one) is the floor too."""
    corpus = rw.Corpus("c", "o/r", None, "bigquery", "bigquery-etl", [])
    sqls = {
        "a.sql": "CREATE TABLE d.ext_copy AS SELECT * FROM d.ext",
        "b.sql": "CREATE TABLE d.star AS SELECT * FROM d.ext2",
        "c.sql": "CREATE TABLE d.open_star AS SELECT * FROM d.ext_copy",
        "d.sql": "CREATE TABLE d.k1 AS SELECT 1 AS a; CREATE TABLE d.k2 AS SELECT 2 AS a",
        "e.sql": "CREATE TABLE d.amb AS SELECT a FROM d.k1, d.k2",
        "f.sql": "CREATE TABLE d.fine AS SELECT a FROM d.k1",
    }
    run = rw.run_sqls(corpus, sqls, rw.Counter(), None, False)
    f = rw.figures(run)
    assert f.causes[rw.FLOOR] == 3  # a, b, c
    assert f.causes["ambiguous_column ERROR"] == 1  # e: both tables are the corpus's own
    assert sum(f.causes.values()) == f.events - f.status["COMPLETE"]
