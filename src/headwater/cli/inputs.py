"""One contract for bad input files, the same in every command that reads SQL or event files.

A file that does not exist or cannot be read, binary data, or text that is not UTF-8 is one line,
``error: PATH: why`` (with the byte offset where the text stops being UTF-8), exit 2, before anything
is written or created; an empty file (no SQL statement) is a warning, ``warning: PATH: no SQL
statement``, and the run goes on.
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.text import Text

from headwater.cli.display import fail, line, stderr_console, warn

EMPTY_WARNING = "no SQL statement"
_COMMENTS = re.compile(r"--[^\n]*|#[^\n]*|/\*.*?(\*/|$)", re.S)


def text_problem(data: bytes) -> str | None:
    """Why ``data`` is not SQL text (None when it is). A few stray NUL bytes in text are left to the
    statement that holds them (it fails alone); more than that is binary data.

    >>> text_problem(b"SELECT 1"), text_problem(b"ab\\x00" * 20), text_problem(b"SELECT 1;\\n\\xff")
    (None, 'binary data (NUL byte at byte 2), not SQL text', 'not UTF-8 text (byte 10)')
    """
    nul = data.find(b"\x00")
    if nul >= 0 and data.count(b"\x00") > max(8, len(data) // 100):
        return f"binary data (NUL byte at byte {nul}), not SQL text"
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        if nul >= 0:
            return f"binary data (NUL byte at byte {nul}), not SQL text"
        return f"not UTF-8 text (byte {err.start})"
    return None


def read_problem(path: Path) -> str | None:
    """Why the file at ``path`` cannot be read as text (None when it can); a directory is fine."""
    if path.is_dir():
        return None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "no such file or directory"
    except OSError as err:
        return (err.strerror or str(err)).lower()
    return text_problem(data)


def is_empty_sql(text: str) -> bool:
    """No statement in ``text``: only blanks, ``;`` and comments.

    >>> is_empty_sql("-- nothing\\n/* here */ ;\\n"), is_empty_sql("SELECT 1")
    (True, False)
    """
    return not _COMMENTS.sub("", text).replace(";", "").strip()


def _files_of(paths: list[Path]) -> list[Path]:
    """The given files, and the ``*.sql`` files below the given directories (as ``collect_files``)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() == ".sql"))
        else:
            out.append(p)
    return out


def check_inputs(paths: list[Path], warn_empty: bool = True) -> None:
    """Every input file readable as text, or exit 2 with one ``error:`` line per bad file (before the
    command writes or creates anything); with ``warn_empty``, ``warning:`` for each SQL file without
    a statement."""
    bad: list[str] = []
    for f in _files_of(paths):
        problem = read_problem(f)
        if problem:
            bad.append(f"{f}: {problem}")
        elif warn_empty and f.suffix.lower() == ".sql" and is_empty_sql(f.read_text(encoding="utf-8-sig")):
            warn(f"{f}: {EMPTY_WARNING}")
    for message in bad[:-1]:
        stderr_console().print(line(Text("error:", style="red"), " ", message))
    if bad:
        fail(bad[-1])
