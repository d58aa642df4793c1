"""docs/diff.md's worked example, run as the doc shows it: the repository it makes, the branch, the
command; the report it gives is the one the doc prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).parents[2] / "docs" / "diff.md"


def test_the_worked_example_gives_the_report_the_doc_shows(tmp_path: Path) -> None:
    text = DOC.read_text()
    example = text[text.index("## Worked example") :]
    make, branch = re.findall(r"```bash\n(.*?)```", example, re.S)[:2]
    shown = re.search(r"````markdown\n(.*?)````", example, re.S).group(1)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }
    done = subprocess.run(
        ["bash", "-c", make + branch], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    assert (tmp_path / "shop" / "lineage-diff.md").read_text() == shown
