"""Issue 36, item 5: every ```bash block of README.md and docs/*.md runs as written.

Each page's blocks run in order in one ``bash`` (a block may ``cd`` or ``export`` for the next), in a
temporary directory holding a copy of ``examples/``, with ``headwater`` on ``PATH`` (this checkout),
``HOME`` in the temporary directory (the default store is never the user's) and the machine's
servers. A block that cannot run here is marked in its page, on the line before it:
``<!-- docs-test: skip (why) -->``; ``test_skipped_blocks_say_why`` lists them with their reasons.

A block fails when one of its commands exits 2 or more (a usage error, a missing command or file), or
when the output shows a traceback, an ``error:`` line or a usage box.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^([ \t]*)```bash\n(.*?)^[ \t]*```", re.M | re.S)
_SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*\((.+?)\)\s*-->")
_BROKEN = re.compile(r"Traceback \(most recent call last\)|^error:|Error ─|Usage: |command not found", re.M)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    text: str
    skip: str | None


def blocks(page: Path) -> list[Block]:
    """The page's ```bash blocks, each with the reason it is skipped (None: it runs)."""
    source = page.read_text(encoding="utf-8")
    out = []
    for m in _BLOCK.finditer(source):
        before = source[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = _SKIP.search(before)
        indent = m.group(1)
        text = "\n".join(ln[len(indent) :] if ln.startswith(indent) else ln for ln in m.group(2).splitlines())
        out.append(Block(page, source[: m.start()].count("\n") + 1, text, skip.group(1) if skip else None))
    return out


EVERY = [b for page in PAGES for b in blocks(page)]
RUN = [p for p in PAGES if any(b.skip is None for b in blocks(p))]


def _script(page: Path) -> str:
    """The page's runnable blocks as one script: each command that exits 2 or more is reported."""
    parts = ["trap 'rc=$?; [ $rc -ge 2 ] && echo \"__FAILED__ rc=$rc: $BASH_COMMAND\" >&2' ERR", "set -o pipefail"]
    for b in blocks(page):
        if b.skip is None:
            parts.append(f"echo '__BLOCK__ {page.name}:{b.line}' >&2")
            parts.append(b.text)
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("page", RUN, ids=lambda p: p.name)
def test_the_blocks_of_a_page_run_as_written(page: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    wrapper = bindir / "headwater"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m headwater.cli.main "$@"\n')
    wrapper.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "COLUMNS": "100",
        "TERM": "dumb",
        "GIT_AUTHOR_NAME": "docs",
        "GIT_AUTHOR_EMAIL": "docs@example.com",
        "GIT_COMMITTER_NAME": "docs",
        "GIT_COMMITTER_EMAIL": "docs@example.com",
    }
    env.pop("HEADWATER_STORE", None)
    run = subprocess.run(["bash", "-c", _script(page)], cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    output = run.stdout + run.stderr
    failed = re.findall(r"__FAILED__ .*", run.stderr)
    assert not failed, f"{page.name}: {failed}\n{output[-4000:]}"
    broken = _BROKEN.search(output)
    assert broken is None, f"{page.name}: {broken.group(0)!r}\n{output[-4000:]}"


def test_skipped_blocks_say_why() -> None:
    skipped = [(f"{b.page.relative_to(ROOT)}:{b.line}", b.skip) for b in EVERY if b.skip is not None]
    for where, why in skipped:
        print(f"skipped {where}: {why}")
    assert all(why and why.strip() for _, why in skipped)
    assert len(EVERY) > len(skipped)  # the tour, the store's CLI and the diff tutorial run


def test_the_examples_the_docs_use_exist() -> None:
    for name in ("etl.sql", "schema.yaml", "events.jsonl", "queries.jsonl", "warehouse/raw_schema.json"):
        assert (ROOT / "examples" / name).is_file(), name
