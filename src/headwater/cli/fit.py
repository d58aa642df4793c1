"""SQL and names in table cells that wrap between identifiers, never inside one, at any terminal width.

``SqlText`` wraps a statement or expression at spaces and after punctuation (``.``, ``,``, ``(`` …);
``fit`` gives each column of a table at least its widest identifier, sharing the rest of the
terminal in proportion to what each column could use (an identifier is folded only when it alone is
wider than the terminal allows).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from headwater.cli.display import DottedName

# an identifier (plain, "quoted" or `quoted`), a run of spaces, or one other character
_ATOM = re.compile(r'[\w$#@]+|"(?:[^"]|"")*"|`[^`]*`|[ \t]+|.', re.S)
_AFTER = frozenset(".,(;/=+-*<>|:[{")  # a line may break after these, when a word follows
_WORD = re.compile(r'[\w$#@"`]')
SHORT = 24  # a column no wider than this (a time, a count, a kind) is given its whole width first


def pieces(text: str, code: bool = True) -> list[str]:
    """The unbreakable pieces of one line of SQL (``code``; else of words, broken at spaces only):
    a line may break between two pieces only.

    >>> pieces("SUM(o.amount) AS total")
    ['SUM(', 'o.', 'amount)', ' ', 'AS', ' ', 'total']
    >>> pieces('a."x y".b,c')
    ['a.', '"x y".', 'b,', 'c']
    >>> pieces("2024-05-01 10:00:00", code=False)
    ['2024-05-01', ' ', '10:00:00']
    """
    if not code:
        return re.findall(r"[ \t]+|[^ \t]+", text)
    atoms = _ATOM.findall(text)
    out: list[str] = []
    for i, atom in enumerate(atoms):
        prev = atoms[i - 1] if i else ""
        breaks = not out or atom.isspace() or prev.isspace() or (prev in _AFTER and bool(_WORD.match(atom)))
        if breaks:
            out.append(atom)
        else:
            out[-1] += atom
    return out


class SqlText:
    """SQL (or any text) that wraps at spaces and after punctuation, keeping each identifier whole
    (folded only when it alone is wider than the space). Line breaks of the text are kept.

    >>> c = Console(width=16, color_system=None)
    >>> with c.capture() as cap:
    ...     c.print(SqlText("SELECT o.customer_id, SUM(o.amount) FROM lineage_orders o"))
    >>> cap.get().splitlines()
    ['SELECT o.', 'customer_id,', 'SUM(o.amount)', 'FROM', 'lineage_orders o']
    """

    def __init__(self, text: str, style: str = "", code: bool = True) -> None:
        self.text = text
        self.style = style
        self.lines = [pieces(ln, code) for ln in text.split("\n")]

    @property
    def widest(self) -> int:
        """The widest unbreakable piece: the least width that cuts no identifier."""
        return max((len(p) for ln in self.lines for p in ln if not p.isspace()), default=0)

    @property
    def longest(self) -> int:
        return max((len(ln) for ln in self.text.split("\n")), default=0)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.widest, options.max_width), min(self.longest, options.max_width))

    def wrapped(self, width: int) -> list[str]:
        """The lines of the text at ``width`` columns."""
        out: list[str] = []
        for ln in self.lines:
            current = ""
            for piece in ln:
                if piece.isspace():
                    if current and len(current) + len(piece) <= width:
                        current += piece
                    elif current:
                        out.append(current)
                        current = ""
                    continue
                if current and len(current) + len(piece) > width:
                    out.append(current.rstrip())
                    current = ""
                current += piece
                while len(current) > width:  # one identifier wider than the space: fold it
                    out.append(current[:width])
                    current = current[width:]
            out.append(current.rstrip())
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(self.wrapped(max(1, options.max_width))), style=self.style, no_wrap=True)

    def __str__(self) -> str:
        return self.text


Cell = DottedName | SqlText | Text | str  # a str or Text: words, wrapped at spaces only


def _cell(value: Cell) -> DottedName | SqlText:
    if isinstance(value, DottedName | SqlText):
        return value
    if isinstance(value, Text):
        return SqlText(value.plain, str(value.style or ""), code=False)
    return SqlText(value, code=False)


def _span(cell: DottedName | SqlText) -> tuple[int, int]:
    if isinstance(cell, DottedName):
        return max(len(p) for p in cell.pieces), len(cell.name)
    return cell.widest, cell.longest


def share(room: int, least: list[int], most: list[int]) -> list[int]:
    """Widths between ``least`` and ``most`` that fill at most ``room``: each column gets its least,
    then the space left goes first to the columns that want least beyond it (a short column is
    whole before a long one grows; the long ones share the rest evenly).

    >>> share(100, [10, 20, 10], [30, 20, 50])
    [30, 20, 50]
    >>> share(60, [7, 10, 24], [7, 19, 90])
    [7, 19, 34]
    >>> share(40, [10, 10], [50, 50])
    [20, 20]
    """
    widths = list(least)
    spare = max(0, room - sum(least))
    short = [i for i in range(len(least)) if most[i] <= SHORT]
    for i in sorted(short, key=lambda i: most[i] - least[i]):  # a time, a count, a kind: whole first
        give = min(most[i] - least[i], spare)
        widths[i] += give
        spare -= give
    wants = sorted((i for i in range(len(least)) if i not in short), key=lambda i: most[i] - least[i])
    for k, i in enumerate(wants):
        give = min(most[i] - least[i], spare // (len(wants) - k))
        widths[i] += give
        spare -= give
    return widths


def _overhead(table: Table) -> int:
    n = len(table.columns)
    _, right, _, left = table.padding
    extra = n * (left + right) - (0 if table.pad_edge else left + right)
    return extra + (n - 1 + (2 if table.show_edge else 0) if table.box else 0)


def _spans(table: Table, cells: list[list[DottedName | SqlText]]) -> tuple[list[int], list[int]]:
    least = [max((len(w) for w in str(c.header).split()), default=1) for c in table.columns]
    most = [len(str(c.header)) for c in table.columns]
    for row in cells:
        for i, cell in enumerate(row):
            lo, hi = _span(cell)
            least[i], most[i] = max(least[i], lo), max(most[i], hi)
    return least, [max(lo, hi) for lo, hi in zip(least, most, strict=True)]


def fit(console: Console, table: Table, rows: Sequence[Sequence[Cell]]) -> Table:
    """``table`` (its columns already added) with ``rows``, in column widths that keep every
    identifier whole; where the terminal is too narrow for that, one record per section of a
    two-column table (each column's header, then its value)."""
    cells = [[_cell(v) for v in row] for row in rows]
    least, most = _spans(table, cells)
    if sum(least) + _overhead(table) > console.width and len(table.columns) > 2:
        pairs = Table(title=table.title, title_justify=table.title_justify, show_header=False, box=table.box)
        pairs.add_column()
        pairs.add_column()
        records = [[(str(c.header), v) for c, v in zip(table.columns, row, strict=True)] for row in cells]
        flat = [[SqlText(h, "bold", code=False), v] for record in records for h, v in record]
        fitted = fit(console, pairs, [])
        least, most = _spans(fitted, flat)
        _widths(fitted, share(console.width - _overhead(fitted), least, most))
        for record in records:
            for k, (h, v) in enumerate(record):
                fitted.add_row(SqlText(h, "bold", code=False), v, end_section=k == len(record) - 1)
        return fitted
    _widths(table, share(console.width - _overhead(table), least, most))
    for row in cells:
        table.add_row(*row)
    return table


def _widths(table: Table, widths: list[int]) -> None:
    for column, width in zip(table.columns, widths, strict=True):
        column.width = max(1, width)
        column.overflow = "fold"
