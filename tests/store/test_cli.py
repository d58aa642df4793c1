"""``headwater ingest`` / ``query`` / ``db upgrade`` through the real command line app."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.store.conftest import copy_event, guide
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.dispatch.spi import PluginContext
from headwater.model import event_to_json
from headwater.plugins.jsonl import JsonlPluginFactory

runner = CliRunner()


def test_db_upgrade_ingest_sql_and_query(tmp_path: Path) -> None:
    from headwater.cli.extract_cmd import guide_script

    store = str(tmp_path / "l.db")
    r = runner.invoke(app, ["db", "upgrade", "--store", store])
    assert r.exit_code == 0 and "0007" in r.output
    sql = tmp_path / "guide.sql"
    sql.write_text(guide_script())
    r = runner.invoke(app, ["ingest", str(sql), "--store", store])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["query", "stats", "--store", store, "--format", "json"])
    assert json.loads(r.output)["events_recorded"] == 1
    r = runner.invoke(
        app, ["query", "origin", "lineage_customer_summary.total_amount", "--store", store, "--format", "json"]
    )
    assert r.exit_code == 0
    assert [o["field"]["short"] for o in json.loads(r.output)["origins"]] == ["lineage_orders.amount"]
    r = runner.invoke(app, ["ingest", str(sql), "--store", store])  # replay
    assert r.exit_code == 0 and "│     1 │          9 │      1 │        0 │          1 │" in r.output


def test_ingest_jsonl_reports_bad_lines(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    good = event_to_json(guide())
    other = event_to_json(copy_event("report", {"amt": [("lineage_customer_summary", "total_amount")]}))
    f = tmp_path / "events.jsonl"
    f.write_text(f"{good}\n{{broken\n{other}\n")
    r = runner.invoke(app, ["ingest", str(f), "--store", store])
    assert r.exit_code == 1
    assert "events.jsonl:2: not JSON" in r.output
    for cmd in (
        ["upstream", "report"],
        ["downstream", "lineage_orders", "--depth", "1"],
        ["impact", "lineage_orders.amount"],
        ["trace", "report.amt"],
        ["summary", "report"],
        ["analyze", "lineage_orders", "--column", "amount"],
        ["stats"],
    ):
        r = runner.invoke(app, ["query", *cmd, "--store", store])
        assert r.exit_code == 0, (cmd, r.output)
    r = runner.invoke(app, ["query", "upstream", "report", "--store", store, "--format", "json"])
    assert {n["short"] for n in json.loads(r.output)["nodes"] if n["type"] == "DATASET"} == {
        "report",
        "lineage_customer_summary",
        "lineage_orders",
        "lineage_customers",
    }
    r = runner.invoke(app, ["query", "summary", "nope", "--store", store])
    assert r.exit_code == 2 and "no node matches" in r.output


def test_ingest_reads_the_jsonl_plugins_rotated_files_as_events(tmp_path: Path) -> None:
    path = tmp_path / "log" / "lineage.jsonl"
    context = PluginContext("jsonl", None, {"path": str(path), "max_bytes": 1})  # rotate before every event
    plugin = JsonlPluginFactory().create(context)
    plugin.initialize(context)
    for target in ("a", "b", "c"):
        plugin.exec(copy_event(target, {"x": [("lineage_orders", "amount")]}))
    plugin.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["lineage.jsonl", "lineage.jsonl.1", "lineage.jsonl.2"]
    store = str(tmp_path / "l.db")
    r = runner.invoke(app, ["ingest", str(path) + ".2", str(path) + ".1", "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     2 │          0 │      2 │        2 │          0 │       0 │      0 │" in r.output
    r = runner.invoke(app, ["ingest", str(path), str(path) + ".1", "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     2 │          0 │      2 │        1 │          1 │       0 │      0 │" in r.output
    r = runner.invoke(app, ["query", "impact", "lineage_orders.amount", "--store", store, "--format", "json"])
    assert r.exit_code == 0, r.output
    assert {"a.x", "b.x", "c.x"} <= {f["field"]["short"] for f in json.loads(r.output)["impacted"]}


def test_ingest_reads_a_rotated_json_array_as_events_and_a_numbered_sql_file_as_sql(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    events = tmp_path / "events.json.3"
    events.write_text("[" + event_to_json(guide()) + "]\n")
    script = tmp_path / "nightly.2"
    script.write_text("INSERT INTO lineage_demo.t2 SELECT a FROM lineage_demo.t1;\n")
    r = runner.invoke(app, ["ingest", str(events), str(script), "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     2 │          1 │      2 │        2 │          0 │       0 │      0 │" in r.output


def test_serve_refuses_public_bind_without_tokens(tmp_path: Path) -> None:
    r = runner.invoke(app, ["serve", "--store", str(tmp_path / "l.db"), "--host", "0.0.0.0"])
    assert r.exit_code == 2 and "refusing" in r.output


# ---------------------------------------------------------------- ingest: one bad input never stops the run


def _lines(*docs: object) -> str:
    return "".join((d if isinstance(d, str) else json.dumps(d)) + "\n" for d in docs)


def _run_event(**changes: object) -> dict:  # type: ignore[type-arg]
    from openlineage.client.serde import Serde

    from headwater.model.openlineage import to_run_event

    d = json.loads(Serde.to_json(to_run_event(guide())))
    d.update(changes)
    return d


def _summary(output: str) -> dict[str, int]:
    """The ingest summary table's one row, by column."""
    lines = [line.strip("┃│ ") for line in output.splitlines() if line.startswith(("┃", "│"))]
    head, row = (re.split(r"\s*[┃│]\s*", line) for line in lines[:2])
    return dict(zip(head, map(int, row), strict=True))


