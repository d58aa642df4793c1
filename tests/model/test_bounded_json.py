"""JSON nested too deep is refused before decoding: over the API (400, not 500), in ``ingest`` (that
line fails with its number, the others are recorded) and in the decoders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.store.conftest import copy_event, guide
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.model import EventFormatError, event_from_json, event_to_dict, event_to_json
from headwater.model.bounded_json import MAX_JSON_DEPTH, JsonTooDeep, check_depth, loads
from headwater.service import create_app
from headwater.store import open_store

DEEP = "[" * 1000 + "]" * 1000
DEEP_EVENT = '{"event_id": "x", "context": ' + "{" + '"a":{' * 999 + "}" * 1000 + "}"


def test_depth_is_counted_outside_strings_and_at_the_bound() -> None:
    assert loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    assert loads(json.dumps({"s": "[" * 5000 + "{" * 5000})) == {"s": "[" * 5000 + "{" * 5000}
    assert loads(json.dumps([{"q": '"\\"[[['}] * 300)) == [{"q": '"\\"[[['}] * 300  # wide, not deep
    with pytest.raises(JsonTooDeep) as exc:
        loads("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert exc.value.pos == MAX_JSON_DEPTH and exc.value.lineno == 1
    with pytest.raises(JsonTooDeep):
        loads(DEEP.encode())
    with pytest.raises(JsonTooDeep):
        check_depth("[" * 300)  # unterminated, and too deep before its end
    with pytest.raises(json.JSONDecodeError):
        loads("[" * 10 + "}" * 200)  # unbalanced, not deep: the decoder's own error


def test_decoders_refuse_deep_json_as_a_format_error() -> None:
    with pytest.raises(EventFormatError, match="nested deeper than 128 levels"):
        event_from_json(DEEP_EVENT)


@pytest.mark.parametrize("path", ["/api/v1/events", "/api/v1/lineage"])
@pytest.mark.parametrize("body", [DEEP, DEEP_EVENT, DEEP + "\n" + DEEP], ids=["array", "object", "lines"])
def test_the_api_answers_deep_json_with_400(tmp_path: Path, path: str, body: str) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'l.db'}")
    with TestClient(create_app(store), raise_server_exceptions=False) as client:
        r = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        at = [k for k, c in enumerate(body) if c in "[{"][MAX_JSON_DEPTH]  # the 129th opening bracket
        assert r.json()["error"] == {
            "field": "body",
            "message": f"not accepted: nested deeper than {MAX_JSON_DEPTH} levels (arrays and objects): "
            f"line 1 column {at + 1} (char {at})",
        }
        r = client.post("/api/v1/events", json=event_to_dict(guide()))  # the server goes on
        assert r.status_code == 201


def test_ingest_fails_the_deep_line_alone_with_its_number(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    good = event_to_json(guide())
    other = event_to_json(copy_event("report", {"amt": [("lineage_customer_summary", "total_amount")]}))
    f = tmp_path / "events.jsonl"
    f.write_text(f"{good}\n{DEEP_EVENT}\n{other}\n")
    r = CliRunner().invoke(app, ["ingest", str(f), "--store", store])
    assert r.exit_code == 1, r.output
    assert "events.jsonl:2: not JSON (nested deeper than 128 levels" in " ".join(r.output.split())
    assert "Traceback" not in r.output
    assert open_store(store).get_lineage_stats().events_recorded == 2
