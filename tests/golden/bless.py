"""Re-bless the golden corpus: rewrite the expected files from what headwater extracts now.

    .venv/bin/python -m tests.golden.bless [--only PATTERN] [--include-xfail] [--check] [--stats]

Then READ ``git diff tests/golden`` before committing: every changed line is a lineage change.
"""

from __future__ import annotations

import argparse
import collections
import sys

from tests.golden.harness import all_cases, count_statements, render
from tests.golden.xfails import XFAIL


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.golden.bless", description=__doc__.splitlines()[0])
    p.add_argument("--only", metavar="PATTERN", help="cases whose id (<dialect>/<name>) contains PATTERN or matches it")
    p.add_argument(
        "--include-xfail",
        action="store_true",
        help="also rewrite cases listed in xfails.py (their expected files were corrected by hand: careful)",
    )
    p.add_argument("--check", action="store_true", help="write nothing; list the cases that differ (exit 1 if any)")
    p.add_argument("--stats", action="store_true", help="print cases and statements per dialect")
    args = p.parse_args(argv)

    cases = all_cases(args.only)
    if not cases:
        print(f"no case matches {args.only!r}", file=sys.stderr)
        return 2
    changed = []
    per_dialect: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for case in cases:
        text = render(case)
        per_dialect[case.path.parent.name][0] += 1
        per_dialect[case.path.parent.name][1] += count_statements(text)
        old = case.expected_path.read_text(encoding="utf-8") if case.expected_path.exists() else None
        if old == text:
            continue
        if case.id in XFAIL and not args.include_xfail:
            print(f"kept      {case.id} (xfail {XFAIL[case.id]}: expected file corrected by hand)")
            continue
        changed.append(case.id)
        if args.check:
            print(f"differs   {case.id}")
        else:
            case.expected_path.write_text(text, encoding="utf-8")
            print(f"{'rewrote' if old is not None else 'created'}   {case.id}")
    if args.stats:
        total = [0, 0]
        for dialect, (n_cases, n_stmts) in sorted(per_dialect.items()):
            print(f"{dialect:10} {n_cases:3} cases {n_stmts:4} statements")
            total[0] += n_cases
            total[1] += n_stmts
        print(f"{'total':10} {total[0]:3} cases {total[1]:4} statements")
    if not changed:
        print(f"{len(cases)} case(s) up to date")
    elif not args.check:
        print("now review: git diff tests/golden  (every changed line is a lineage change)")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
