"""Issue 17 item 2: names, expressions, SQL and messages from SQL or the store are printed literally
by every command; rich markup in them never crashes the output, restyles it or loses an event."""

from __future__ import annotations

import json

import pytest
from tests.cli.conftest import invoke

from headwater.cli.render import render_compact, render_event, render_skips
from headwater.extract import ExtractOptions, Extractor

HOSTILE = (
    'INSERT INTO "[/x]" SELECT "c[red]d" AS "[link=http://evil.example]click[/link]", "x[/y]z" FROM "[/s]";\n'
    '"[/x]";\n'
    'INSERT INTO t SELECT "[bold]b" AS a FROM s;\n'
)
LITERALS = ("[/x]", "[/s]", "[link=http://evil.example]click[/link]", "x[/y]z", "c[red]d")


def squeeze(text: str) -> str:
    """Text without table borders and white space (a long cell may wrap)."""
    return "".join(ch for ch in text if not ch.isspace() and ch not in "│┃")


@pytest.mark.parametrize("verbose", [(), ("--verbose",)])
def test_extract_table_prints_markup_literally_and_every_statement(verbose):
    r = invoke("extract", "-", "--dialect", "postgres", *verbose, stdin=HOSTILE, columns=160)
    assert r.exit_code == 1  # statement 2 is not SQL; the others are still printed
    assert "MarkupError" not in r.output and "Traceback" not in r.output
    flat = squeeze(r.stdout)
    for text in LITERALS:
        assert squeeze(text) in flat, text
    assert "[bold]b" in r.stdout
    assert "statement 2 is not a SQL statement" in r.stdout
    assert "\x1b]8;" not in r.stdout  # no terminal hyperlink was made


@pytest.mark.parametrize("fmt", ["jsonl", "json", "openlineage", "payload"])
def test_a_markup_statement_loses_no_event_in_any_format(fmt):
    r = invoke("extract", "-", "--dialect", "postgres", "--format", fmt, stdin=HOSTILE)
    assert r.exit_code == 1
    assert "MarkupError" not in r.output
    assert '"[/x]"' in r.stderr  # the bad statement, named literally
    if fmt == "json":
        assert len(json.loads(r.stdout)) == 2
    else:  # openlineage: START and COMPLETE per event
        assert len(r.stdout.splitlines()) == (4 if fmt == "openlineage" else 2)


def test_the_rendering_functions_keep_markup_literal():
    from rich.console import Console

    result = Extractor(options=ExtractOptions(dialect="postgres")).run(HOSTILE)
    console = Console(width=100, color_system="truecolor", record=True)
    for e in result.events:
        render_compact(console, e)
        render_event(console, e)
    render_skips(console, result, explain=True)
    text = squeeze(console.export_text())
    for literal in LITERALS:
        assert squeeze(literal) in text
    assert "link" not in "".join(str(s.style or "") for s in console._record_buffer)  # no style from the SQL


@pytest.fixture
def hostile_store(store_of):
    # names that do not start with "[": the store reads a leading [ … ] as T-SQL quotes (issue 17 item 8)
    return store_of(
        'INSERT INTO "t[/x]" SELECT "c[red]d" AS "k[link=http://evil.example]click[/link]", "x[/y]z" AS "x[/y]z" '
        'FROM "s[/s]";',
        dialect="postgres",
    )


@pytest.mark.parametrize(
    "args",
    [
        ("query", "impact", '"s[/s]"."x[/y]z"'),
        ("query", "origin", '"t[/x]"."x[/y]z"'),
        ("query", "analyze", '"s[/s]"'),
        ("query", "analyze", '"s[/s]"', "--all", "--format", "csv"),
        ("query", "upstream", '"t[/x]"'),
        ("query", "upstream", '"t[/x]"', "--type", "DATASET"),
        ("query", "downstream", '"s[/s]"."c[red]d"'),
        ("query", "trace", '"t[/x]"'),
        ("query", "summary", '"t[/x]"'),
        ("query", "stats"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_stored_markup_prints_literally_in_every_query(hostile_store, args):
    r = invoke(*args, "--store", hostile_store)
    assert r.exit_code == 0, r.output
    assert "MarkupError" not in r.output and "Traceback" not in r.output
    if args[1] != "stats":
        assert "[/" in r.stdout
    assert "\x1b]8;" not in r.stdout


def test_markup_in_error_messages_is_literal(hostile_store):
    r = invoke("query", "origin", "[link=http://evil.example]x[/link]", "--store", hostile_store)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: no node matches '[link=http://evil.example]x[/link]'")


def test_ingest_log_problems_print_markup_literally(tmp_path):
    log = tmp_path / "log.jsonl"
    rows = [
        {"sql": "INSERT INTO t SELEC [/x] FROM s", "query_id": "q[/1]", "timestamp": "2026-01-01 00:00:00"},
        {"sql": "INSERT INTO t SELECT a FROM s", "query_id": "q2", "timestamp": "2026-01-01 00:00:01"},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = invoke("ingest-log", str(log), "--store", str(tmp_path / "s.db"))
    assert "MarkupError" not in r.output and "Traceback" not in r.output
    assert "q[/1]" in r.stdout and "[/x]" in r.stdout
    from headwater.store import open_store

    assert open_store(str(tmp_path / "s.db")).get_lineage_stats().events_recorded == 1
