"""A copy of a store while it is in use (``headwater db backup``).

SQLite: the online backup API (``sqlite3.Connection.backup``) copies the database page by page in a
read transaction, so the copy is the store as of one commit, whatever writers do meanwhile; the
copy is one file (no write-ahead log beside it). PostgreSQL: ``pg_dump`` is the tool, run with the
store's URL in libpq's form (and ``--schema`` when the URL's ``search_path`` names the store's schema).

>>> pg_dump_command("postgresql+psycopg://u@h:5432/db?options=-csearch_path%3Dlineage", "lineage.dump")
['pg_dump', '--format=custom', '--file=lineage.dump', '--schema=lineage', '--dbname=postgresql://u@h:5432/db']
"""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url


def backup_sqlite(source: Path, dest: Path) -> int:
    """Copy the SQLite store ``source`` into the new file ``dest`` (online: writers may go on);
    returns the pages copied. The copy's write-ahead log is checkpointed into it and removed."""
    src = sqlite3.connect(f"{source.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        out = sqlite3.connect(dest)
        try:
            src.backup(out)  # one step: a consistent copy of one committed state
            pages = int(out.execute("PRAGMA page_count").fetchone()[0])
            out.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            out.close()
    finally:
        src.close()
    return pages


def _search_path(options: str) -> str | None:
    """The first schema of a ``-csearch_path=…`` in libpq's ``options``."""
    for part in options.split():
        if part.startswith("-csearch_path="):
            first = part.split("=", 1)[1].split(",")[0].strip().strip('"')
            return first or None
    return None


def pg_dump_command(url: str, dest: str) -> list[str]:
    """The ``pg_dump`` command that writes the PostgreSQL store at ``url`` to ``dest`` (custom format,
    for ``pg_restore``); the password, if the URL has one, stays in the URL given to ``--dbname``."""
    u = make_url(url)
    query = dict(u.query)
    options = query.pop("options", None)
    schema = _search_path(options if isinstance(options, str) else " ".join(options or ()))
    libpq = u.set(drivername="postgresql", query=query).render_as_string(hide_password=False)
    command = ["pg_dump", "--format=custom", f"--file={dest}"]
    if schema:
        command.append(f"--schema={schema}")
    return [*command, f"--dbname={libpq}"]


def shown_command(command: list[str]) -> str:
    """``command`` as a line to show, the password of its URL hidden."""
    out = []
    for part in command:
        if part.startswith("--dbname="):
            part = "--dbname=" + make_url(part.split("=", 1)[1]).render_as_string(hide_password=True)
        out.append(part)
    return shlex.join(out)


__all__ = ["backup_sqlite", "pg_dump_command", "shown_command"]
