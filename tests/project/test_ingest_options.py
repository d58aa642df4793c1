"""``headwater ingest`` options for a project: --catalog-url (and its precedence), --statements, the
cycle report, progress off a terminal, and bad input as one line."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.store import open_store
from tests.project.conftest import WAREHOUSE

runner = CliRunner()
MARIADB = "mysql+pymysql://root@127.0.0.1:3306/test"


@pytest.fixture
def live_db() -> Iterator[str]:
    """A throw-away MariaDB database with ``orders (id, amount, region)``."""
    name = f"hw_proj_{uuid.uuid4().hex[:8]}"
    engine = sa.create_engine(MARIADB)
    with engine.begin() as conn:
        conn.execute(sa.text(f"CREATE DATABASE `{name}`"))
        conn.execute(sa.text(f"CREATE TABLE `{name}`.orders (id BIGINT, amount DECIMAL(10, 2), region VARCHAR(8))"))
    try:
        yield name
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f"DROP DATABASE `{name}`"))
        engine.dispose()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["ingest", *args])
    return result.exit_code, result.output


def test_catalog_url_describes_tables_and_lists_them(live_db: str, tmp_path: Path, sqlite_url: str) -> None:
    script = tmp_path / "load.sql"
    script.write_text(
        f"CREATE TABLE rpt.o AS SELECT * FROM {live_db}.orders;\nINSERT INTO rpt.p SELECT id FROM {live_db}.order;\n"
    )
    code, out = run(str(script), "--catalog-url", MARIADB, "--store", sqlite_url)
    assert code == 0, out
    assert "not COMPLETE: 1 PARTIAL; by diagnostic: unknown_table 1" in out
    assert f"did you mean `{live_db}.orders`?" in out.replace("\n", "")
    origin = open_store(sqlite_url).get_field_origin("rpt.o.region").origins
    assert [o.field.name for o in origin] == [f"internal.{live_db}.orders.region"]


def test_schema_file_comes_before_the_live_database(live_db: str, tmp_path: Path, sqlite_url: str) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(f'{{"{live_db}.orders": {{"id": "bigint", "total": "double"}}}}')
    script = tmp_path / "load.sql"
    script.write_text(f"CREATE TABLE rpt.o AS SELECT * FROM {live_db}.orders;\n")
    code, out = run(str(script), "--schema", str(schema), "--catalog-url", MARIADB, "--store", sqlite_url)
    assert code == 0, out
    store = open_store(sqlite_url)
    assert [o.field.name for o in store.get_field_origin("rpt.o.total").origins] == [f"internal.{live_db}.orders.total"]


def test_statements_all_records_selects(tmp_path: Path, sqlite_url: str) -> None:
    script = tmp_path / "q.sql"
    script.write_text("SELECT ss_net_paid AS paid FROM tpcds.store_sales;\n")
    schema = str(WAREHOUSE / "raw_schema.json")
    code, out = run(str(script), "--schema", schema, "--store", sqlite_url)
    assert code == 0 and "│     1 │          1 │      0 │" in out, out
    code, out = run(str(script), "--schema", schema, "--statements", "all", "--store", sqlite_url)
    assert code == 0 and "│     1 │          1 │      1 │        1 │" in out, out


def test_a_cycle_is_reported_and_name_order_kept(tmp_path: Path, sqlite_url: str) -> None:
    (tmp_path / "a.sql").write_text("CREATE TABLE db.x AS SELECT id FROM db.y;\n")
    (tmp_path / "b.sql").write_text("CREATE TABLE db.y AS SELECT id FROM db.x;\n")
    code, out = run(str(tmp_path / "b.sql"), str(tmp_path / "a.sql"), "--store", sqlite_url)
    assert code == 0, out
    assert "the files a.sql, b.sql read tables one another writes (a cycle): they run in name order" in out


def test_a_cycle_upstream_holds_back_only_its_own_files(tmp_path: Path, sqlite_url: str) -> None:
    """A two-file cycle (m1, m2) upstream of other files: only m1 and m2 are in doubt; a_report.sql,
    first in name order, still runs after m1.sql writes the table it reads (its ``*`` expands)."""
    (tmp_path / "m1.sql").write_text(
        "CREATE TABLE db.x AS SELECT y.id, s.amount FROM db.y JOIN src.s ON s.id = y.id;\n"
    )
    (tmp_path / "m2.sql").write_text("CREATE TABLE db.y AS SELECT id, amount FROM db.x;\n")
    (tmp_path / "a_report.sql").write_text("CREATE TABLE rpt.r AS SELECT * FROM db.x;\n")
    (tmp_path / "b_final.sql").write_text("CREATE TABLE rpt.f AS SELECT amount FROM rpt.r;\n")
    code, out = run(str(tmp_path), "--store", sqlite_url)
    assert code == 0, out
    assert "the files m1.sql, m2.sql read tables one another writes (a cycle): they run in name order" in out
    store = open_store(sqlite_url)
    assert [o.field.name for o in store.get_field_origin("rpt.f.amount").origins] == ["internal.src.s.amount"]


def test_no_progress_bars_when_stdout_is_not_a_terminal(sqlite_url: str) -> None:
    code, out = run(
        str(WAREHOUSE), "--dialect", "spark", "--schema", str(WAREHOUSE / "raw_schema.json"), "--store", sqlite_url
    )
    assert code == 0, out
    assert out.lstrip().startswith("ingest") and "stmt/s" not in out and "ingesting" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dialect", "sparkk"], "unknown dialect 'sparkk'"),
        (["--schema", "/nonexistent/schema.json"], "error: /nonexistent/schema.json: cannot read"),
        (["--catalog-url", "mysql+pymysql://root@127.0.0.1:1/x"], "error: cannot connect to"),
    ],
)
def test_bad_options_are_one_line_exit_2(args: list[str], message: str, sqlite_url: str) -> None:
    code, out = run(str(WAREHOUSE / "01_staging.sql"), *args, "--store", sqlite_url)
    assert code == 2, out
    assert message in out and "Traceback" not in out


def test_progress_counts_statements_inside_files_on_a_terminal(sqlite_url: str, monkeypatch) -> None:
    import io

    from rich.console import Console

    from headwater.cli import ingest_cmd

    screen = io.StringIO()
    monkeypatch.setattr(ingest_cmd, "Console", lambda: Console(file=screen, force_terminal=True, width=100))
    code, _ = run(
        str(WAREHOUSE), "--dialect", "spark", "--schema", str(WAREHOUSE / "raw_schema.json"), "--store", sqlite_url
    )
    assert code == 0
    shown = screen.getvalue()
    assert "19/19" in shown and "ingesting 03_reports.sql" in shown, shown


def test_namespace_maps_run_events_onto_the_catalogs_nodes(tmp_path: Path, sqlite_url: str) -> None:
    """One table, one node: RunEvents in a real namespace meet what was recorded directly."""
    from headwater.extract import extract_script
    from headwater.model.ol_naming import OpenLineageNaming, Place
    from headwater.model.openlineage import run_event_json

    sql = "INSERT INTO ux_hw.summary SELECT SUM(amount) AS total FROM ux_hw.orders"
    event = extract_script(sql).events[0]
    naming = OpenLineageNaming({"internal": Place("mysql://127.0.0.1:3306")})
    events = tmp_path / "events.jsonl"
    events.write_text(run_event_json(event, naming=naming) + "\n")
    assert '"namespace": "mysql://127.0.0.1:3306"' in events.read_text()
    code, out = run(str(events), "--namespace", "internal=mysql://127.0.0.1:3306", "--store", sqlite_url)
    assert code == 0, out
    store = open_store(sqlite_url)
    origin = store.get_field_origin("summary.total").origins
    assert [o.field.name for o in origin] == ["internal.ux_hw.orders.amount"]
    with store.engine.connect() as conn:
        names = conn.execute(sa.text("SELECT name FROM hw_nodes WHERE type = 'DATASET' ORDER BY name")).scalars()
        assert list(names) == ["internal.ux_hw.orders", "internal.ux_hw.summary"]


def test_a_bad_namespace_is_one_line(sqlite_url: str) -> None:
    code, out = run(str(WAREHOUSE / "01_staging.sql"), "--namespace", "hive=", "--store", sqlite_url)
    assert code == 2 and out.startswith("error: --namespace: namespace of catalog 'hive'"), out


def test_a_view_only_the_live_database_knows_is_read_through(live_db: str, tmp_path: Path, sqlite_url: str) -> None:
    engine = sa.create_engine(MARIADB)
    with engine.begin() as conn:
        conn.execute(
            sa.text(f"CREATE VIEW `{live_db}`.v_orders AS SELECT id, amount * 2 AS doubled FROM `{live_db}`.orders")
        )
    engine.dispose()
    script = tmp_path / "load.sql"
    script.write_text(f"CREATE TABLE rpt.d AS SELECT doubled FROM {live_db}.v_orders;\n")
    code, out = run(str(script), "--catalog-url", MARIADB, "--store", sqlite_url)
    assert code == 0 and "not COMPLETE" not in out, out
    store = open_store(sqlite_url)
    assert [o.field.name for o in store.get_field_origin("rpt.d.doubled").origins] == [
        f"internal.{live_db}.orders.amount"
    ]
    view = store.resolve(f"{live_db}.v_orders")  # the via list: a VIEW read by the job
    assert view.properties.get("dataset_type") == "VIEW"
    up = store.get_upstream("rpt.d", max_depth=1, node_types=["DATASET"])
    assert sorted(n.name for n in up.nodes) == [
        f"internal.{live_db}.orders",
        f"internal.{live_db}.v_orders",
        "internal.rpt.d",
    ]
