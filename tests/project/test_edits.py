"""A project edited and ingested again (issue 11, deliverable 4): an edited statement is a new version
of the same job and its old source stops being current; a statement deleted from a file and a file
removed from the project (``--prune``) close their jobs; ``as_of`` before each change still shows the
lineage as it was. On SQLite and PostgreSQL, through ``headwater ingest`` of a copy of the warehouse."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import open_store
from headwater.store.names import now_us
from tests.project.conftest import WAREHOUSE
from tests.project.test_warehouse import RETURNS, SALES, _figure, ingest

COLUMN = "rpt.exec_summary.store_channel_revenue"
OLD_LINE = "c.net_revenue AS store_channel_revenue"
NEW_LINE = "c.returns_value AS store_channel_revenue"
TREND = """CREATE TABLE rpt.customer_trend USING parquet AS
SELECT customer_id, sold_year, yearly_revenue,
       yearly_revenue - LAG(yearly_revenue) OVER (PARTITION BY customer_id ORDER BY sold_year) AS revenue_change
FROM mart.v_customer_360;
"""


def _short(name: str) -> str:
    return name.removeprefix("internal.")


def _project(tmp_path: Path) -> Path:
    wh = tmp_path / "warehouse"
    shutil.copytree(WAREHOUSE, wh)
    return wh


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def _between_runs() -> int:
    """A time after the previous run and before the next (the store's times are microseconds)."""
    time.sleep(0.005)
    at = now_us()
    time.sleep(0.005)
    return at


def _origins(url: str, column: str, as_of: int | None = None) -> list[str]:
    origin = open_store(url).get_field_origin(column, level="direct", as_of=as_of)
    return sorted(_short(o.field.name) for o in origin.origins)


def _sources(url: str, column: str, as_of: int | None = None) -> list[str]:
    """The fields ``column``'s value comes from, one hop upstream (DIRECT edges)."""
    up = open_store(url).get_upstream(column, max_depth=1, node_types=["FIELD"], as_of=as_of)
    names = {n.id: _short(n.name) for n in up.nodes}
    root = up.root.id
    return sorted(names[e.source] for e in up.edges if e.target == root and e.dependency == "DIRECT")


def _writers(url: str, table: str, as_of: int | None = None) -> list[str]:
    up = open_store(url).get_upstream(table, max_depth=1, node_types=["JOB"], as_of=as_of)
    return sorted(n.name.removeprefix("job:") for n in up.nodes if n.type == "JOB")


def test_c_an_edited_statement_is_a_new_version_and_its_old_source_is_closed(store_url: str, tmp_path: Path) -> None:
    wh = _project(tmp_path)
    ingest(store_url, str(wh))
    assert _sources(store_url, COLUMN) == ["mart.channel_summary.net_revenue"]
    before = _between_runs()
    _edit(wh / "03_reports.sql", OLD_LINE, NEW_LINE)
    out = ingest(store_url, str(wh))
    assert "jobs closed" not in out, out  # an edit closes no job: the same job has a new version

    assert _sources(store_url, COLUMN) == ["mart.channel_summary.returns_value"]
    assert _origins(store_url, COLUMN) == RETURNS
    history = open_store(store_url).job_history("exec_summary")
    assert [v.version for v in history.versions] == [1, 2] and history.closed is None
    assert OLD_LINE in (history.versions[0].sql or "") and NEW_LINE in (history.versions[1].sql or "")
    assert history.versions[0].valid_to is not None and history.versions[1].valid_to is None
    assert (history.versions[1].file, history.versions[1].line) == (
        "03_reports.sql",
        23,
    )  # the INSERT, under its "-- name:"
    assert _writers(store_url, "rpt.exec_summary") == ["exec_summary"]  # one job, not two
    # the job node shows its current statement; `query job` every version's
    assert NEW_LINE in open_store(store_url).job_history("exec_summary").job.properties["sql"]
    args = ["query", "job", "exec_summary", "--format", "json", "--store", store_url]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    sqls = [v["sql"] for v in json.loads(shown.output)["versions"]]
    assert [OLD_LINE in s for s in sqls] == [True, False] and NEW_LINE in sqls[1]

    # before the edit: the old source, and only it
    assert _sources(store_url, COLUMN, as_of=before) == ["mart.channel_summary.net_revenue"]
    assert _origins(store_url, COLUMN, as_of=before) == SALES


def test_d_a_statement_deleted_from_a_file_closes_its_job(store_url: str, tmp_path: Path) -> None:
    wh = _project(tmp_path)
    ingest(store_url, str(wh))
    trend = "rpt.customer_trend.revenue_change"
    assert _writers(store_url, "rpt.customer_trend") == ["03_reports.sql#2"]
    before = _between_runs()
    _edit(wh / "03_reports.sql", TREND, "")
    out = ingest(store_url, str(wh))
    assert "jobs closed, no longer in their file: 1 (03_reports.sql#2)" in out, out

    assert _writers(store_url, "rpt.customer_trend") == []
    assert _origins(store_url, trend) == [trend]  # no current writer: the field is its own origin
    assert open_store(store_url).job_history("03_reports.sql#2").closed is not None
    # the other statements of the file stay current
    assert _writers(store_url, "rpt.top_customers") == ["03_reports.sql#1"]
    assert _origins(store_url, COLUMN) == SALES
    # before the deletion it is still there
    assert _writers(store_url, "rpt.customer_trend", as_of=before) == ["03_reports.sql#2"]
    assert _origins(store_url, trend, as_of=before) == sorted(SALES + RETURNS)
    again = ingest(store_url, str(wh))  # nothing left to close
    assert "jobs closed" not in again, again


def test_a_file_with_a_failed_statement_closes_nothing(sqlite_url: str, tmp_path: Path) -> None:
    """A statement that does not parse is broken, not removed: its job (and those after it) stay."""
    wh = _project(tmp_path)
    ingest(sqlite_url, str(wh))
    _edit(wh / "03_reports.sql", "FROM mart.v_customer_360;", "FROM mart.v_customer_360 WHERE (;")
    args = ["ingest", str(wh), "--dialect", "spark", "--schema", str(wh / "raw_schema.json"), "--store", sqlite_url]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "jobs not closed in 03_reports.sql: a statement failed" in result.output, result.output
    assert "jobs closed" not in result.output
    assert _writers(sqlite_url, "rpt.customer_trend") == ["03_reports.sql#2"]


def test_e_a_file_removed_from_the_project_is_closed_with_prune(store_url: str, tmp_path: Path) -> None:
    wh = _project(tmp_path)
    ingest(store_url, str(wh))
    before = _between_runs()
    (wh / "03_reports.sql").unlink()
    out = ingest(store_url, str(wh))  # without --prune the file's jobs stay
    assert "jobs closed" not in out, out
    assert _writers(store_url, "rpt.exec_summary") == ["exec_summary"]

    out = ingest(store_url, str(wh), "--prune")
    assert "jobs closed, their file no longer in the project (--prune): 3 " in out, out
    assert "(03_reports.sql#1, 03_reports.sql#2, exec_summary)" in out
    for table in ("rpt.top_customers", "rpt.customer_trend", "rpt.exec_summary"):
        assert _writers(store_url, table) == [], table
    assert _origins(store_url, COLUMN) == [COLUMN]  # no current writer: the field is its own origin
    # the files still in the project keep their lineage
    assert _writers(store_url, "mart.channel_summary") == ["02_marts.sql#5"]
    assert _origins(store_url, "mart.channel_summary.returns_value") == RETURNS
    assert _origins(store_url, COLUMN, as_of=before) == SALES


def test_prune_of_a_subdirectory_leaves_the_files_outside_it(sqlite_url: str, tmp_path: Path) -> None:
    """``--prune`` with ``--root``: only the project files below the directory given are the project."""
    wh = _project(tmp_path)
    (wh / "rpt").mkdir()
    (wh / "03_reports.sql").rename(wh / "rpt" / "03_reports.sql")
    ingest(sqlite_url, str(wh))
    assert _writers(sqlite_url, "rpt.exec_summary") == ["exec_summary"]
    out = ingest(sqlite_url, str(wh / "rpt"), "--root", str(wh), "--prune")  # all of rpt/: nothing left it
    assert "jobs closed" not in out, out

    (wh / "rpt" / "03_reports.sql").unlink()
    (wh / "rpt" / "notes.sql").write_text("SELECT 1;\n")
    out = ingest(sqlite_url, str(wh / "rpt"), "--root", str(wh), "--prune")
    assert "(--prune): 3 (exec_summary, rpt/03_reports.sql#1, rpt/03_reports.sql#2)" in out, out
    assert _writers(sqlite_url, "rpt.exec_summary") == []
    assert _writers(sqlite_url, "mart.channel_summary") == ["02_marts.sql#5"]  # outside rpt/: kept
    assert _writers(sqlite_url, "stg.stg_sales") == ["stg_sales"]


def test_prune_needs_sql_files(sqlite_url: str, tmp_path: Path) -> None:
    events = tmp_path / "none.jsonl"
    events.write_text("")
    result = CliRunner().invoke(app, ["ingest", str(events), "--prune", "--store", sqlite_url])
    assert result.exit_code == 2, result.output
    assert "--prune needs the project's SQL files" in result.output


def test_a_deleted_statement_restored_with_the_same_text_reopens_its_job(store_url: str, tmp_path: Path) -> None:
    """The restored statement's event has the id recorded before the deletion: it is a new run, not a
    replay, and its job a new version from the restore on."""
    wh = _project(tmp_path)
    reports = wh / "03_reports.sql"
    original = reports.read_text()
    trend = "rpt.customer_trend.revenue_change"
    ingest(store_url, str(wh))
    at_first = _between_runs()
    _edit(reports, TREND, "")
    assert "jobs closed, no longer in their file: 1 (03_reports.sql#2)" in ingest(store_url, str(wh))
    at_deleted = _between_runs()
    reports.write_text(original)
    out = ingest(store_url, str(wh))
    # recorded: the restored statement (exec_summary's position in the file, so its event id, is the
    # first run's again: the same statement as its latest run, a duplicate)
    assert "jobs closed" not in out and _figure(out, "recorded") == 1, out
    at_restored = _between_runs()
    again = ingest(store_url, str(wh))  # unchanged: nothing new, nothing closed
    assert "jobs closed" not in again and _figure(again, "recorded") == 0, again

    for at, writers in ((at_first, ["03_reports.sql#2"]), (at_deleted, []), (at_restored, ["03_reports.sql#2"])):
        assert _writers(store_url, "rpt.customer_trend", as_of=at) == writers, at
        assert _origins(store_url, trend, as_of=at) == (sorted(SALES + RETURNS) if writers else [trend]), at
    assert _writers(store_url, "rpt.customer_trend") == ["03_reports.sql#2"]
    assert _origins(store_url, trend) == sorted(SALES + RETURNS)
    history = open_store(store_url).job_history("03_reports.sql#2")
    assert history.closed is None and [v.version for v in history.versions] == [1, 2]
    first, second = history.versions
    assert first.valid_to is not None and at_first < first.valid_to.timestamp() * 1e6 < at_deleted
    assert second.valid_to is None and at_deleted < second.valid_from.timestamp() * 1e6 < at_restored
    assert first.sql == second.sql and "LAG(yearly_revenue)" in (second.sql or "")


def test_an_edit_undone_brings_the_first_text_back(sqlite_url: str, tmp_path: Path) -> None:
    """A → B → A: the third ingest's event has the first one's id, and its lineage is current again."""
    wh = _project(tmp_path)
    reports = wh / "03_reports.sql"
    ingest(sqlite_url, str(wh))
    _edit(reports, OLD_LINE, NEW_LINE)
    ingest(sqlite_url, str(wh))
    at_edited = _between_runs()
    _edit(reports, NEW_LINE, OLD_LINE)
    ingest(sqlite_url, str(wh))
    assert _sources(sqlite_url, COLUMN) == ["mart.channel_summary.net_revenue"]
    assert _origins(sqlite_url, COLUMN) == SALES
    assert _sources(sqlite_url, COLUMN, as_of=at_edited) == ["mart.channel_summary.returns_value"]
    versions = open_store(sqlite_url).job_history("exec_summary").versions
    assert [(v.version, OLD_LINE in (v.sql or "")) for v in versions] == [(1, True), (2, False), (3, True)]


def test_a_new_version_keeps_what_a_project_stated_of_the_job(store_url: str, tmp_path: Path) -> None:
    """A new version replaces a job node's own properties (its SQL) but keeps the ``dbt.*`` ones."""
    wh = _project(tmp_path)
    ingest(store_url, str(wh))
    job = open_store(store_url).job_history("exec_summary").job
    assert open_store(store_url).set_node_properties({(job.type, job.name): {"dbt.layer": "reports"}}, "dbt.") == 1
    _edit(wh / "03_reports.sql", OLD_LINE, NEW_LINE)
    ingest(store_url, str(wh))
    props = open_store(store_url).job_history("exec_summary").job.properties
    assert NEW_LINE in props["sql"] and props["dbt.layer"] == "reports"
