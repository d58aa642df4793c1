"""Time and peak memory of one statement made of a long operator chain, each in a child process.

    python bench/operator_chains.py [--bytes 4000000] [--shape dcolon ...] [--src DIR]

Each shape (``a::int`` casts, ``-> '$.x'`` JSON paths, ``[1]`` subscripts, ``DIV``, ``<=>``, ``+``)
is repeated until the statement is ``--bytes`` long (under the 4 MB statement limit by default) and
extracted once (``headwater.extract.extract_script``, dialect doris) in a fresh child process, which
prints the seconds, its peak RSS (``ru_maxrss``), the tokenizing time alone and the outcome (the
diagnostic code, or ``event``). ``--src DIR`` runs another checkout's ``src`` (before/after).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SHAPES = {
    "dcolon": ("a", "::int"),
    "arrow": ("a", " -> '$.x'"),
    "subscript": ("a", "[1]"),
    "div": ("a", " DIV a"),
    "nullsafe": ("a", " <=> a"),
    "plus": ("a", " + a"),
}

CHILD = r"""
import json, resource, sys, time
from sqlglot.dialects.dialect import Dialect
from headwater.extract import extract_script
head, unit, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
prefix = "INSERT INTO t SELECT "
sql = prefix + head + unit * ((size - len(prefix) - len(head) - 8) // len(unit)) + " FROM s"
t0 = time.perf_counter()
Dialect.get_or_raise("doris").tokenize(sql)
tokenize = time.perf_counter() - t0
t0 = time.perf_counter()
res = extract_script(sql, dialect="doris", statements="all")
seconds = time.perf_counter() - t0
st = res.statements[0]
outcome = st.error.code if st.error is not None else ("event" if st.events else st.kind)
print(json.dumps({"bytes": len(sql), "seconds": round(seconds, 2), "tokenize": round(tokenize, 2),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, "outcome": outcome}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bytes", type=int, default=3_990_000)
    ap.add_argument("--shape", action="append", choices=sorted(SHAPES))
    ap.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": args.src}
    for name in args.shape or list(SHAPES):
        head, unit = SHAPES[name]
        try:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, head, unit, str(args.bytes)],
                env=env,
                capture_output=True,
                text=True,
                timeout=args.timeout,
            )
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else f"exit {out.returncode}"
            result = json.loads(line) if line.startswith("{") else {"error": line, "stderr": out.stderr[-300:]}
        except subprocess.TimeoutExpired:
            result = {"error": f"timeout after {args.timeout} s"}
        print(f"{name:10} {unit!r:12} {json.dumps(result)}", flush=True)


if __name__ == "__main__":
    main()
