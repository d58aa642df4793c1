"""A synthetic warehouse for the explorer's large-graph tests, as headwater events.

- layered: 10 layers of 38 tables (``l0_t00`` … ``l9_t37``); table t of layer k > 0 is written by
  one job reading tables 3t, 3t + 1 and 3t + 2 (mod 38) of layer k - 1. Upstream of ``l9_t00`` at
  full depth is a graph of 498 nodes (268 tables, 230 jobs) and 920 edges.
- ``hub``: 10 sources → ``hub`` → 120 marts → 120 reports: ``hub`` has a fan-out of 120 jobs.
- ``warehouse_events``: 2,000 tables in 6 layers, one database each (raw 920, staging 620,
  intermediate 300, marts 119, reports 40, exposures 1): upstream of ``exposures.board`` is all of it.
- ``fan_in_events``: a table ``fan_in`` written by 52 jobs, each copying one source ``feed_00`` …
  ``feed_51`` (a separate store, for the folding of many writers).

Every table has the columns ``id``, ``a``, ``b`` and ``c``: ``id`` and ``a`` are copied (IDENTITY),
``b`` computed (TRANSFORMATION), ``c`` aggregated (AGGREGATION), and the first input's ``id``
filters (FILTER, INDIRECT).
"""

from __future__ import annotations

from itertools import pairwise

from headwater.model import (
    ColumnRef,
    DirectInput,
    DirectLineage,
    DirectType,
    Field,
    IndirectLineage,
    IndirectType,
    LineageInfo,
    Origin,
    QueryContext,
    SourceCommand,
    TableRef,
    Target,
    make_event_id,
)

DB = "synth"
LAYERS = 10
WIDTH = 38
MARTS = 120
COLUMNS = ("id", "a", "b", "c")


def table(name: str) -> TableRef:
    """``name`` in the ``synth`` database, or ``db.name`` in its own."""
    db, _, short = name.rpartition(".")
    return TableRef("internal", db or DB, short)


def event(target: str, inputs: list[str], k: int, qid: str | None = None) -> LineageInfo:
    """``INSERT INTO target SELECT … FROM inputs[0] JOIN inputs[1] … WHERE inputs[0].id > 0``."""
    tgt = table(target)
    srcs = [table(i) for i in inputs]
    first = srcs[0]
    col = ColumnRef
    b_inputs = tuple(col(s, "b") for s in srcs)
    direct = (
        DirectLineage(
            "id",
            f"{first.name}.id",
            DirectType.IDENTITY,
            Origin.COLUMN,
            (col(first, "id"),),
            (DirectInput(col(first, "id")),),
        ),
        DirectLineage(
            "a",
            f"{first.name}.a",
            DirectType.IDENTITY,
            Origin.COLUMN,
            (col(first, "a"),),
            (DirectInput(col(first, "a")),),
        ),
        DirectLineage(
            "b",
            " + ".join(f"{s.name}.b" for s in srcs),
            DirectType.TRANSFORMATION,
            Origin.COLUMN,
            b_inputs,
            tuple(DirectInput(c) for c in b_inputs),
        ),
        DirectLineage(
            "c",
            f"SUM({srcs[-1].name}.c)",
            DirectType.AGGREGATION,
            Origin.COLUMN,
            (col(srcs[-1], "c"),),
            (DirectInput(col(srcs[-1], "c"), ("SUM",)),),
        ),
    )
    indirect = (IndirectLineage(IndirectType.FILTER, f"{first.name}.id > 0", (col(first, "id"),)),)
    joins = " ".join(f"JOIN {s.name} ON {s.name}.id = {first.name}.id" for s in srcs[1:])
    sql = (
        f"INSERT INTO {target}\nSELECT {first.name}.id, {first.name}.a,\n"
        f"       {' + '.join(f'{s.name}.b' for s in srcs)} AS b,\n       SUM({srcs[-1].name}.c) AS c\n"
        f"FROM {first.name} {joins}\nWHERE {first.name}.id > 0\nGROUP BY 1, 2, 3"
    )
    qid = qid or f"synth-{target}"
    return LineageInfo(
        event_id=make_event_id(qid, tgt),
        source_command=SourceCommand.INSERT_INTO,
        target=Target(tgt, tuple(Field(c) for c in COLUMNS)),
        sources=tuple(srcs),
        direct=direct,
        dataset_indirect=indirect,
        output_indirect=(),
        context=QueryContext(
            SourceCommand.INSERT_INTO,
            qid,
            sql,
            user="etl",
            database=DB,
            timestamp=f"2024-06-01T{(k // 3600) % 24:02d}:{(k // 60) % 60:02d}:{k % 60:02d}Z",
        ),
    )


def layered_name(layer: int, k: int) -> str:
    return f"l{layer}_t{k:02d}"


