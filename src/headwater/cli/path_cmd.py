"""``headwater query path COLUMN``: a column's story as a tree, through every intermediate column.

Each branch is one mapping into the column above it, read upstream: the input column, the kind of
mapping (IDENTITY, TRANSFORMATION, AGGREGATION; an indirect one with its type) and the expression of
that hop, as the statement wrote it. A column reached twice is expanded once (``see above``).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text
from rich.tree import Tree

from headwater.cli.display import lit
from headwater.cli.store_cmd import (
    NAMES,
    AsOfOpt,
    Fmt,
    FmtOpt,
    LevelName,
    LevelOpt,
    StoreOpt,
    _console,
    _fail,
    _run,
    cut_notes,
    parse_as_of,
)
from headwater.cli.stores import open_cli_store
from headwater.service import schemas as m

_FIELD_LEVEL = {"CONDITIONAL", "WINDOW"}


def _kept(e: m.Edge, level: LevelName) -> bool:
    if e.type != "MAPS_TO":
        return False
    if level == LevelName.direct:
        return e.dependency == "DIRECT"
    if level == LevelName.field:
        return e.dependency == "DIRECT" or e.subtype in _FIELD_LEVEL
    return True


def story(g: m.LineageGraph, level: LevelName) -> dict[str, Any]:
    """The tree of ``g`` (an upstream graph of a field) as nested dicts: ``field``, and for each input
    ``subtype``, ``dependency``, ``expression`` and its own ``inputs``; ``seen`` marks a column
    already expanded elsewhere in the tree, ``cycle`` one that is its own input."""
    nodes = {n.id: n for n in g.nodes} | {g.root.id: g.root}
    into: dict[int, list[m.Edge]] = {}
    for e in g.edges:
        if _kept(e, level) and e.source in nodes:
            into.setdefault(e.target, []).append(e)
    expanded: set[int] = set()

    def grow(node: int, path: frozenset[int]) -> list[dict[str, Any]]:
        expanded.add(node)
        out = []
        for e in sorted(into.get(node, ()), key=lambda x: (x.dependency != "DIRECT", nodes[x.source].name)):
            item: dict[str, Any] = {
                "field": nodes[e.source].name,
                "subtype": e.subtype,
                "dependency": e.dependency,
                "expression": e.expression,
            }
            if e.source in path:
                item["cycle"] = True
            elif e.source in expanded and into.get(e.source):
                item["seen"] = True
            else:
                item["inputs"] = grow(e.source, path | {e.source})
            out.append(item)
        return out

    return {"field": g.root.name, "inputs": grow(g.root.id, frozenset({g.root.id}))}


def _label(item: dict[str, Any]) -> Text:
    name = NAMES.short(item["field"], "FIELD")
    kind = item["subtype"] or ""
    if item["dependency"] == "INDIRECT":
        kind = f"INDIRECT {kind}".strip()
    text = lit(name, "bold")
    text.append(f"  {kind}", "cyan")
    expression = item.get("expression")
    if expression and not (item["subtype"] == "IDENTITY" and item["field"].endswith("." + expression)):
        text.append("  ")
        text.append(expression)
    if item.get("seen"):
        text.append("  (see above)", "dim")
    if item.get("cycle"):
        text.append("  (its own input: a cycle)", "yellow")
    return text


def path(
    field: Annotated[str, typer.Argument(help="table.column (or a longer name).")],
    store: StoreOpt = None,
    level: LevelOpt = None,
    depth: Annotated[int | None, typer.Option("--depth", min=1, help="Levels to follow (default: all).")] = None,
    as_of: AsOfOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """A column's story: the tree of every column it comes from, through each intermediate column,
    with the mapping and its expression at each hop (upstream; --level as for origin)."""
    when = parse_as_of(as_of)
    chosen = level or LevelName.field
    s = open_cli_store(store)
    g = m.LineageGraph.model_validate(_run(lambda: s.get_lineage(field, "UPSTREAM", depth, when)))
    if g.root.type != "FIELD":
        _fail(f"{field!r} is a {g.root.type}, not a column; give table.column (query upstream shows a table's)")
    tree = story(g, chosen)
    if fmt == Fmt.json:
        import json

        print(json.dumps({"level": chosen.value, "truncated": g.truncated, **tree}, indent=2, ensure_ascii=False))
        return
    console = _console()
    top = Tree(lit(NAMES.short(g.root.name, g.root.type), "bold"))

    def add(branch: Tree, items: list[dict[str, Any]]) -> None:
        for item in items:
            add(branch.add(_label(item)), item.get("inputs", []))

    add(top, tree["inputs"])
    console.print(top)
    if not tree["inputs"]:
        console.print(f"no inputs at level {chosen.value}: the value is constant or system-made; try --level all")
    for note in cut_notes(g, depth):
        console.print(lit(note, "yellow"))
