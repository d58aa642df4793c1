"""(e) The warehouse recorded through OpenLineage RunEvents: headwater's own RunEvents of the three
files (``headwater extract --project --format openlineage``: extracted and named as the project ingest
does), ingested from a file into a fresh store and
POSTed to the API, give the same nodes, edges and answers as ingesting the SQL. On SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import sqlalchemy as sa
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.service import create_app
from headwater.store import open_store
from headwater.store.from_ddl import DDL_PROPERTY
from tests.pg_schema import fresh_schema_url
from tests.project.conftest import WAREHOUSE
from tests.project.test_warehouse import _figure, assert_reader_answers, ingest

runner = CliRunner()
PLACE = "hive://metastore:9083"


def run_events(*namespace: str) -> list[str]:
    """The RunEvents (JSON lines) of the warehouse's statements, as ``headwater extract --project`` gives
    them: extracted and named as the project ingest does."""
    args = [
        "extract",
        str(WAREHOUSE),
        "--project",
        "--dialect",
        "spark",
        "--schema",
        str(WAREHOUSE / "raw_schema.json"),
    ]
    fmt = ["--format", "openlineage", "--lifecycle", "complete"]  # one COMPLETE per statement
    result = runner.invoke(app, [*args, *fmt, *(x for n in namespace for x in ("--namespace", n))])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def graph(url: str) -> tuple[set[tuple[str, str]], set[tuple], dict[tuple[str, str], str | None]]:
    """Nodes, current edges (by their ends' names and the job's) and node properties of a store (but
    the DDL's: RunEvents carry no DDL, its record is the direct ingest's own)."""
    with open_store(url).engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT id, type, name, properties FROM hw_nodes")).all()
        names = {r.id: (r.type, r.name) for r in rows}
        q = "SELECT type, src_id, dst_id, subtype, dependency, expression, labels, job_id, valid_to FROM hw_edges"
        edges = {
            (
                e.type,
                names[e.src_id],
                names[e.dst_id],
                e.subtype,
                e.dependency,
                e.expression,
                e.labels,
                names.get(e.job_id),
            )
            for e in conn.execute(sa.text(q))
            if e.valid_to == 2**62
        }
    props = {
        (r.type, r.name): {k: v for k, v in json.loads(r.properties or "{}").items() if k != DDL_PROPERTY} for r in rows
    }
    return set(names.values()), edges, props


def test_e_run_events_ingested_and_posted_give_the_direct_answers(store_url: str, tmp_path: Path) -> None:
    direct = f"sqlite:///{tmp_path / 'direct.db'}"
    ingest(direct, str(WAREHOUSE))
    lines = run_events(PLACE)
    assert len(lines) == 13 and all(json.loads(x)["outputs"][0]["namespace"] == PLACE for x in lines)
    events_file = tmp_path / "warehouse.openlineage.jsonl"
    events_file.write_text("\n".join(lines) + "\n")

    result = runner.invoke(app, ["ingest", str(events_file), "--store", store_url, "--namespace", PLACE])
    assert result.exit_code == 0, result.output
    assert (_figure(result.output, "recorded"), _figure(result.output, "failed")) == (13, 0)
    assert_reader_answers(store_url)
    assert graph(store_url) == graph(direct)

    sqlite = nullcontext(f"sqlite:///{tmp_path / 'posted.db'}")
    with fresh_schema_url("hw_ol_api") if "postgresql" in store_url else sqlite as posted:
        store = open_store(posted)
        with TestClient(create_app(store)) as client:
            r = client.post("/api/v1/lineage", json=[json.loads(x) for x in lines[:5]])
            assert r.status_code == 201 and r.json()["recorded"] == 5, r.text
            r = client.post(
                "/api/v1/lineage", content="\n".join(lines[5:]), headers={"content-type": "application/json"}
            )
            assert r.status_code == 201 and r.json()["recorded"] == 8, r.text
        assert_reader_answers(posted)
        assert graph(posted) == graph(direct)


def test_direct_then_run_events_of_the_same_statements_are_duplicates(sqlite_url: str, tmp_path: Path) -> None:
    """One table, one node, one job: the RunEvents of statements recorded directly add nothing."""
    ingest(sqlite_url, str(WAREHOUSE))
    before = graph(sqlite_url)
    events_file = tmp_path / "warehouse.openlineage.jsonl"
    events_file.write_text("\n".join(run_events()) + "\n")
    result = runner.invoke(app, ["ingest", str(events_file), "--store", sqlite_url])
    assert result.exit_code == 0, result.output
    assert (_figure(result.output, "recorded"), _figure(result.output, "duplicates")) == (0, 13)
    assert graph(sqlite_url) == before
