"""Fuzzed SQL against extraction: nothing may crash the process, hang, or lose a statement.

    python bench/fuzz.py [--statements N] [--seed S] [--batch B] [--timeout SECONDS]

Statements are generated from a fixed seed: lineage statements (INSERT … SELECT, CTAS, CTEs,
UNIONs, subqueries, joins, CASE) mutated at the token level (tokens dropped, repeated, swapped,
replaced by punctuation, quotes, NUL bytes, non-ASCII text, long literals), plus extreme shapes
(deep nesting, long chains of one operator — ``+``, ``::``, ``->``, ``[i]``, ``DIV``, ``<=>``… —,
wide unions, long IN lists, doubling CTE chains). Each batch of
``B`` statements runs in a child process, each statement as a script of its own followed by a
sentinel ``INSERT INTO hw_sentinel SELECT a FROM s`` on the next line. It prints:

- statements tried;
- crashes: child processes that died (a signal, or an exit code other than 0);
- hangs: batches that did not finish within ``--timeout`` seconds;
- lost statements: statements with no result, and sentinels without their event;
- internal errors: statements that ended as ``internal_error`` (a bug, but the others went on).

The test suite runs the same generator with a fixed seed and a few thousand statements
(tests/extract/test_hostile_fuzz.py).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator

BASES = [
    "INSERT INTO t SELECT a, b + 1 AS c FROM s WHERE d > 0",
    "INSERT INTO t (x, y) SELECT UPPER(a), SUM(b) FROM s GROUP BY a HAVING SUM(b) > 1 ORDER BY 1",
    "CREATE TABLE c1 AS SELECT a, CASE WHEN b = 1 THEN 'x' ELSE c END AS k FROM s",
    "INSERT INTO t WITH w AS (SELECT a FROM s) SELECT w.a FROM w JOIN u ON w.a = u.a",
    "INSERT INTO t SELECT a FROM s UNION ALL SELECT a FROM u",
    "INSERT INTO t SELECT (SELECT MAX(b) FROM u WHERE u.a = s.a) AS m FROM s",
    "INSERT INTO t SELECT a FROM s WHERE a IN (SELECT a FROM u) AND EXISTS (SELECT 1 FROM v WHERE v.a = s.a)",
    "INSERT OVERWRITE TABLE t SELECT COALESCE(a, b), ROW_NUMBER() OVER (PARTITION BY c ORDER BY d) FROM s",
    "INSERT INTO t SELECT x.a FROM (SELECT a FROM s) x LEFT JOIN (SELECT a FROM u) y USING (a)",
    "CREATE TABLE c2 AS WITH r AS (SELECT a, b FROM s) SELECT a, COUNT(*) AS n FROM r GROUP BY a",
    "INSERT INTO t SELECT CAST(a AS INT), b || 'x', MD5(c) FROM s t1, u t2 WHERE t1.a = t2.a",
    "INSERT INTO `q`.`t` SELECT `a` FROM `s` WHERE `b` = 'it''s'",
]

JUNK = [
    "(",
    ")",
    ",",
    ";",
    "'",
    '"',
    "`",
    "``",
    '""',
    "\x00",
    "--",
    "/*",
    "*/",
    "SELECT",
    "FROM",
    "AS",
    "WITH",
    "UNION",
    "JOIN",
    "ON",
    "CASE",
    "END",
    "NOT",
    "NULL",
    "*",
    "+",
    "[/x]",
    "é",
    "表",
    "\U0001f600",
    "1e999",
    "0x",
    "?",
    "$1",
    "@v",
    ":x",
    "a" * 300,
]


def _extreme(rng: random.Random) -> str:
    n = rng.choice([50, 200, 900, 1500, 3000])
    shape = rng.randrange(9)
    if shape == 0:
        return "INSERT INTO t SELECT a FROM " + "(" * n + "s" + ")" * n
    if shape == 1:
        s = "s"
        for i in range(n):
            s = f"(SELECT a FROM {s}) q{i}"
        return "INSERT INTO t SELECT a FROM " + s
    if shape == 2:  # a chain of one operator the parser nests (issue 37: the term guard counts them all)
        unit = rng.choice([" + a", "::int", " -> '$.x'", "[1]", " DIV a", " <=> a", " LIKE a", " COLLATE c"])
        return "INSERT INTO t SELECT a" + unit * (n * 3) + " FROM s"
    if shape == 3:
        return "INSERT INTO t " + " UNION ALL ".join(f"SELECT a FROM s{i}" for i in range(n))
    if shape == 4:
        return "INSERT INTO t SELECT a FROM s WHERE a IN (" + ", ".join(str(i) for i in range(n * 10)) + ")"
    if shape == 5:
        levels = rng.randrange(5, 40)
        parts = ["c0 AS (SELECT a FROM s)"]
        parts += [f"c{i} AS (SELECT x.a + y.a AS a FROM c{i - 1} x CROSS JOIN c{i - 1} y)" for i in range(1, levels)]
        return "INSERT INTO t WITH " + ", ".join(parts) + f" SELECT a FROM c{levels - 1}"
    if shape == 6:
        return "INSERT INTO t SELECT " + "CASE WHEN a THEN " * n + "a" + " END" * n + " FROM s"
    if shape == 7:
        return "INSERT INTO t SELECT a FROM s WHERE " + "NOT " * n + "a"
    return "INSERT INTO t SELECT " + "f(" * n + "a" + ")" * n + " FROM s"


def _mutate(rng: random.Random, sql: str) -> str:
    words = sql.replace("(", " ( ").replace(")", " ) ").replace(",", " , ").split()
    for _ in range(rng.randrange(1, 5)):
        op = rng.randrange(5)
        i = rng.randrange(len(words)) if words else 0
        if not words:
            words = [rng.choice(JUNK)]
        elif op == 0:
            del words[i]
        elif op == 1:
            words.insert(i, words[i])
        elif op == 2:
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif op == 3:
            words.insert(i, rng.choice(JUNK))
        else:
            words[i] = rng.choice(JUNK)
    glue = rng.choice([" ", "  ", "\n", "\t"])
    return glue.join(words).replace(";", " ")  # one statement: the script keeps its semicolons


def statements(seed: int, count: int) -> Iterator[str]:
    """``count`` fuzzed statements, the same for the same seed."""
    rng = random.Random(seed)
    for _ in range(count):
        roll = rng.random()
        if roll < 0.04:
            yield _extreme(rng)
        elif roll < 0.10:
            yield rng.choice(BASES)
        else:
            yield _mutate(rng, rng.choice(BASES))


def check(outcome: list[list]) -> tuple[int, int]:
    """(lost statements, internal errors) of a batch, from the child's results: per statement, the
    ``[kind, error code, targets]`` of each piece of its script (the statement, then the sentinel)."""
    lost = internal = 0
    for pieces in outcome:
        if not pieces or "hw_sentinel" not in pieces[-1][2]:  # (a statement all comment has no piece)
            lost += 1
        internal += sum(1 for _, code, _ in pieces if code == "internal_error")
    return lost, internal


CHILD = """
import json, sys
from headwater.extract import extract_script
out = []
for sql in json.loads(sys.stdin.read()):
    res = extract_script(sql + "\\n;\\n" + "INSERT INTO hw_sentinel SELECT a FROM s")
    out.append([[s.kind, s.error.code if s.error else None, [e.target.table.name for e in s.events]]
                for s in res.statements])
