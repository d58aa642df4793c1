"""``ScriptPieces`` keeps where each statement is, not its tokens: memory flat, the same tokens."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from headwater.extract import split
from headwater.extract.split import ScriptPieces


def _fields(tokens: list) -> list[tuple]:
    return [(t.token_type, t.text, t.line, t.col, t.start, t.end, tuple(t.comments)) for t in tokens]


def _taken_tokens(text: str, dialect: str, monkeypatch: pytest.MonkeyPatch) -> list[list[tuple]]:
    """The tokens each statement of ``ScriptPieces`` is parsed from (first call: a REPLACE parses again)."""
    seen: dict[int, list[tuple]] = {}
    parse = split._parse_chunk

    def spy(index: int, chunk: list, *rest: object) -> split.Piece:
        seen.setdefault(index, _fields(chunk))
        return parse(index, chunk, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(split, "_parse_chunk", spy)
    pieces = ScriptPieces(text, dialect)
    assert len(list(pieces)) == len(pieces)
    return [seen[k] for k in sorted(seen)]


CASES = [
    ("SELECT 1; -- trailing\n-- lead\nSELECT 2 /* c */;\nSELECT /*+ hint */ a FROM t; /* x */ SELECT 3", "doris"),
    ("CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END;\nINSERT INTO t SELECT 1 -- c\n;\n", "mysql"),
    ("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END;", "flink"),
    ("SELECT 'a;b'; SELECT \"x\"\n; SHOW TABLES; USE db; SELECT 1", "spark"),
    ("REPLACE INTO t (a) SELECT b FROM s; SET x = 1; SELECT 2", "mysql"),
    ("SELECT 1\n/* c */ ;\nSELECT 2;;SELECT 3", "doris"),
    ("BEGIN; SELECT 1; COMMIT; DECLARE x INT; SELECT 2", "bigquery"),
]


@pytest.mark.parametrize(("text", "dialect"), CASES)
def test_a_statement_is_parsed_from_the_tokens_the_whole_script_gives(
    text: str, dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = [_fields(s.tokens) for s in split._steps(text, dialect, None) if isinstance(s, split._Chunk)]
    assert _taken_tokens(text, dialect, monkeypatch) == whole


def test_the_same_across_windows_and_a_block_carried_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "WINDOW", 2_000)
    lines = [f"INSERT INTO t{i} SELECT a, 'x;y' AS b FROM s -- c {i}\n;" for i in range(300)]
    block = "CREATE PROCEDURE p() BEGIN " + " ".join(f"SELECT {i};" for i in range(400)) + " END;"
    text = "\n".join([*lines, block, "SELECT 9"])
    whole = [_fields(s.tokens) for s in split._steps(text, "mysql", None) if isinstance(s, split._Chunk)]
    assert len(whole) == 302
    assert _taken_tokens(text, "mysql", monkeypatch) == whole


def test_memory_per_statement_is_a_few_integers_not_the_tokens() -> None:
    """~5 KB a statement when the tokens were kept (100,000 statements: ~0.5 GB); now the span."""
    n = 3_000
    text = "\n".join(
        f"INSERT INTO db.t{i % 40} SELECT a + {i} AS a, b, c FROM db.s{i % 7} WHERE d > {i};" for i in range(n)
    )
    gc.collect()
    tracemalloc.start()
    try:
        pieces = ScriptPieces(text, "doris")
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(pieces) == n
    assert held / n < 300, f"{held / n:.0f} bytes a statement"
    assert pieces[n - 1].sql.endswith(f"d > {n - 1}") and pieces[n - 1].line == n


def test_trees_kept_between_two_reads_stay_within_the_budget_and_go_when_taken() -> None:
    from headwater.extract.split import TreeBudget

    text = "\n".join(f"INSERT INTO db.t SELECT a + {i} AS a FROM db.s;" for i in range(100))  # ~45 chars each
    budget = TreeBudget(500)
    pieces = ScriptPieces(text, "doris", keep=budget)
    first = list(pieces)  # the order's read
    budget.close()
    kept, held = len(pieces._kept), sum(len(p.sql) for p in pieces._kept.values())
    assert 0 < held <= 500 and kept < 100
    again = list(pieces)  # extraction's read takes them as they are, and parses the others again
    assert not pieces._kept
    assert sum(a is b for a, b in zip(first, again, strict=True)) == kept
