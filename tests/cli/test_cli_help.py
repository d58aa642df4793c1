"""Issue 15, help and options: every command's help reads right at 100 columns; one name per option."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer.main
from tests.cli.conftest import invoke

from headwater.cli.main import app


def commands() -> list[tuple[str, ...]]:
    root = typer.main.get_command(app)
    out: list[tuple[str, ...]] = []

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        out.append(path)
        if hasattr(cmd, "list_commands"):  # a group (typer vendors its own click)
            ctx = typer.Context(cmd)
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), (*path, name))  # type: ignore[arg-type]

    walk(root, ())
    assert len(out) > 20, out
    return out


def command(path: tuple[str, ...]) -> Any:
    cmd = typer.main.get_command(app)
    for name in path:
        cmd = cmd.get_command(typer.Context(cmd), name)  # type: ignore[attr-defined]
    return cmd


ALL = commands()


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "headwater")
def test_help_has_no_bool_metavar_no_raw_backticks_and_no_cut_text(path):
    r = invoke(*path, "--help")
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert "<bool>" not in text
    assert "``" not in text and "`" not in text, text
    assert not re.search(r"\w…\s*│", text), text  # a help text cut with …


def test_every_option_has_help():
    missing = []
    for path in ALL:
        for p in command(path).params:
            if p.param_type_name == "option" and not p.hidden and not p.help:
                missing.append(f"{' '.join(path)} {p.opts[0]}")
    assert missing == []


def test_trace_depth_is_documented():
    assert "Levels to follow upstream" in invoke("query", "trace", "--help").stdout


def test_paragraphs_are_not_broken_mid_sentence():
    for path in (("run-script",), ("plugins", "status"), ("plugins", "list"), ("ingest",), ("db", "delete")):
        text = invoke(*path, "--help").stdout.split("╭")[0]  # the description, before the first panel
        paragraphs = [[ln.strip() for ln in p.splitlines() if ln.strip()] for p in re.split(r"\n\s*\n", text)]
        for para in paragraphs:
            for ln in para[:-1]:  # a line inside a paragraph fills the width (it is wrapped, not cut)
                assert len(ln) > 70, (path, ln)


def test_queue_size_is_an_integer():
    assert "<int>" in invoke("plugins", "status", "--help").stdout
    r = invoke("plugins", "status", "--queue-size", "lots")
    assert r.exit_code == 2 and "as an integer" in " ".join(r.stderr.replace("│", " ").split())


def test_default_db_and_default_catalog_are_the_names_everywhere():
    extract = invoke("extract", "--help").stdout
    assert "--default-db" in extract and "--default-catalog" in extract
    assert "--database" not in extract  # the old name is a hidden alias
    for path in (("ingest-log",), ("spark-ingest",), ("catalog", "dump")):
        text = invoke(*path, "--help").stdout
        assert "--default-catalog" in text and "--catalog-name" not in text, path


def test_hidden_aliases_still_work():
    r = invoke("extract", "-", "--database", "db", "--format", "jsonl", stdin="INSERT INTO t SELECT a FROM s")
    assert r.exit_code == 0 and '"database":"db"' in r.stdout.replace(" ", "")


def test_extract_default_catalog_names_the_catalog_of_unqualified_tables():
    r = invoke("extract", "-", "--default-catalog", "hive", "--format", "jsonl", stdin="INSERT INTO t SELECT a FROM s")
    assert r.exit_code == 0
    assert '"catalog":"hive"' in r.stdout.replace(" ", "")