print(json.dumps(out))
"""


def run_batch(batch: list[str], timeout: float) -> tuple[str, list[list] | str]:
    """("ok", outcome) | ("crash", stderr) | ("hang", "") for one batch in a child process."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD],
            input=json.dumps(batch).encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "hang", ""
    if proc.returncode != 0:
        return "crash", f"exit {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}"
    return "ok", json.loads(proc.stdout)


def run(seed: int, count: int, batch_size: int, timeout: float) -> dict[str, int]:
    tried = crashes = hangs = lost = internal = 0
    gen = list(statements(seed, count))
    for start in range(0, len(gen), batch_size):
        batch = gen[start : start + batch_size]
        tried += len(batch)
        status, outcome = run_batch(batch, timeout)
        if status != "ok":
            crashes += status == "crash"
            hangs += status == "hang"
            lost += len(batch)
            sys.stderr.write(f"batch at {start}: {status} {outcome}\n")
            continue
        b_lost, b_internal = check(outcome)  # type: ignore[arg-type]
        lost += b_lost
        internal += b_internal
    return {"statements": tried, "crashes": crashes, "hangs": hangs, "lost": lost, "internal_errors": internal}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--statements", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    figures = run(args.seed, args.statements, args.batch, args.timeout)
    figures["seconds"] = round(time.perf_counter() - t0)
    print(json.dumps(figures))
    sys.exit(1 if figures["crashes"] or figures["hangs"] or figures["lost"] else 0)


if __name__ == "__main__":
    main()
