"""``headwater plugins list|status`` and ``headwater run-script`` (against SQLite, MariaDB and PostgreSQL)."""

from __future__ import annotations

import json
import logging
import sqlite3
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pymysql
import pytest
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.dispatch import DECLARATION_FILE
from headwater.dispatch.sample import guide_script, guide_tables

runner = CliRunner()
BUILTINS = ["jsonl", "log", "openlineage", "store", "webhook"]


@pytest.fixture
def isolated_imports() -> Iterator[None]:
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """The commands attach a stderr handler to the ``headwater`` logger: take it away afterwards."""
    logger = logging.getLogger("headwater")
    level, handlers = logger.level, list(logger.handlers)
    yield
    logger.setLevel(level)
    logger.handlers[:] = handlers


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("HEADWATER_CONFIG", "HEADWATER_PLUGIN_DIR", "HEADWATER_ACTIVATE_LINEAGE_PLUGIN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("HEADWATER_LINEAGE_EVENT_QUEUE_SIZE", raising=False)
    monkeypatch.chdir(tmp_path)


def _plugin_dirs(root: Path) -> tuple[Path, Path]:
    good, bad = root / "lineage" / "a-good", root / "lineage" / "b-two"
    module = f"hwcli_{uuid.uuid4().hex[:8]}"
    for d in (good, bad):
        d.mkdir(parents=True)
    (good / f"{module}.py").write_text(
        "from headwater.dispatch.testing import RecordingPlugin, StaticFactory\n"
        "FACTORY = StaticFactory('dir-plugin', lambda ctx: RecordingPlugin('dir-plugin', []))\n"
    )
    (good / DECLARATION_FILE).write_text(f"{module}:FACTORY\n")
    (bad / DECLARATION_FILE).write_text("x:A\ny:B\n")
    return good, bad


@pytest.mark.usefixtures("isolated_imports")
def test_plugins_list_says_what_is_selected_and_why_not(tmp_path: Path) -> None:
    good, bad = _plugin_dirs(tmp_path / "p")
    result = runner.invoke(
        app, ["plugins", "list", "--plugin-dir", str(tmp_path / "p"), "--activate", "dir-plugin, jsonl,Nope"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:4] == [
        f"plugin_dir = {tmp_path / 'p'}  (CLI)",
        "activate_lineage_plugin = dir-plugin,jsonl,Nope  (CLI)",
        "lineage_event_queue_size = 50000  (default)",
        "lineage_dispatch_batch = 500  (default)",
    ]
    states = {line.split()[0]: line.split("[")[0].split(None, 1)[1].strip() for line in lines[6:]}
    assert states == {
        "dir-plugin": "selected",
        "jsonl": "selected",
        "log": "not in activate_lineage_plugin",
        "openlineage": "not in activate_lineage_plugin",
        "store": "not in activate_lineage_plugin",
        "webhook": "not in activate_lineage_plugin",
        "refused": f"directory {bad}: {DECLARATION_FILE} declares 2 factories (x:A, y:B); "
        "a plugin directory may expose exactly one",
        "unknown": "Nope: named in activate_lineage_plugin, not discovered",
    }
    [dir_line] = [line for line in lines if line.startswith("dir-plugin")]
    assert dir_line.endswith(f"[directory {good}; pluginPath={good.resolve()}]")


def test_plugins_status_starts_the_plugins(tmp_path: Path) -> None:
    config = tmp_path / "hw.toml"
    config.write_text(
        'activate_lineage_plugin = "jsonl,webhook"\nplugin_dir = "/nonexistent"\n'
        f'[lineage_plugins.jsonl]\npath = "{tmp_path / "e.jsonl"}"\n'
    )
    result = runner.invoke(app, ["plugins", "status", "--config", str(config), "--json"])
    assert result.exit_code == 1, result.output  # webhook, named, failed
    doc = json.loads(result.stdout)
    assert [(p["name"], p["state"], p["reason"]) for p in doc["plugins"]] == [
        ("log", "not in activate_lineage_plugin", ""),
        ("openlineage", "not in activate_lineage_plugin", ""),
        ("store", "not in activate_lineage_plugin", ""),
        ("jsonl", "active", ""),
        (
            "webhook",
            "failed to create/initialize",
            "PluginNotConfigured: lineage plugin webhook needs the setting 'url'",
        ),
    ]
    assert doc["counters"]["submitted"] == 0 and list(doc["counters"]["plugins"]) == ["jsonl"]
    result = runner.invoke(app, ["plugins", "status", "--config", str(config)])
    assert result.exit_code == 1
    text = result.stdout.splitlines()
    assert text[-2:] == [
        "lineage: submitted=0 skipped=0 excluded=0 extract_errors=0 extracted=0 dropped=0 abandoned=0 queue_depth=0",
        "plugin jsonl: dispatched=0 failed=0 filtered_out=0 filter_errors=0",
    ]


def test_plugins_status_by_default_skips_unconfigured_builtins_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default empty activate_lineage_plugin tries every built-in: jsonl and webhook have no
    ``path`` / ``url``, which is the normal case, not an error."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HEADWATER_STORE", f"sqlite:///{tmp_path / 'lineage.db'}")
    result = runner.invoke(app, ["plugins", "status", "--plugin-dir", str(tmp_path / "none"), "--json"])
    assert result.exit_code == 0, result.output
    states = {p["name"]: (p["state"], p["reason"]) for p in json.loads(result.stdout)["plugins"]}
    assert states == {
        "jsonl": ("not configured", "needs the setting 'path'"),
        "log": ("active", ""),
        "openlineage": ("active", ""),
        "store": ("active", ""),
        "webhook": ("not configured", "needs the setting 'url'"),
    }
    assert "Traceback" not in result.stderr and "ERROR" not in result.stderr
    skips = [line for line in result.stderr.splitlines() if "not configured" in line]
    assert skips == [
        "INFO headwater.dispatch: Skip lineage plugin not configured: jsonl (needs the setting 'path' in "
        "[lineage_plugins.jsonl])",
        "INFO headwater.dispatch: Skip lineage plugin not configured: webhook (needs the setting 'url' in "
        "[lineage_plugins.webhook])",
    ]


def test_plugins_status_reports_a_named_unconfigured_plugin_as_an_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plugins", "status", "--plugin-dir", str(tmp_path / "none"), "--activate", "webhook"])
    assert result.exit_code == 1, result.output
    assert "ERROR headwater.dispatch: Failed to create/initialize lineage plugin: webhook" in result.stderr
    assert "Traceback" in result.stderr
    assert (
        "webhook      failed to create/initialize: PluginNotConfigured: lineage plugin webhook needs the setting 'url'"
        in result.stdout
    )


def test_plugins_status_exits_0_when_every_named_plugin_started(tmp_path: Path) -> None:
    config = tmp_path / "hw.toml"
    config.write_text(
        'activate_lineage_plugin = "jsonl,log"\n'
        f'[lineage_plugins.jsonl]\npath = "{tmp_path / "e.jsonl"}"\nmax_bytes = 1000\n'
    )
    for args in ([], ["--json"]):
        result = runner.invoke(app, ["plugins", "status", "--config", str(config), "--plugin-dir", "/none", *args])
        assert result.exit_code == 0, result.output
    states = {p["name"]: p["state"] for p in json.loads(result.stdout)["plugins"]}
    assert states["jsonl"] == states["log"] == "active"


def test_plugins_status_exits_1_when_a_tried_plugin_has_a_bad_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the empty activate_lineage_plugin, only a missing setting is "not configured"; a wrong
    one is a failure."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HEADWATER_STORE", f"sqlite:///{tmp_path / 'lineage.db'}")
    config = tmp_path / "hw.toml"
    config.write_text(f'[lineage_plugins.jsonl]\npath = "{tmp_path / "e.jsonl"}"\nmax_bytes = -1\n')
    result = runner.invoke(app, ["plugins", "status", "--config", str(config), "--plugin-dir", "/none", "--json"])
    assert result.exit_code == 1, result.output
    states = {p["name"]: p["state"] for p in json.loads(result.stdout)["plugins"]}
    assert states == {
        "jsonl": "failed to create/initialize",
        "log": "active",
        "openlineage": "active",
        "store": "active",
        "webhook": "not configured",
    }


