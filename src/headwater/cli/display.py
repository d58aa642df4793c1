"""What every command shares to put names, SQL and messages on a terminal.

Everything that comes from SQL, a store or a server (names, expressions, statement text, error
messages) is shown as *literal* text: rich never reads it as markup, so a table named ``[/x]``
cannot crash the output and ``[link=…]`` or ``[red]`` cannot restyle or spoof it.

>>> from rich.console import Console
>>> c = Console(width=60, color_system=None)
>>> with c.capture() as cap:
...     c.print(lit("[/x] [red]c[/red] [link=http://e.x]click[/link]"))
>>> cap.get().strip()
'[/x] [red]c[/red] [link=http://e.x]click[/link]'
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import NoReturn

import typer
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from headwater.extract.parse_message import first_words
from headwater.model import qualified

__all__ = ["DEFAULT_CATALOG", "DottedName", "Namer", "fail", "first_words", "line", "lit", "warn"]

DEFAULT_CATALOG = "internal"
_CATALOG_QUALIFIED = {"DATASET", "FIELD", None}


def lit(value: object, style: str = "") -> Text:
    """``value`` as literal text (no markup, no emoji codes) in ``style``."""
    return Text("" if value is None else str(value), style=style)


def line(*parts: str | Text) -> Text:
    """One line assembled from styled ``Text`` pieces and literal strings.

    >>> line(Text("error:", style="red"), " ", "[/x]").plain
    'error: [/x]'
    """
    out = Text()
    for p in parts:
        out.append(p if isinstance(p, Text) else Text(p))
    return out


def stderr_console() -> Console:
    """A console on standard error that does not wrap long lines into the middle of names."""
    return Console(stderr=True, soft_wrap=True, highlight=False)


def warn(message: str, console: Console | None = None) -> None:
    """``warning: <message>`` on standard error, the message literal."""
    (console or stderr_console()).print(line(Text("warning:", style="yellow"), " ", message))


def fail(message: str, code: int = 2) -> NoReturn:
    """``error: <message>`` on standard error (one line, literal), then exit ``code`` (2: usage)."""
    stderr_console().print(line(Text("error:", style="red"), " ", message))
    raise typer.Exit(code)


class DottedName:
    """A dotted name (``db.table.column``) that wraps after a dot, never inside an identifier
    (unless one identifier alone is wider than the space; then it folds).

    >>> from rich.console import Console
    >>> c = Console(width=14, color_system=None)
    >>> with c.capture() as cap:
    ...     c.print(DottedName("tpcds.catalog_sales.cs_net_paid"))
    >>> cap.get().splitlines()
    ['tpcds.', 'catalog_sales.', 'cs_net_paid']
    """

    def __init__(self, name: str, style: str = "", atomic: bool = False) -> None:
        self.name = name
        self.style = style
        pieces = [name] if atomic else _pieces(name)  # atomic: a job's name (file.sql#2) is one piece
        self.pieces = [p + "." for p in pieces[:-1]] + [pieces[-1]]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max(len(p) for p in self.pieces)
        return Measurement(min(widest, options.max_width), min(len(self.name), options.max_width))

    def wrapped(self, width: int) -> list[str]:
        """The lines of the name at ``width`` columns."""
        lines: list[str] = []
        current = ""
        for piece in self.pieces:
            if current and len(current) + len(piece) > width:
                lines.append(current)
                current = ""
            current += piece
            while len(current) > width:  # one identifier wider than the column: fold it
                lines.append(current[:width])
                current = current[width:]
        lines.append(current)
        return lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = Text("\n".join(self.wrapped(max(1, options.max_width))), style=self.style, no_wrap=True)
        yield text

    def __str__(self) -> str:
        return self.name


class Namer:
    """Names as a reader of the SQL writes them: without the default catalog, and without the
    session database where that leaves no doubt (no other shown name would read the same).

    >>> n = Namer(database="sales", names=["internal.sales.orders", "internal.crm.orders.id"])
    >>> n.short("internal.sales.orders"), n.short("internal.crm.orders.id"), n.short("hive.sales.t")
    ('orders', 'crm.orders.id', 'hive.sales.t')
    >>> Namer(database="sales", names=["internal.sales.orders", "internal.crm.orders"]).short("internal.sales.orders")
    'sales.orders'
    """

    def __init__(
        self,
        default_catalog: str | None = DEFAULT_CATALOG,
        database: str | None = None,
        names: Iterable[str] = (),
    ) -> None:
        self.catalog = (default_catalog or DEFAULT_CATALOG).lower()
        self.database = database.lower() if database else None
        self._clash: set[str] = set()
        if self.database:
            rests = {self._no_catalog(name) for name in names}
            seen: dict[str, set[str]] = {}
            for rest in rests:
                db, _, tail = _first(rest)
                if tail:
                    seen.setdefault(tail, set()).add(db.lower())
            # a tail that another database also has, or that reads as another shown name, keeps its database
            self._clash = {tail for tail, dbs in seen.items() if dbs - {self.database} or tail in rests}

    def _no_catalog(self, name: str) -> str:
        head, dot, rest = _first(name)
        return rest if dot and rest and head.lower() == self.catalog else name

    def short(self, name: str, node_type: str | None = None) -> str:
        """``name`` relative to the default catalog and (when unambiguous) the session database;
        a job by its one name (``job_label``); names of other node types (systems…) are kept whole."""
        if node_type == "JOB" or (node_type is None and name.startswith(_JOB_PREFIXES)):
            return job_label(name)
        if node_type not in _CATALOG_QUALIFIED:
            return name
        rest = self._no_catalog(name)
        if self.database and rest != name:
            db, dot, tail = _first(rest)
            if dot and db.lower() == self.database and tail not in self._clash:
                return tail
        return rest

    def cell(self, name: str, node_type: str | None = None, style: str = "") -> DottedName:
        """The short name as a table cell that wraps at dots (a job's name never: it is one piece)."""
        job = node_type == "JOB" or (node_type is None and name.startswith(_JOB_PREFIXES))
        return DottedName(self.short(name, node_type), style, atomic=job)


_JOB_PREFIXES = ("job:", "sql:")


def _first(name: str) -> tuple[str, str, str]:
    """``str.partition(".")`` of a node name, where a part in double quotes may hold dots.

    >>> _first('internal."a.b".c'), _first("internal.d.t")
    (('internal', '.', '"a.b".c'), ('internal', '.', 'd.t'))
    """
    if '"' not in name:
        return name.partition(".")
    pieces = _pieces(name)
    return (pieces[0], ".", ".".join(pieces[1:])) if len(pieces) > 1 else (name, "", "")


def _pieces(name: str) -> list[str]:
    """The dotted parts of a node name as written (a quoted part keeps its quotes)."""
    return name.split(".") if '"' not in name else [qualified.quote(p) for p in qualified.split(name)]


def job_label(name: str) -> str:
    """A job's one name in every command, as the store's short name has it: the project's ``file#n``
    (or its ``-- name:``), the dbt unique id, or where nothing else exists the target and the
    statement's fingerprint.

    >>> job_label("job:03_marts.sql#1"), job_label("sql:977d69abd829cde4:internal.demo.summary")
    ('03_marts.sql#1', 'summary#977d69ab')
    >>> job_label("model.shop.orders")
    'model.shop.orders'
    """
    if name.startswith("job:"):
        return name[4:]
    if name.startswith("sql:"):
        fingerprint, _, target = name[4:].partition(":")
        if target:
            return f"{_pieces(target)[-1]}#{fingerprint[:8]}"
    return name


def is_terminal() -> bool:
    """Standard output is a terminal (progress bars and colours only then)."""
    return sys.stdout.isatty()
