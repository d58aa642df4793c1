"""``headwater.project``: job names of statements, event ids that do not depend on how files are
grouped into commands, and the file order."""

from __future__ import annotations

from pathlib import Path

from headwater.catalog import load_schema_file
from headwater.extract.split import split_script
from headwater.model import TableRef
from headwater.model.job import JOB_FILE_PROPERTY, JOB_LINE_PROPERTY, JOB_PROPERTY
from headwater.project import ProjectContext, collect_files, order_files, project_root
from tests.project.conftest import FILES, WAREHOUSE


def _jobs(extraction) -> list[tuple[str, str, str, str]]:
    out = []
    for e in extraction.events:
        p = e.context.external_catalog_properties
        out.append((p[JOB_PROPERTY], p[JOB_FILE_PROPERTY], p[JOB_LINE_PROPERTY], e.target.table.qualified))
    return out


def test_job_names_ordinals_and_given_names() -> None:
    ctx = ProjectContext(load_schema_file(WAREHOUSE / "raw_schema.json", dialect="spark"), dialect="spark")
    marts = None
    for f in FILES:
        got = ctx.extract(f, (WAREHOUSE / f).read_text())
        if f == "02_marts.sql":
            marts = got
    assert _jobs(marts) == [
        ("fct_sales", "02_marts.sql", "16", "mart.fct_sales"),
        ("02_marts.sql#2", "02_marts.sql", "25", "mart.fct_returns"),
        ("02_marts.sql#3", "02_marts.sql", "31", "mart.dim_customer"),
        ("02_marts.sql#5", "02_marts.sql", "43", "mart.channel_summary"),  # #4: the temporary view
        ("02_marts.sql#6", "02_marts.sql", "50", "mart.v_customer_360"),
    ]
    assert all(e.status.value == "COMPLETE" for e in marts.events)


def test_event_ids_do_not_depend_on_the_grouping_of_files() -> None:
    schema = load_schema_file(WAREHOUSE / "raw_schema.json", dialect="spark")
    together = ProjectContext(schema, dialect="spark")
    ids_together = [e.event_id for f in FILES for e in together.extract(f, (WAREHOUSE / f).read_text()).events]
    alone = ProjectContext(schema, dialect="spark")
    first = alone.extract(FILES[0], (WAREHOUSE / FILES[0]).read_text()).events
    again = ProjectContext(alone.extractor.catalog, dialect="spark")  # another command, same knowledge
    rest = [e for f in FILES[1:] for e in again.extract(f, (WAREHOUSE / f).read_text()).events]
    assert [e.event_id for e in [*first, *rest]] == ids_together
    text = (WAREHOUSE / FILES[0]).read_text().replace("d_year AS sold_year", "d_year + 0 AS sold_year")
    edited = ProjectContext(schema, dialect="spark").extract(FILES[0], text).events
    assert [e.event_id in ids_together for e in edited] == [True, True, True, True, False]  # the edited one


def test_a_multi_insert_names_one_job_per_target() -> None:
    ctx = ProjectContext(dialect="spark")
    sql = "-- name: split\nFROM raw.t INSERT INTO a.x SELECT k INSERT INTO a.y SELECT v"
    assert [j[0] for j in _jobs(ctx.extract("m.sql", sql))] == ["split→a.x", "split→a.y"]


def test_order_follows_use_and_ignores_ctes() -> None:
    files = {
        "a.sql": "USE mart;\nINSERT INTO rpt.r WITH fct AS (SELECT 1 AS n) SELECT * FROM fct JOIN dim USING (n)",
        "b.sql": "CREATE TABLE mart.dim AS SELECT 1 AS n",
        "c.sql": "CREATE TABLE mart.fct AS SELECT 1 AS n",  # a CTE of a.sql has its name: no dependency
    }
    order = order_files({k: split_script(v, "spark") for k, v in files.items()}, "spark")
    assert (order.order, order.cycle) == (["b.sql", "a.sql", "c.sql"], None)


def test_collect_files_and_root(tmp_path: Path) -> None:
    (tmp_path / "marts").mkdir()
    for name in ("marts/b.sql", "marts/a.sql", "stg.sql", "schema.json", "events.jsonl"):
        (tmp_path / name).write_text("SELECT 1")
    root = project_root([tmp_path / "marts", tmp_path / "stg.sql"])
    assert root == tmp_path.resolve()
    files = collect_files([tmp_path / "stg.sql", tmp_path / "marts", tmp_path / "marts" / "a.sql"], root)
    assert [f.relpath for f in files] == ["stg.sql", "marts/a.sql", "marts/b.sql"]


def test_views_and_temporary_views_of_one_file_bind_the_next() -> None:
    ctx = ProjectContext(dialect="spark")
    ctx.extract("a.sql", "CREATE TEMPORARY VIEW tv AS SELECT 1 AS k, 'x' AS label;\nCREATE VIEW m.v AS SELECT 2 AS n")
    e1, e2 = ctx.extract("b.sql", "CREATE TABLE r.t AS SELECT * FROM tv;\nCREATE TABLE r.u AS SELECT * FROM m.v").events
    assert [f.name for f in e1.target.columns] == ["k", "label"]
    assert [f.name for f in e2.target.columns] == ["n"] and e2.sources == (TableRef("internal", "m", "v"),)
    assert str(e2.direct[0].inputs[0].column) == "internal.m.v.n"  # the view is read as a dataset
