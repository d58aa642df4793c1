"""Issue 37 item 6: different tables never merge into one node. ``[/x]`` (brackets as characters) and
``/x``, the table ``a.b`` and the table ``b`` of database ``a``, ``"q"`` and ``q`` are two nodes each;
a part that holds a dot or a quote is written in double quotes (inner quotes doubled), and that name,
as REST, gRPC and ``headwater query`` show it, finds the node again."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from headwater.cli.main import app as cli
from headwater.extract import extract_script
from headwater.service.grpc import governance_pb2 as gpb
from headwater.store import LineageStore, open_store
from tests.service.grpc.conftest import RO, Apis, apis  # noqa: F401  (fixture)

V1 = "/api/v1"
SQL = [
    "INSERT INTO d.t_brackets SELECT c FROM d.`[/x]`",
    "INSERT INTO d.t_slash SELECT c FROM d.`/x`",
    "INSERT INTO d.t_dotted SELECT c FROM d.`a.b`",
    "INSERT INTO d.t_ab SELECT c FROM a.b",
    'INSERT INTO d.t_quoted SELECT c FROM d.`"q"`',
    "INSERT INTO d.t_q SELECT c FROM d.q",
]
# each target's one source column, as stored
ORIGINS = {
    "t_brackets": 'internal.d."[/x]".c',
    "t_slash": "internal.d./x.c",
    "t_dotted": 'internal.d."a.b".c',
    "t_ab": "internal.a.b.c",
    "t_quoted": 'internal.d."""q""".c',
    "t_q": "internal.d.q.c",
}


def _record(store: LineageStore) -> None:
    for sql in SQL:
        for event in extract_script(sql, dialect="doris", statements="all").events:
            store.record(event)


def test_rest_shows_each_table_apart_and_finds_it_by_that_name(client: TestClient, api_store: LineageStore) -> None:
    _record(api_store)
    for target, origin in ORIGINS.items():
        r = client.get(f"{V1}/field-origin", params={"field": f"d.{target}.c"})
        assert r.status_code == 200, r.text
        assert [o["field"]["name"] for o in r.json()["origins"]] == [origin]
        found = client.get(f"{V1}/nodes/resolve", params={"node": origin})
        assert (found.status_code, found.json()["name"]) == (200, origin)
        short = found.json()["short"]  # "a.b".c, "[/x]".c…: the lookup key, typed back as it is shown
        again = client.get(f"{V1}/nodes/resolve", params={"node": short})
        assert again.json()["name"] == origin, short


def test_grpc_finds_a_quoted_name(apis: Apis) -> None:  # noqa: F811
    _record(apis.store)
    for target, origin in ORIGINS.items():
        answer = apis.gov.GetFieldOrigin(gpb.GetFieldOriginRequest(field_id=f"d.{target}.c"), metadata=RO)
        assert [o.field.name for o in answer.origins] == [origin]
        back = apis.gov.GetFieldOrigin(gpb.GetFieldOriginRequest(field_id=origin), metadata=RO)
        assert back.field.name == origin


def test_the_cli_shows_a_name_that_types_back(store_url: str) -> None:
    _record(open_store(store_url))
    run = CliRunner()
    for target, origin in ORIGINS.items():
        r = run.invoke(cli, ["query", "origin", "--store", store_url, "--format", "table", f"d.{target}.c"])
        assert r.exit_code == 0, r.output
        shown = re.search(r"│ (\S+) +│ 1 ", r.output)
        assert shown is not None, r.output
        back = run.invoke(cli, ["query", "impact", "--store", store_url, "--format", "json", shown[1]])
        assert back.exit_code == 0, back.output
        assert f'"name": "{origin.replace(chr(34), chr(92) + chr(34))}"' in back.output, (shown[1], back.output)


def test_openlineage_names_read_a_quoted_part_as_one(client: TestClient) -> None:
    """An OpenLineage name is a plain string; a part in quotes (any SQL quotes) is read as one identifier."""
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2024-06-01T00:00:00Z",
        "run": {"runId": "6f1f6d0c-8a5c-4d7a-9a53-1b6f4c3e2a10"},
        "job": {"namespace": "etl", "name": "load"},
        "inputs": [{"namespace": "postgres://db:5432", "name": n} for n in ("sales.`a.b`", "sales.a.b")],
        "outputs": [{"namespace": "postgres://db:5432", "name": "sales.daily"}],
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
    }
    assert client.post(f"{V1}/lineage", json=event).status_code == 201
    for typed, name, short in (
        ('sales."a.b"', 'postgres://db:5432.sales."a.b"', '"a.b"'),
        ("sales.a.b", "postgres://db:5432.sales.a.b", "b"),
    ):
        r = client.get(f"{V1}/nodes/resolve", params={"node": typed})
        assert (r.status_code, r.json()["name"], r.json()["short"]) == (200, name, short)
