"""Golden cases whose expected file states the CORRECT lineage and headwater does not give it yet.

Each maps a case id (``<dialect>/<name>``) to its finding in ``FINDINGS.md``. The test marks such a
case ``xfail(strict=True)``: it must keep failing until the extractor is fixed; then remove the
line here (the strict xfail turns the fix into a failure until you do). ``bless`` leaves these
expected files alone unless given ``--include-xfail``.
"""

XFAIL: dict[str, str] = {}
