"""A project's SQL files at a git revision, read with ``git ls-tree`` and ``git show``: nothing is
checked out, the work tree stays as it is.

>>> import subprocess, tempfile, pathlib
>>> repo = pathlib.Path(tempfile.mkdtemp())
>>> run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True)
>>> _ = run("init", "-q"); (repo / "m").mkdir(); _ = (repo / "m" / "a.sql").write_text("SELECT 1")
>>> _ = run("add", "."); _ = run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
>>> sql_files_at(repo, "HEAD"), sql_files_at(repo / "m", "HEAD")
({'m/a.sql': 'SELECT 1'}, {'a.sql': 'SELECT 1'})
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitError(Exception):
    """git could not answer (not a repository, an unknown revision): the message says which."""


def _git(directory: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, check=False)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:2])}: {message[-1] if message else 'failed'}")
    return done.stdout


def sql_files_at(directory: Path, revision: str) -> dict[str, str]:
    """The ``*.sql`` files below ``directory`` at ``revision`` (path relative to ``directory`` → text)."""
    _git(directory, "rev-parse", "--show-toplevel")  # not a repository: git's own message
    try:
        _git(directory, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except GitError:
        raise GitError(f"{revision!r} is not a revision of the repository at {directory}") from None
    listing = _git(directory, "ls-tree", "-r", "-z", "--name-only", revision, "--", ".")
    out: dict[str, str] = {}
    for raw in listing.split(b"\0"):
        name = raw.decode("utf-8", errors="surrogateescape")
        if name and name.lower().endswith(".sql"):
            data = _git(directory, "show", f"{revision}:./{name}")
            out[name] = data.decode("utf-8-sig", errors="replace")
    return dict(sorted(out.items()))