def test_plugins_status_exits_1_when_a_named_plugin_is_not_discovered(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plugins", "status", "--plugin-dir", str(tmp_path / "none"), "--activate", "log,lgo"])
    assert result.exit_code == 1, result.output
    assert "unknown  lgo: named in activate_lineage_plugin, not discovered" in result.stdout


@pytest.mark.parametrize("bad", ["0", "-5"])  # "lots": not an integer, refused by the option type (tests/cli)
def test_bad_queue_size_is_a_usage_error(bad: str) -> None:
    result = runner.invoke(app, ["plugins", "status", "--queue-size", bad])
    assert result.exit_code == 2
    assert (
        result.stderr.strip() == f"error: lineage_event_queue_size must be a positive integer, got {bad!r} (from CLI)"
    )


URLS = {
    "sqlite": "sqlite:///{tmp_path}/db.sqlite",
    "mariadb": "mysql+pymysql://root@127.0.0.1:3306/test",
    "postgres": "postgresql+psycopg://postgres@127.0.0.1:5432/test",
}


def _run_guide(
    tmp_path: Path, url: str, suffix: str, extra: str = "", statements: list[str] | None = None, *flags: str
) -> tuple[object, list[dict]]:
    script = tmp_path / "guide.sql"
    script.write_text(";\n".join(statements or guide_script(suffix)) + ";\n" + extra)
    events = tmp_path / "events.jsonl"
    config = tmp_path / "hw.toml"
    config.write_text(f'activate_lineage_plugin = "jsonl"\n[lineage_plugins.jsonl]\npath = "{events}"\n')
    result = runner.invoke(app, ["run-script", str(script), "--catalog-url", url, "--config", str(config), *flags])
    found = [json.loads(line) for line in events.read_text().splitlines()] if events.exists() else []
    return result, found


def _drop(conn: object, suffix: str, more: tuple[str, ...] = ()) -> None:
    cur = conn.cursor()  # type: ignore[attr-defined]
    for name in [*guide_tables(suffix), *more]:
        cur.execute(f"DROP TABLE IF EXISTS {name}")
    conn.close()  # type: ignore[attr-defined]


def _drop_on(backend: str, suffix: str, more: tuple[str, ...] = ()) -> None:
    if backend == "mariadb":
        _drop(
            pymysql.connect(host="127.0.0.1", user="root", password="", database="test", autocommit=True), suffix, more
        )
    elif backend == "postgres":
        _drop(psycopg.connect("host=127.0.0.1 user=postgres dbname=test", autocommit=True), suffix, more)


@pytest.mark.parametrize("backend", ["sqlite", "mariadb", "postgres"])
def test_run_script_executes_and_dispatches(tmp_path: Path, backend: str) -> None:
    suffix = uuid.uuid4().hex[:8]
    url = {
        "sqlite": f"sqlite:///{tmp_path / 'db.sqlite'}",
        "mariadb": "mysql+pymysql://root@127.0.0.1:3306/test",
        "postgres": "postgresql+psycopg://postgres@127.0.0.1:5432/test",
    }[backend]
    try:
        result, events = _run_guide(tmp_path, url, suffix)
    finally:
        if backend == "mariadb":
            _drop(pymysql.connect(host="127.0.0.1", user="root", password="", database="test", autocommit=True), suffix)
        elif backend == "postgres":
            _drop(psycopg.connect("host=127.0.0.1 user=postgres dbname=test", autocommit=True), suffix)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    out = result.stdout.splitlines()  # type: ignore[attr-defined]
    assert [line.split(": ", 1)[1].split()[0] for line in out[:6]] == ["ok"] * 6
    assert out[0].startswith(f"statement 1 (line 1): ok  CREATE TABLE lineage_orders_{suffix} (order_id BIGINT")
    assert out[5].startswith(f"statement 6 (line 6): ok  INSERT INTO lineage_customer_summary_{suffix} WITH")
    assert out[6:] == [
        "lineage: submitted=6 skipped=0 excluded=5 extract_errors=0 extracted=1 dropped=0 abandoned=0 queue_depth=0",
        "plugin jsonl: dispatched=1 failed=0 filtered_out=0 filter_errors=0",
    ]
    [event] = events
    database = {"sqlite": "main", "mariadb": "test", "postgres": "public"}[backend]
    assert event["target"]["table"] == {"catalog": "internal", "database": database, "name": guide_tables(suffix)[2]}
    assert [(d["target_column"], d["type"]) for d in event["direct"]] == [
        ("customer_id", "IDENTITY"),
        ("region_label", "TRANSFORMATION"),
        ("total_amount", "AGGREGATION"),
        ("customer_seq", "TRANSFORMATION"),
        ("region_group", "TRANSFORMATION"),
    ]


def _guide_with_failures(suffix: str) -> tuple[list[str], str]:
    """The guide's script with a rejected lineage statement before its INSERT, and a CTAS after it."""
    missing, after = f"lineage_missing_{suffix}", f"after_failure_{suffix}"
    statements = guide_script(suffix)
    statements[5:5] = [f"INSERT INTO {missing} SELECT customer_id FROM lineage_customers_{suffix}"]
    statements.append(f"CREATE TABLE {after} AS SELECT customer_id FROM lineage_customers_{suffix}")
    return statements, after


@pytest.mark.parametrize("backend", ["sqlite", "mariadb", "postgres"])
def test_run_script_reports_a_failed_statement_and_goes_on(tmp_path: Path, backend: str) -> None:
    suffix = uuid.uuid4().hex[:8]
    statements, after = _guide_with_failures(suffix)
    try:
        result, events = _run_guide(
            tmp_path, URLS[backend].format(tmp_path=tmp_path), suffix, "SELECT FROM WHERE;\n", statements
        )
    finally:
        _drop_on(backend, suffix, (after,))
    assert result.exit_code == 1, result.output  # type: ignore[attr-defined]
    out = result.stdout.splitlines()  # type: ignore[attr-defined]
    missing = f"lineage_missing_{suffix}"
    message = {
        "sqlite": f"no such table: {missing}",
        "mariadb": f"(1146, \"Table 'test.{missing}' doesn't exist\")",
        "postgres": f'relation "{missing}" does not exist',
    }[backend]
    heads = [line.split("  ")[0] for line in out if line.startswith("statement ")]
    heads[8] = heads[8][: len("statement 9 (line 22): error:")]
    assert heads == [
        "statement 1 (line 1): ok",
        "statement 2 (line 2): ok",
        "statement 3 (line 3): ok",
        "statement 4 (line 4): ok",
        "statement 5 (line 5): ok",
        f"statement 6 (line 6): error: {message}",
        "statement 7 (line 7): ok",
        "statement 8 (line 21): ok",
        "statement 9 (line 22): error:",  # the syntax error message differs per database
    ]
    assert out[5] == f"{heads[5]}  {statements[5][:70]}"  # the statement's start follows
    if backend == "postgres":  # the rest of a multi-line message follows, indented
        assert out[6].startswith("    LINE 1: INSERT INTO")
    assert result.stderr.splitlines()[-1] == (  # type: ignore[attr-defined]
        "error: 2 of 9 statements failed: statement 6 (line 6), statement 9 (line 22)"
    )
    # lineage for the statements that succeeded, before and after the failures; none for the failed
    assert [e["target"]["table"]["name"] for e in events] == [f"lineage_customer_summary_{suffix}", after]
    assert out[-2:] == [
        "lineage: submitted=7 skipped=0 excluded=5 extract_errors=0 extracted=2 dropped=0 abandoned=0 queue_depth=0",
        "plugin jsonl: dispatched=2 failed=0 filtered_out=0 filter_errors=0",
    ]


@pytest.mark.parametrize("backend", ["sqlite", "mariadb"])
def test_run_script_stop_on_error_stops_at_the_first_failure(tmp_path: Path, backend: str) -> None:
    suffix = uuid.uuid4().hex[:8]
    statements, after = _guide_with_failures(suffix)
    url = URLS[backend].format(tmp_path=tmp_path)
    try:
        result, events = _run_guide(tmp_path, url, suffix, "", statements, "--stop-on-error")
        if backend == "sqlite":
            with sqlite3.connect(tmp_path / "db.sqlite") as conn:
                tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        else:
            conn = pymysql.connect(host="127.0.0.1", user="root", password="", database="test")
            with conn.cursor() as cur:
                cur.execute("SHOW TABLES")
                tables = [r[0] for r in cur.fetchall()]
            conn.close()
    finally:
        _drop_on(backend, suffix, (after,))
    assert result.exit_code == 1  # type: ignore[attr-defined]
    out = result.stdout.splitlines()  # type: ignore[attr-defined]
    assert out[5].startswith("statement 6 (line 6): error: ")
    assert out[6] == "stopped (--stop-on-error): 2 statement(s) not run"
    assert result.stderr.splitlines()[-1] == "error: 1 of 8 statements failed: statement 6 (line 6)"  # type: ignore[attr-defined]
    assert events == [] and after not in tables and f"lineage_customer_summary_{suffix}" in tables


def test_run_script_bad_url_is_a_usage_error(tmp_path: Path) -> None:
    script = tmp_path / "s.sql"
    script.write_text("SELECT 1;")
    result = runner.invoke(app, ["run-script", str(script), "--catalog-url", "nonsense://"])
    assert result.exit_code == 2 and result.stderr.startswith("error: --catalog-url:")
