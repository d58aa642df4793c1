"""docs/dbt.md's CI recipe, run as the doc shows it: the test project in a git repository (main, and a
pull request's branch that drops ``stg_customers.email`` and turns ``min`` into ``max``), the deployed
store from ``ingest --dbt`` of main, then the recipe's shell step in the branch's checkout."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import invoke
from tests.project.dbt.conftest import make_project

DOC = Path(__file__).parents[3] / "docs" / "dbt.md"
IDENTITY = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "a"}


def test_the_ci_recipe_reports_the_breaking_change(tmp_path: Path) -> None:
    text = DOC.read_text()
    recipe = re.search(r"### In CI\n.*?```bash\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    with make_project(tmp_path) as project:
        env = project.env(**IDENTITY, GIT_COMMITTER_EMAIL="a@example.com")
        env["PATH"] = f"{project.bin}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"

        def git(*args: str) -> None:
            subprocess.run(["git", *args], cwd=project.dir, env=env, check=True, capture_output=True)

        git("init", "-q", "-b", "main")
        (project.dir / ".gitignore").write_text("target/\nlogs/\n")
        git("add", ".")
        git("commit", "-qm", "the shop")
        git("remote", "add", "origin", str(project.dir))
        project.dbt("compile", "--target-path", str(tmp_path / "deployed"))
        url = f"sqlite:///{tmp_path / 'lineage.db'}"
        assert invoke("ingest", "--dbt", str(tmp_path / "deployed"), "--store", url).exit_code == 0
        git("checkout", "-q", "-b", "pr")
        project.edit("models/staging/stg_customers.sql", "    lower(email) as email,\n", "")
        project.edit("models/intermediate/int_customer_orders.sql", "min(o.order_date)", "max(o.order_date)")
        git("commit", "-qam", "drop email, max order date")
        done = subprocess.run(
            ["sh", "-c", recipe],
            cwd=project.dir,
            env={**env, "HEADWATER_STORE": url},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        report = (project.dir / "lineage-diff.md").read_text()
        worktrees = subprocess.run(["git", "worktree", "list"], cwd=project.dir, capture_output=True, text=True)
    s = f"test.{project.schema}_"
    assert report.startswith("## 🔴 headwater diff: BREAKING\n")
    assert f"downstream read from `{url}`" in report
    assert "2 breaking, 1 possibly breaking, 0 safe column change(s); 1 statement(s) no longer extract." in report
    assert (
        f"- {s}staging.stg_customers.email: dropped; breaks 1 reader(s): {s}snapshots.customers_snapshot.email\n"
        in (report)
    )
    assert done.stdout == report  # the step prints it for the CI log
    assert len(worktrees.stdout.splitlines()) == 1  # the base's worktree is removed
