"""``headwater extract --format jsonl`` writes exactly the library's events, byte for byte."""

from __future__ import annotations

from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.extract import ExtractOptions, Extractor, RunInfo, engine
from headwater.model import event_to_json

SCRIPT = """CREATE TABLE s (a INT, b VARCHAR(10), note VARCHAR(100));
INSERT INTO t SELECT a, UPPER(b) AS b FROM s WHERE note = 'postgresql://etl:hunter2@db/x';
INSERT INTO u (k, n) SELECT s.a, COUNT(*) FROM s JOIN t ON s.a = t.a GROUP BY s.a;
INSERT INTO x SELEC a FROM s;
INSERT INTO v SELECT CASE WHEN a > 1 THEN 'größer' ELSE b END FROM s;
WITH c AS (SELECT a FROM s) INSERT INTO w SELECT a FROM c UNION ALL SELECT a FROM t
"""


def test_jsonl_is_the_librarys_events_byte_for_byte(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(engine, "now_iso", lambda: "2026-12-01T00:00:00.000Z")  # the one varying field
    path = tmp_path / "script.sql"
    path.write_text(SCRIPT, encoding="utf-8")
    args = ["extract", str(path), "--dialect", "mysql", "--format", "jsonl", "--query-id", "q", "--user", "etl"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1, r.output  # the statement that does not parse
    result = Extractor(options=ExtractOptions(dialect="mysql")).run(SCRIPT, RunInfo(query_id="q", user="etl"))
    assert len(result.events) == 4
    assert r.stdout_bytes == "".join(event_to_json(e) + "\n" for e in result.events).encode("utf-8")
