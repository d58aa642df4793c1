'''Dotted names whose parts may hold dots or quotes: one rule to write them and one to read them.

A part is written plain unless plain text would read back as something else: a part that holds a
``.`` or a ``"``, starts with a quote character (`` ` ``, ``[``, ``'``), has blanks around it or is
empty is written in double quotes, inner double quotes doubled, as SQL quotes an identifier. So
every plain name (``internal.sales.orders``) is written as it always was, and the table ``a.b`` of
database ``d`` (``d."a.b"``) differs from the table ``b`` of database ``d.a`` (``"d.a".b``) and from
the table ``b`` of database ``a`` (``a.b``).

Reading (``split``) takes a part in double quotes, backticks, brackets or single quotes as one
identifier (its closing character doubled stands for itself), and anything else up to the next dot
as a plain part: what a user types (``db."a.b".col``, ``db.`a.b`.col``, ``[dbo].[t]``) reads as the
store writes it.

>>> join(["internal", "d", "a.b"]), join(["internal", "a", "b"]), join(["d", "[/x]"]), join(["d", '"q"'])
('internal.d."a.b"', 'internal.a.b', 'd."[/x]"', 'd."""q"""')
>>> split('d."a.b".col'), split("d.`a.b`.[c]"), split('d."""q"""')
(['d', 'a.b', 'col'], ['d', 'a.b', 'c'], ['d', '"q"'])
'''

from __future__ import annotations

__all__ = ["join", "needs_quotes", "quote", "split", "split_marked"]

_OPEN_CLOSE = {'"': '"', "`": "`", "[": "]", "'": "'"}


def needs_quotes(part: str) -> bool:
    """Whether ``part`` must be written in double quotes to read back as itself.

    >>> needs_quotes("orders"), needs_quotes("a.b"), needs_quotes("[x]"), needs_quotes("a[/b]"), needs_quotes('a"b')
    (False, True, True, False, True)
    """
    return not part or "." in part or '"' in part or part[0] in _OPEN_CLOSE or part != part.strip()


def quote(part: str) -> str:
    """``part`` as written in a dotted name: plain, or in double quotes (``needs_quotes``)."""
    if needs_quotes(part):
        return '"' + part.replace('"', '""') + '"'
    return part


def join(parts: list[str] | tuple[str, ...]) -> str:
    """The dotted name of ``parts`` (each quoted where needed)."""
    return ".".join([quote(p) for p in parts])


def split_marked(name: str) -> list[tuple[str, bool]]:
    """The parts of a dotted name, each with whether it was quoted. A quote that is never closed, or
    a closing quote not followed by a dot, leaves that part plain (read up to the next dot).

    >>> split_marked('a."b.c"'), split_marked('"a'), split_marked('"a"x.b')
    ([('a', False), ('b.c', True)], [('"a', False)], [('"a"x', False), ('b', False)])
    """
    if not any(c in name for c in _OPEN_CLOSE):
        return [(p, False) for p in name.split(".")]
    out: list[tuple[str, bool]] = []
    i, n = 0, len(name)
    while True:
        quoted = _quoted_at(name, i)
        if quoted is not None:
            text, i = quoted
            out.append((text, True))
        else:
            end = name.find(".", i)
            end = n if end < 0 else end
            out.append((name[i:end], False))
            i = end
        if i >= n:
            return out
        i += 1  # the dot
        if i == n:
            out.append(("", False))
            return out


def _quoted_at(name: str, i: int) -> tuple[str, int] | None:
    """The quoted part that starts at ``i`` (blanks around it allowed) and where it ends (at a dot or the
    end), or None when no well-formed quoted part starts there."""
    j = i
    while j < len(name) and name[j] == " ":
        j += 1
    close = _OPEN_CLOSE.get(name[j]) if j < len(name) else None
    if close is None:
        return None
    chars: list[str] = []
    k = j + 1
    while k < len(name):
        c = name[k]
        if c == close:
            if k + 1 < len(name) and name[k + 1] == close:
                chars.append(c)
                k += 2
                continue
            end = k + 1
            while end < len(name) and name[end] == " ":
                end += 1
            if end == len(name) or name[end] == ".":
                return "".join(chars), end
            return None
        chars.append(c)
        k += 1
    return None


def split(name: str) -> list[str]:
    """The parts of a dotted name, quotes removed (``split_marked`` without the marks)."""
    return [p for p, _ in split_marked(name)]
