"""Git mode on a repository the test makes: the branch's SQL against main's, read with git, the work
tree and HEAD left as they were."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from headwater.diff.git_tree import GitError, sql_files_at
from tests.cli.conftest import invoke
from tests.diff.conftest import SHOP, edited, write_project

MART = "marts/customer_revenue.sql"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: the shop under warehouse/; branch drop-name: customer_name dropped, revenue an average."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_project(root / "warehouse", SHOP)
    (root / "README.md").write_text("not SQL\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "the shop")
    git(root, "checkout", "-qb", "drop-name")
    changed = edited(SHOP, MART, "       c.name AS customer_name,\n", "")
    changed = edited(changed, MART, "SUM(o.amount) AS revenue", "AVG(o.amount) AS revenue")
    write_project(root / "warehouse", changed)
    git(root, "commit", "-qam", "drop customer_name, average revenue")
    git(root, "checkout", "-q", "main")
    return root


def test_files_at_a_revision_are_read_without_a_checkout(repo: Path) -> None:
    at_branch = sql_files_at(repo / "warehouse", "drop-name")
    assert sorted(at_branch) == sorted(SHOP)
    assert "AVG(o.amount)" in at_branch[MART]
    assert sql_files_at(repo / "warehouse", "main") == SHOP
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert "AVG" not in (repo / "warehouse" / MART).read_text()


def test_unknown_revision_and_not_a_repository(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(GitError, match="'nope' is not a revision"):
        sql_files_at(repo, "nope")
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(GitError, match="not a git repository"):
        sql_files_at(outside, "HEAD")


def test_the_branch_breaks_the_view(repo: Path, schema_file: Path) -> None:
    status = git(repo, "status", "--porcelain")
    r = invoke(
        "diff", "--git-base", "main", "--git-head", "drop-name", str(repo / "warehouse"),
        "--dialect", "spark", "--schema", str(schema_file), "--format", "markdown",
    )  # fmt: skip
    assert r.exit_code == 1, r.output
    assert r.stdout.startswith("## 🔴 headwater diff: BREAKING\n\n`main` → `drop-name`; downstream read from `main`.")
    assert "- `reports/reports.sql:7` (reports/reports.sql#2): unknown_column:" in r.stdout
    assert "| `revenue` | expression | POSSIBLY_BREAKING | `marts/customer_revenue.sql:1` |" in r.stdout
    # nothing checked out, nothing written
    assert git(repo, "status", "--porcelain") == status
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


def test_git_mode_usage_errors(repo: Path) -> None:
    r = invoke("diff", "--git-base", "nope", str(repo))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: 'nope' is not a revision of the repository at {repo}"
    r = invoke("diff", "--git-base", "main", str(repo), str(repo))
    assert r.exit_code == 2 and "at most its directory" in r.stderr
