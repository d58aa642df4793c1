"""Issue 34 item 11 / 38: under ``--statements all``, ``extract --format openlineage`` gives table DDL
as runs whose output carries the ``lifecycleStateChange`` facet (CREATE without a query, ALTER,
RENAME with ``previousIdentifier``, TRUNCATE, DROP), each event and facet valid against the spec's
JSON Schemas (``../shared/openlineage-spec``, skipped without it)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.model.test_openlineage_conformance import RUN_EVENT, SPEC, _facets, _registry, _validate
from typer.testing import CliRunner

from headwater.cli.main import app

SQL = """
CREATE TABLE db.a (x INT, note VARCHAR(20));
INSERT INTO db.b SELECT x FROM db.a;
ALTER TABLE db.a ADD COLUMN y INT;
USE other;
TRUNCATE TABLE b2;
DROP TABLE db.a;
"""


def _lines(*args: str) -> list[dict[str, Any]]:
    r = CliRunner().invoke(app, ["extract", "-", "--format", "openlineage", *args], input=SQL)
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.stdout.splitlines()]


def _state(doc: dict[str, Any]) -> tuple[str, str, str | None]:
    [out] = doc["outputs"]
    facet = out["facets"].get("lifecycleStateChange")
    return doc["eventType"], out["name"], facet["lifecycleStateChange"] if facet else None


@pytest.mark.skipif(not (SPEC / "OpenLineage.json").is_file(), reason=f"no OpenLineage spec files at {SPEC}")
def test_ddl_runs_carry_the_lifecycle_state_change_and_validate() -> None:
    registry = _registry()
    docs = _lines("--statements", "all")
    assert [_state(d) for d in docs] == [
        ("START", "db.a", "CREATE"),
        ("COMPLETE", "db.a", "CREATE"),
        ("START", "db.b", None),
        ("COMPLETE", "db.b", None),
        ("START", "db.a", "ALTER"),
        ("COMPLETE", "db.a", "ALTER"),
        ("START", "other.b2", "TRUNCATE"),
        ("COMPLETE", "other.b2", "TRUNCATE"),
        ("START", "db.a", "DROP"),
        ("COMPLETE", "db.a", "DROP"),
    ]
    create = docs[1]["outputs"][0]["facets"]["schema"]["fields"]
    assert [(f["name"], f["type"]) for f in create] == [("x", "INT"), ("note", "VARCHAR(20)")]
    assert docs[8]["run"]["runId"] == docs[9]["run"]["runId"] != docs[1]["run"]["runId"]
    for doc in docs:
        _validate(doc, RUN_EVENT, registry)
        for _, facet in _facets(doc):
            if not facet["_schemaURL"].startswith("https://github.com/headwater"):
                _validate(facet, facet["_schemaURL"], registry)


def test_a_rename_names_the_previous_identifier() -> None:
    from headwater.model.ol_ddl import ddl_run_events

    [event] = ddl_run_events("ALTER TABLE db.b RENAME TO db.c", "doris")
    facet = event.outputs[0].facets["lifecycleStateChange"]
    assert (event.outputs[0].name, facet.lifecycleStateChange.value) == ("db.c", "RENAME")
    assert (facet.previousIdentifier.namespace, facet.previousIdentifier.name) == ("headwater", "db.b")


def test_without_statements_all_ddl_makes_no_event() -> None:
    assert [_state(d)[2] for d in _lines("--lifecycle", "complete")] == [None]


def test_project_mode_gives_the_ddl_runs_too(tmp_path) -> None:
    """``extract --project --statements all``: each file's table DDL is a run with the facet, in the
    files' running order; a ``USE`` in one file holds for the files after it (one session)."""
    (tmp_path / "a.sql").write_text("USE db;\nCREATE TABLE a (x INT);\nINSERT INTO b SELECT x FROM a;\n")
    (tmp_path / "b.sql").write_text("TRUNCATE TABLE b;\nDROP TABLE a;\n")
    args = ["extract", "--project", str(tmp_path), "--format", "openlineage", "--lifecycle", "complete"]
    r = CliRunner().invoke(app, [*args, "--statements", "all"])
    assert r.exit_code == 0, r.output
    docs = [json.loads(x) for x in r.stdout.splitlines()]
    assert [_state(d) for d in docs] == [
        ("COMPLETE", "db.a", "CREATE"),
        ("COMPLETE", "db.b", None),
        ("COMPLETE", "db.b", "TRUNCATE"),
        ("COMPLETE", "db.a", "DROP"),
    ]
    assert len({d["run"]["runId"] for d in docs}) == 4
    r = CliRunner().invoke(app, args)  # without --statements all: the lineage only
    assert [_state(json.loads(x))[2] for x in r.stdout.splitlines()] == [None]


@pytest.mark.parametrize(("dialect", "name"), [("postgres", "d.events"), ("bigquery", "d.Events")])
def test_a_ddl_run_names_its_table_as_the_lineage_events_do(dialect: str, name: str) -> None:
    """PostgreSQL folds an unquoted name to lower case; BigQuery's table names are case-sensitive."""
    args = ["extract", "-", "--format", "openlineage", "--statements", "all", "--dialect", dialect]
    r = CliRunner().invoke(app, [*args, "--lifecycle", "complete"], input="DROP TABLE d.Events;")
    assert r.exit_code == 0, r.output
    assert [_state(json.loads(x))[1] for x in r.stdout.splitlines()] == [name]
