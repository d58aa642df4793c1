"""The Doris audit log as a MariaDB table and as fe.audit.log files: the guide's script in a realistic mix."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.history.conftest import MARIADB_URL, event_jsons, guide_mix

from headwater.history import (
    EVENT,
    ExtractSpec,
    IngestOptions,
    TableWatermarks,
    group_sessions,
    ingest_history,
    open_source,
)
from headwater.history.synthetic import generate_log, synthetic_schema, write_audit_file, write_csv, write_jsonl
from headwater.history.window import Window
from headwater.model import DirectType, IndirectType, SourceCommand, TableRef
from headwater.store import open_store

EXPECTED_KINDS = {
    "guide-1": ("skipped", "ddl"),
    "guide-2": ("skipped", "use"),
    "guide-3": ("skipped", "ddl"),
    "guide-4": ("skipped", "ddl"),
    "guide-5": ("skipped", "ddl"),
    "guide-6": ("skipped", "values-insert"),
    "guide-7": ("skipped", "values-insert"),
    "guide-insert": ("event", None),
    "guide-9": ("skipped", "select"),
    "mix-failed": ("not-succeeded", "ERR error 1105"),
    "mix-load": ("skipped", "LOAD"),
    "mix-internal": ("skipped", "internal-schema"),
    "mix-ctas": ("event", None),
    "mix-overwrite": ("event", None),
    "mix-ok-with-error": ("not-succeeded", "OK error 1064"),
}


def _outcomes(source, spec: ExtractSpec | None = None) -> list:
    records = list(source.read(Window()))
    hx = (spec or ExtractSpec()).extractor()
    return [o for s in group_sessions(records) for o in hx.session(s.records)]


def test_audit_table_guide_mix_outcomes_and_event(audit_table) -> None:
    table = audit_table(guide_mix())
    source = open_source("doris-audit-table", [MARIADB_URL], table=table)
    outcomes = _outcomes(source)
    kinds = {o.query_id: (o.kind, o.detail) for o in outcomes}
    broken = kinds.pop("mix-broken")
    assert broken[0] == "failed" and broken[1].startswith("cannot parse statement 1")
    assert kinds == EXPECTED_KINDS

    events = {o.query_id: o.events[0] for o in outcomes if o.kind == EVENT}
    e = events["guide-insert"]
    assert e.target.table == TableRef("internal", "lineage_demo", "lineage_customer_summary")
    assert [s.name for s in e.sources] == ["lineage_orders", "lineage_customers"]
    assert [(d.target_column, d.expression, d.type) for d in e.direct] == [
        ("customer_id", "lineage_orders.customer_id", DirectType.IDENTITY),
        ("region_label", "UPPER(lineage_orders.region)", DirectType.TRANSFORMATION),
        ("total_amount", "SUM(lineage_orders.amount)", DirectType.AGGREGATION),
        ("customer_seq", "ROW_NUMBER() OVER (ORDER BY lineage_orders.customer_id)", DirectType.TRANSFORMATION),
        (
            "region_group",
            "CASE WHEN UPPER(lineage_orders.region) = 'EAST' THEN 'CORE' ELSE 'OTHER' END",
            DirectType.TRANSFORMATION,
        ),
    ]
    assert [(i.type, i.expression) for i in e.output_indirect] == [
        (IndirectType.WINDOW, "lineage_orders.customer_id"),
        (IndirectType.CONDITIONAL, "UPPER(lineage_orders.region) = 'EAST'"),
    ]
    c = e.context
    assert (c.query_id, c.user, c.client_ip, c.database, c.catalog, c.state) == (
        "guide-insert",
        "lineage_user",
        "192.0.2.10:51234",
        "lineage_demo",
        "internal",
        "OK",
    )
    assert (c.timestamp, c.duration_ms, c.source_command) == (
        "2024-05-01T10:00:07.000Z",
        250,
        SourceCommand.INSERT_INTO,
    )
    ctas, overwrite = events["mix-ctas"], events["mix-overwrite"]
    assert ctas.source_command == SourceCommand.CREATE_TABLE
    assert overwrite.source_command == SourceCommand.INSERT_OVERWRITE
    assert overwrite.target.table == TableRef("internal", "lineage_demo", "region_totals")
    assert [f.name for f in overwrite.target.columns] == ["region", "total"]  # the CTAS earlier in the session
    assert (overwrite.context.user, overwrite.context.client_ip) == ("etl", "192.0.2.11:40000")


def test_audit_table_into_sqlite_store(audit_table, sqlite_url: str) -> None:
    table = audit_table(guide_mix())
    store = open_store(sqlite_url)
    source = open_source("doris-audit-table", [MARIADB_URL], table=table)
    summary = ingest_history(source, store, IngestOptions(), TableWatermarks(store.engine))
    c = summary.counters
    assert (c.rows_read, c.sessions, c.not_succeeded, c.statements, c.events, c.skipped, c.failed) == (
        16,
        2,
        2,
        14,
        3,
        10,
        1,
    )
    assert (c.recorded, c.duplicates, c.unreadable) == (3, 0, 0)
    assert dict(c.rules) == {"ddl": 4, "use": 1, "values-insert": 2, "select": 1, "LOAD": 1, "internal-schema": 1}
    assert [p.where for p in summary.problems] == ["query mix-broken"]
    origin = store.get_field_origin("lineage_customer_summary.total_amount")
    assert [o.field.name for o in origin.origins] == ["internal.lineage_demo.lineage_orders.amount"]


def test_audit_file_parsing_edge_cases(tmp_path: Path) -> None:
    log = tmp_path / "fe.audit.log"
    head = "|Client=192.0.2.10:51234|User=u|Ctl=internal|Db=d|State=OK|ErrorCode=0|ErrorMessage=|Time(ms)=500"
    lines = [
        f"2024-05-01 10:00:01,500 [query] {head}|QueryId=q1|feIp=fe1|Stmt=INSERT INTO t\\nSELECT a||'|x=1' "
        "FROM s|CpuTimeMS=3|SqlHash=ab|WorkloadGroup=normal|FuzzyVariables=",
        f"2024-05-01 10:00:01,500 [slow_query] {head}|QueryId=q1|feIp=fe1|Stmt=INSERT INTO t SELECT a FROM s",
        "2024-05-01 10:00:02,000 [stream_load] |Label=l1|Db=d|Table=t|ClientIp=1.2.3.4|Status=Success",
        f"2024-05-01 10:00:03,000 [query] {head}|QueryId=q2|feIp=fe1|Stmt=INSERT INTO t",
        "SELECT b FROM s",
        "noise that is not an audit line",
    ]
    log.write_text("\n".join(lines) + "\n")
    records = list(open_source("doris-audit-file", [str(log)]).read(Window()))
    assert [(r.query_id, r.sql, r.duration_ms, r.session) for r in records] == [
        ("q1", "INSERT INTO t\nSELECT a||'|x=1' FROM s", 500, "fe1|192.0.2.10:51234|u"),
        ("q2", "INSERT INTO t\nSELECT b FROM s\nnoise that is not an audit line", 500, "fe1|192.0.2.10:51234|u"),
    ]
    assert [r.timestamp.isoformat() for r in records] == [
        "2024-05-01T10:00:01+00:00",
        "2024-05-01T10:00:02.500000+00:00",
    ]


def test_every_source_gives_the_same_events(audit_table, tmp_path: Path) -> None:
    rows = generate_log(1500, seed=7)
    schema = tmp_path / "schema.json"
    schema.write_text(__import__("json").dumps(synthetic_schema()))
    write_jsonl(rows, tmp_path / "log.jsonl")
    write_csv(rows, tmp_path / "log.csv")
    write_audit_file(rows, tmp_path / "fe.audit.log")
    table = audit_table(rows)
    spec = ExtractSpec(schema_file=str(schema))
    sources = {
        "table": open_source("doris-audit-table", [MARIADB_URL], table=table),
        "file": open_source("doris-audit-file", [str(tmp_path / "fe.audit.log")]),
        "jsonl": open_source("jsonl", [str(tmp_path / "log.jsonl")]),
        "csv": open_source("csv", [str(tmp_path / "log.csv")]),
    }
    results = {name: _outcomes(src, spec) for name, src in sources.items()}
    reference = event_jsons(e for o in results["table"] for e in o.events)
    kinds = Counter(o.kind for o in results["table"])
    assert kinds["event"] == len(reference) > 300
    assert kinds["not-succeeded"] == sum(1 for r in rows if r["state"] == "ERR")
    for name in ("file", "jsonl", "csv"):
        assert event_jsons(e for o in results[name] for e in o.events) == reference, name
        assert Counter(o.kind for o in results[name]) == kinds, name
