"""``headwater diff OLD_DIR NEW_DIR``: exit 0 safe, 1 breaking (or possibly breaking with --fail-on),
2 for a usage error, each a one-line message; the table at 100 columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import invoke
from tests.diff.conftest import SHOP, edited, write_project

MART = "marts/customer_revenue.sql"
AVERAGE = edited(SHOP, MART, "SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")
DROPPED = edited(SHOP, MART, "       c.name AS customer_name,\n", "")


def dirs(tmp_path: Path, new: dict[str, str]) -> list[str]:
    return [str(write_project(tmp_path / "old", SHOP)), str(write_project(tmp_path / "new", new))]


@pytest.mark.parametrize(
    ("new", "extra", "code"),
    [
        (SHOP, [], 0),
        (AVERAGE, [], 0),
        (AVERAGE, ["--fail-on", "possibly-breaking"], 1),
        (DROPPED, [], 1),
    ],
    ids=["unchanged", "possibly-breaking", "possibly-breaking-fails-on", "breaking"],
)
def test_exit_codes(tmp_path: Path, schema_file: Path, new: dict[str, str], extra: list[str], code: int) -> None:
    r = invoke("diff", *dirs(tmp_path, new), "--dialect", "spark", "--schema", str(schema_file), *extra)
    assert r.exit_code == code, r.output


def test_the_table_at_100_columns(tmp_path: Path, schema_file: Path) -> None:
    r = invoke("diff", *dirs(tmp_path, DROPPED), "--dialect", "spark", "--schema", str(schema_file))
    lines = r.stdout.splitlines()
    table = [line for line in lines if line[:1] in "┏┃┡│└"]
    assert len(table) > 5 and max(map(len, table)) <= 100  # paths and messages are not cut (soft wrap)
    assert lines[0] == f"{tmp_path / 'old'} → {tmp_path / 'new'} (downstream read from {tmp_path / 'old'})"
    assert lines[1].rstrip() == "internal.mart.customer_revenue: BREAKING"
    assert any(line.startswith("│ customer_name │ removed ") and "BREAKING" in line for line in lines)
    assert "reports/reports.sql:7: unknown_column: column customer_name is in no table of its scope" in lines
    assert lines[-1] == "verdict: BREAKING (2 breaking, 0 possibly breaking, 0 safe; 1 statement(s) no longer extract)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: give two project directories (OLD_DIR NEW_DIR), --git-base REV, or --from TIME"),
        (["only"], "error: give two project directories (OLD_DIR NEW_DIR), --git-base REV, or --from TIME"),
        (["--to", "now"], "error: --from: the earlier time is required (an ISO time or a duration back from now: 7d)"),
        (
            ["a", "--from", "7d"],
            "error: --from/--to compare two times of one store: give no directories, no --git-base and no --dbt",
        ),
        (["missing", "alsomissing"], "error: missing: not a directory (give the project directories OLD_DIR NEW_DIR)"),
    ],
)
def test_usage_errors(args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = invoke("diff", *args)
    assert (r.exit_code, r.stderr.strip()) == (2, message)


def test_a_bad_time_and_a_bad_dialect(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert invoke("db", "upgrade", "--store", url).exit_code == 0
    r = invoke("diff", "--from", "last week", "--store", url)
    assert r.exit_code == 2
    assert r.stderr.strip() == "error: --from: 'last week': give a duration (30d, 12h, 2w) or an ISO 8601 time"
    r = invoke("diff", "--from", "7d", "--store", url)
    assert (r.exit_code, r.stdout.splitlines()[-1]) == (
        0,
        "verdict: SAFE (0 breaking, 0 possibly breaking, 0 safe; 0 statement(s) no longer extract)",
    )
    r = invoke("diff", *dirs(tmp_path, SHOP), "--dialect", "nope")
    assert r.exit_code == 2 and r.stderr.startswith("error: --dialect: unknown dialect 'nope'")