def _events_recorded(store: str) -> int:
    r = runner.invoke(app, ["query", "stats", "--store", store, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)["events_recorded"]


def test_ingest_a_line_the_store_rejects_fails_alone_and_later_files_are_still_read(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    bad = json.loads(event_to_json(copy_event("b", {"x": [("lineage_orders", "amount")]})))
    bad["context"]["timestamp"] = "bogus"
    events = tmp_path / "mixbad.jsonl"
    events.write_text(
        _lines(
            event_to_json(copy_event("a", {"x": [("lineage_orders", "amount")]})),
            bad,
            event_to_json(copy_event("c", {"x": [("lineage_orders", "amount")]})),
        )
    )
    script = tmp_path / "z.sql"
    script.write_text("INSERT INTO z2 SELECT a FROM z1;\n")
    r = runner.invoke(app, ["ingest", str(events), str(script), "--store", store])
    assert r.exit_code == 1, r.output
    assert isinstance(r.exception, SystemExit)  # no traceback
    assert f"{events}:2: " in r.output and "bogus" in r.output
    row = _summary(r.output)  # the bad line fails in the decoder or in the store: either way, alone
    assert (row["files"], row["statements"], row["recorded"], row["failed"]) == (2, 1, 3, 1)
    assert _events_recorded(store) == 3  # a, c and the script's event


class _FakeStore:
    """record_batch / record_openlineage refuse a whole call when any item is "bad" (all or nothing)."""

    def __init__(self, fatal: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.recorded: list[str] = []
        self.fatal = fatal

    def _write(self, ids: list[str]) -> object:
        from headwater.store import InvalidInput, WriteResult

        self.calls.append(ids)
        if "bad" in ids:
            if self.fatal:
                from sqlalchemy.exc import OperationalError

                raise OperationalError("BEGIN IMMEDIATE", {}, Exception("database is locked"))
            raise InvalidInput("context.timestamp", "'bogus' is not an ISO 8601 time")
        if "boom" in ids:
            raise RuntimeError("unexpected")
        self.recorded.extend(ids)
        return WriteResult(recorded=len(ids))

    def record_batch(self, events: list[str]) -> object:
        return self._write(list(events))

    def record_openlineage(self, events: list[str]) -> object:
        return self._write([f"ol:{e}" for e in events])


def test_record_items_retries_a_failed_batch_one_by_one() -> None:
    from headwater.cli.ingest_cmd import EVENT, OPENLINEAGE, IngestTotals, Item, record_items

    items = [Item(f"f:{n}", EVENT, v) for n, v in enumerate(["a", "bad", "c", "d", "boom", "e"], 1)]
    items.insert(3, Item("f:9", OPENLINEAGE, "x"))
    fake, totals = _FakeStore(), IngestTotals()
    record_items(fake, items, 10, totals)  # type: ignore[arg-type]
    assert fake.recorded == ["a", "c", "ol:x", "d", "e"]
    assert fake.calls[0] == ["a", "bad", "c"]  # one batch per run of one kind, then one by one
    assert (totals.recorded, totals.failed) == (5, 2)
    assert totals.problems == [
        "f:2: context.timestamp: 'bogus' is not an ISO 8601 time",
        "f:5: RuntimeError: unexpected",
    ]


def test_record_items_stops_when_the_store_itself_fails() -> None:
    from sqlalchemy.exc import OperationalError

    from headwater.cli.ingest_cmd import EVENT, IngestTotals, Item, record_items

    items = [Item(f"f:{n}", EVENT, v) for n, v in enumerate(["a", "bad", "c"], 1)]
    with pytest.raises(OperationalError):
        record_items(_FakeStore(fatal=True), items, 10, IngestTotals())  # type: ignore[arg-type]


def test_ingest_refuses_an_undecodable_file_before_recording_anything(tmp_path: Path) -> None:
    # issue 36: a file that is not UTF-8 text is the same one line as in extract, exit 2, nothing created
    store = tmp_path / "l.db"
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(bytes(range(128, 256)))
    good = tmp_path / "good.jsonl"
    good.write_text(_lines(event_to_json(guide())))
    r = runner.invoke(app, ["ingest", str(garbage), str(good), "--store", str(store)])
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit)
    assert f"error: {garbage}: not UTF-8 text (byte 0)" in " ".join(r.output.split())
    assert not store.exists()


# ---------------------------------------------------------------- ingest: OpenLineage RunEvents


def test_ingest_an_openlineage_run_event_file(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    one = tmp_path / "ol.json"
    one.write_text(json.dumps(_run_event(), indent=2))  # one object over many lines
    r = runner.invoke(app, ["ingest", str(one), "--store", store])
    assert r.exit_code == 0, r.output
    assert "│     1 │          0 │      1 │        1 │          0 │       0 │      0 │" in r.output
    assert "OpenLineage RunEvents: 1" in r.output
    r = runner.invoke(
        app, ["query", "origin", "lineage_customer_summary.total_amount", "--store", store, "--format", "json"]
    )
    assert [o["field"]["short"] for o in json.loads(r.output)["origins"]] == ["lineage_orders.amount"]
    r = runner.invoke(app, ["ingest", str(one), "--store", store])  # replay
    assert "│     1 │          0 │      1 │        0 │          1 │       0 │      0 │" in r.output


def test_ingest_an_array_of_run_events_names_the_line_of_a_bad_one(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    start, complete = _run_event(eventType="START"), _run_event()
    bad = _run_event()
    del bad["run"]
    f = tmp_path / "ol-array.json"
    f.write_text("[\n  " + ",\n  ".join(json.dumps(e) for e in (start, bad, complete)) + "\n]\n")
    r = runner.invoke(app, ["ingest", str(f), "--store", store])
    assert r.exit_code == 1, r.output
    assert f"{f}:3: event.run: missing" in r.output
    assert "│     1 │          0 │      3 │        2 │          0 │       0 │      1 │" in r.output


def test_ingest_a_jsonl_file_mixing_headwater_events_and_run_events(tmp_path: Path) -> None:
    store = str(tmp_path / "l.db")
    ol = _run_event()
    bad_ol = _run_event(eventTime="yesterday")
    f = tmp_path / "mixed.jsonl"
    f.write_text(_lines(event_to_json(copy_event("a", {"x": [("lineage_orders", "amount")]})), ol, bad_ol, {"a": 1}))
    r = runner.invoke(app, ["ingest", str(f), "--store", store])
    assert r.exit_code == 1, r.output
    assert f"{f}:3: event.eventTime: not an ISO 8601 time" in r.output
    assert f"{f}:4: " in r.output  # not an event (the decoder names what is missing)
    assert "│     1 │          0 │      3 │        2 │          0 │       0 │      2 │" in r.output
    assert "OpenLineage RunEvents: 2" in r.output
    r = runner.invoke(app, ["query", "upstream", "a", "--store", store, "--format", "json"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["query", "upstream", "lineage_customer_summary", "--store", store, "--format", "json"])
    assert "lineage_orders" in {n["short"] for n in json.loads(r.output)["nodes"]}


# ---------------------------------------------------------------- db current only reads


def test_db_current_does_not_create_a_missing_store(tmp_path: Path) -> None:
    for path in (tmp_path / "typo.db", tmp_path / "no_dir" / "x.db"):
        r = runner.invoke(app, ["db", "current", "--store", str(path)])
        assert r.exit_code == 2, r.output
        assert f"error: no store at {path}" in r.output
        assert not path.exists() and not path.parent.joinpath("x.db-wal").exists()
    assert not (tmp_path / "no_dir").exists()
    r = runner.invoke(app, ["db", "current", "--store", f"sqlite:///{tmp_path / 'typo.db'}"])
    assert r.exit_code == 2 and not (tmp_path / "typo.db").exists()


def test_db_current_reads_an_existing_store(tmp_path: Path) -> None:
    store = tmp_path / "l.db"
    assert runner.invoke(app, ["db", "upgrade", "--store", str(store)]).exit_code == 0
    files = {p.name for p in tmp_path.iterdir()}
    r = runner.invoke(app, ["db", "current", "--store", str(store)])
    assert r.exit_code == 0 and r.output.startswith("0007 (head: 0007)")
    assert {p.name for p in tmp_path.iterdir()} <= files  # nothing new (upgrade's -wal may go when it closes)
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just text that is long enough to have a header" * 4)
    r = runner.invoke(app, ["db", "current", "--store", str(text)])
    assert r.exit_code == 2 and "cannot read the store: file is not a database" in r.output


# ---------------------------------------------------------------- query: input errors are usage errors


@pytest.fixture(scope="module")
def guide_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = str(tmp_path_factory.mktemp("q") / "l.db")
    f = tmp_path_factory.mktemp("ev") / "guide.jsonl"
    f.write_text(_lines(event_to_json(guide())))  # recorded at 2024-05-01T10:00:00Z
    assert runner.invoke(app, ["ingest", str(f), "--store", store]).exit_code == 0
    return store


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["upstream", "lineage_customer_summary", "--as-of", "yesterday"], "error: --as-of: 'yesterday': "),
        (["stats", "--as-of", "garbage"], "error: --as-of: 'garbage': "),
        (["summary", "lineage_orders", "--as-of", "2024-13-01"], "month value is outside expected range"),
        (["origin", "lineage_customer_summary.total_amount", "--as-of", ""], "error: --as-of: '': "),
        (["analyze", "lineage_orders", "--change", "RENAME"], "(one of SCHEMA_CHANGE, DATA_UPDATE, DELETE)"),
        (["analyze", "lineage_orders", "--operation", "EXPLODE"], "error: --operation: unknown operation 'EXPLODE'"),
        (["upstream", "lineage_customer_summary", "--type", "BOGUS"], "error: --type: unknown node type 'BOGUS' (one"),
        (["analyze", "lineage_orders", "--column", "nope"], "lineage_orders has no column 'nope'"),
        (["analyze", "lineage_orders", "--column", "amount", "--column", "x"], "has no column 'x'"),
        (["analyze", "lineage_orders.amount", "--column", "amount"], "is a field: columns name a dataset's"),
    ],
)
def test_query_input_errors_exit_2_without_a_traceback(guide_store: str, args: list[str], message: str) -> None:
    r = runner.invoke(app, ["query", *args, "--store", guide_store])
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit)
    assert message in r.output


def _upstream(store: str, *extra: str) -> set[str]:
    r = runner.invoke(
        app, ["query", "upstream", "lineage_customer_summary", "--store", store, "--format", "json", *extra]
    )
    assert r.exit_code == 0, r.output
    return {n["short"] for n in json.loads(r.output)["nodes"]}


def test_query_as_of_takes_what_the_api_takes(guide_store: str) -> None:
    before: set[str] = set()  # before the root's first event the graph is empty (issue 38: not the root alone)
    assert _upstream(guide_store, "--as-of", "1700000000") == before  # seconds: 2023-11-14
    assert _upstream(guide_store, "--as-of", "1700000000000") == before  # milliseconds
    after = _upstream(guide_store)
    assert {"lineage_orders", "lineage_customers"} <= after
    for value in ("1800000000", "1800000000000", "2024-05-01T10:00:00Z", "2024-06-01", "2024-05-01 12:00+02:00"):
        assert _upstream(guide_store, "--as-of", value) == after, value


def test_query_types_are_node_type_names_in_any_case(guide_store: str) -> None:
    r = runner.invoke(
        app,
        [
            "query",
            "upstream",
            "lineage_customer_summary",
            "--type",
            "dataset",
            "--store",
            guide_store,
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    nodes = json.loads(r.output)["nodes"]
    assert {n["type"] for n in nodes} == {"DATASET"} and len(nodes) == 3


def test_query_analyze_accepts_known_values_in_any_case(guide_store: str) -> None:
    r = runner.invoke(
        app,
        [
            "query", "analyze", "lineage_orders", "--change", "schema_change", "--operation", "add_column",
            "--column", "AMOUNT", "--store", guide_store, "--format", "json",
        ],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["details"]["operation"] == "ADD_COLUMN" and d["details"]["rules"] == "METADATA"
    assert d["details"]["changed_fields"] == ["internal.lineage_demo.lineage_orders.amount"]
