"""Every golden case extracts exactly to its reviewed expected file (see tests/golden/README.md)."""

from __future__ import annotations

import difflib

import pytest

from tests.golden.harness import all_cases, render
from tests.golden.xfails import XFAIL

CASES = all_cases()


def _param(case):
    marks = []
    if case.id in XFAIL:
        marks.append(pytest.mark.xfail(strict=True, reason=f"{XFAIL[case.id]} (tests/golden/FINDINGS.md)"))
    return pytest.param(case, id=case.id, marks=marks)


def test_corpus_is_there():
    assert len(CASES) > 0
    assert not set(XFAIL) - {c.id for c in CASES}, "xfails.py names a case that does not exist"


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_golden(case):
    assert case.expected_path.exists(), (
        f"no expected file: run `.venv/bin/python -m tests.golden.bless --only {case.id}`"
    )
    expected = case.expected_path.read_text(encoding="utf-8")
    actual = render(case)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{case.id}.expected.yaml (expected)",
                tofile=f"{case.id} (headwater now)",
            )
        )
        pytest.fail(
            f"lineage of {case.id} differs from its expected file:\n{diff}\n"
            f"if the change is intended: .venv/bin/python -m tests.golden.bless --only {case.id}, then review the diff",
            pytrace=False,
        )