def synthetic_events() -> list[LineageInfo]:
    out: list[LineageInfo] = []
    n = 0
    for layer in range(1, LAYERS):
        for k in range(WIDTH):
            inputs = [layered_name(layer - 1, (3 * k + d) % WIDTH) for d in (0, 1, 2)]
            out.append(event(layered_name(layer, k), inputs, n))
            n += 1
    out.append(event("hub", [f"src_{k}" for k in range(10)], n))
    for k in range(MARTS):
        n += 1
        out.append(event(f"mart_{k:03d}", ["hub"], n))
        n += 1
        out.append(event(f"rpt_{k:03d}", [f"mart_{k:03d}"], n))
    return out


FAN_IN = 52


def fan_in_events() -> list[LineageInfo]:
    """``INSERT INTO fan_in SELECT … FROM feed_k`` for k < 52, then ``fan_in`` → ``fan_in_report``:
    52 jobs write ``fan_in``."""
    out = [event("fan_in", [f"feed_{k:02d}"], k, qid=f"synth-fan_in-{k}") for k in range(FAN_IN)]
    out.append(event("fan_in_report", ["fan_in"], FAN_IN))
    return out


WIDE_COLUMNS = 25
WIDE_LEAVES = 1024


def wide_event(target: str, inputs: list[str], k: int) -> LineageInfo:
    """``INSERT INTO target SELECT l.c00, r.c01 + l.c01, … FROM l JOIN r ON l.c00 = r.c00``: every
    column of the 25 copied or computed, and the join key an INDIRECT JOIN for all of them."""
    tgt = table(target)
    left, right = (table(i) for i in inputs)
    direct = []
    for n in range(WIDE_COLUMNS):
        name = f"c{n:02d}"
        if n % 2 == 0:
            src = (ColumnRef(left, name),)
            direct.append(
                DirectLineage(
                    name, f"{left.name}.{name}", DirectType.IDENTITY, Origin.COLUMN, src, (DirectInput(src[0]),)
                )
            )
        else:
            src = (ColumnRef(left, name), ColumnRef(right, name))
            direct.append(
                DirectLineage(
                    name,
                    f"{left.name}.{name} + {right.name}.{name}",
                    DirectType.TRANSFORMATION,
                    Origin.COLUMN,
                    src,
                    tuple(DirectInput(c, ("ARITHMETIC",)) for c in src),
                )
            )
    join = IndirectLineage(
        IndirectType.JOIN, f"{left.name}.c00 = {right.name}.c00", (ColumnRef(left, "c00"), ColumnRef(right, "c00"))
    )
    qid = f"wide-{target}"
    return LineageInfo(
        event_id=make_event_id(qid, tgt),
        source_command=SourceCommand.INSERT_INTO,
        target=Target(tgt, tuple(Field(f"c{n:02d}") for n in range(WIDE_COLUMNS))),
        sources=(left, right),
        direct=tuple(direct),
        dataset_indirect=(join,),
        output_indirect=(),
        context=QueryContext(
            SourceCommand.INSERT_INTO,
            qid,
            f"INSERT INTO {target} SELECT … FROM {left.name} JOIN {right.name} ON {left.name}.c00 = {right.name}.c00",
            user="etl",
            database=DB,
            timestamp=f"2024-07-01T{(k // 3600) % 24:02d}:{(k // 60) % 60:02d}:{k % 60:02d}Z",
        ),
    )


def wide_events() -> list[LineageInfo]:
    """A binary tree of 2,047 tables of 25 columns: 1,024 sources, then each table written by one job
    joining two tables of the level below, up to ``w10_0000``. Upstream of it at full depth: 2,047
    tables, 1,023 jobs and 89,001 column edges (37,851 DIRECT, 51,150 INDIRECT JOIN)."""
    out: list[LineageInfo] = []
    width = WIDE_LEAVES
    level = 0
    k = 0
    while width > 1:
        for t in range(width // 2):
            ins = [f"w{level:02d}_{2 * t:04d}", f"w{level:02d}_{2 * t + 1:04d}"]
            out.append(wide_event(f"w{level + 1:02d}_{t:04d}", ins, k))
            k += 1
        width //= 2
        level += 1
    return out


# The layers of the 2,000-table warehouse (its databases) and their table counts.
WAREHOUSE_LAYERS = {"raw": 920, "staging": 620, "intermediate": 300, "marts": 119, "reports": 40, "exposures": 1}


def warehouse_name(layer: str, k: int) -> str:
    return "exposures.board" if layer == "exposures" else f"{layer}.{layer[:3]}_{k:04d}"


def warehouse_events() -> list[LineageInfo]:
    """2,000 tables in 6 layers, each layer a database: table t of a layer of n tables is written by
    one job reading the tables i of the layer below (of m) with ``i * n // m == t`` — every table
    is read once, so upstream of ``exposures.board`` (reading the 40 reports) is the whole
    warehouse: 2,000 tables and 1,080 jobs."""
    out: list[LineageInfo] = []
    layers = list(WAREHOUSE_LAYERS.items())
    n = 0
    for (below, m), (layer, count) in pairwise(layers):
        for t in range(count):
            inputs = [warehouse_name(below, i) for i in range(m) if i * count // m == t]
            out.append(event(warehouse_name(layer, t), inputs, n, qid=f"wh-{layer}-{t}"))
            n += 1
    return out
