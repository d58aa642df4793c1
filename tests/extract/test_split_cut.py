"""The split's one cut (``split._steps``): statements past the size limit are cut in place among the others."""

from __future__ import annotations

from headwater.extract.guards import Limits
from headwater.extract.split import split_script

BIG = "INSERT INTO t SELECT " + ", ".join(f"c{i}" for i in range(60)) + " FROM s"  # past 200 bytes
LIMITS = Limits(max_statement_bytes=200)


def _cut(sql: str, dialect: str = "generic") -> list[tuple[int, int, int, str | None, bool, str]]:
    return [
        (p.index, p.line, p.column, p.error.code if p.error else None, p.tree is not None, p.sql[:8])
        for p in split_script(sql, dialect, LIMITS)
    ]


def test_an_oversized_statement_between_normal_ones_keeps_its_place_and_their_positions() -> None:
    assert _cut(f"SELECT 1;\n{BIG};\n  SELECT 2;\n") == [
        (0, 1, 1, None, True, "SELECT 1"),
        (1, 2, 1, "statement_too_large", False, "INSERT I"),
        (2, 3, 3, None, True, "SELECT 2"),
    ]


def test_oversized_statements_side_by_side_first_and_last() -> None:
    assert _cut(f"{BIG};{BIG};\nSELECT 4;\n{BIG}") == [
        (0, 1, 1, "statement_too_large", False, "INSERT I"),
        (1, 1, 318, "statement_too_large", False, "INSERT I"),
        (2, 2, 1, None, True, "SELECT 4"),
        (3, 3, 1, "statement_too_large", False, "INSERT I"),
    ]


def test_an_oversized_statement_inside_a_block_ends_the_statement_cut_so_far() -> None:
    # as the token-by-token loop did: the routine is cut where the oversized statement was blanked
    sql = f"CREATE PROCEDURE p() BEGIN\n SELECT 1;\n {BIG};\n SELECT 2;\nEND;\nSELECT 3"
    assert _cut(sql, "mysql") == [
        (0, 1, 1, None, True, "CREATE P"),
        (1, 3, 2, "statement_too_large", False, "INSERT I"),
        (2, 4, 2, None, True, "SELECT 2"),
        (3, 5, 1, None, False, "END"),
        (4, 6, 1, None, True, "SELECT 3"),
    ]


def test_a_block_without_oversized_statements_is_one_statement() -> None:
    sql = "CREATE PROCEDURE p() BEGIN\n SELECT 1;\n SELECT 2;\nEND;\nSELECT 3"
    assert [(p.index, p.line) for p in split_script(sql, "mysql", LIMITS)] == [(0, 1), (1, 5)]


def _pieces(sql: str, dialect: str, limits: Limits | None = None) -> list[tuple[object, ...]]:
    return [
        (p.index, p.line, p.column, p.sql, p.tree.sql() if p.tree else None, p.error, p.skip)
        for p in split_script(sql, dialect, limits)
    ]


TRICKY = (
    "SELECT 1; -- a comment after;\n-- a comment of its own;\nSELECT 'a;\n b' AS s;\n"
    'SELECT "c;\n" FROM t; /* x;\n y; */\n'
    "CREATE PROCEDURE p() BEGIN\n SELECT 2;\n SELECT 3;\nEND;\n"
    f"{BIG};\nINSERT INTO u SELECT a FROM s;\n"
)


def test_a_long_script_is_tokenized_a_window_at_a_time_with_the_same_pieces(monkeypatch) -> None:
    from headwater.extract import split

    script = TRICKY * 30
    whole = {d: _pieces(script, d, LIMITS) for d in ("mysql", "generic", "postgres")}
    monkeypatch.setattr(split, "WINDOW", 60)  # windows end inside strings, comments and the block
    from sqlglot.dialects.dialect import Dialect

    first = split._Windows(script, Dialect.get_or_raise("mysql")).next()
    assert first is not None and 0 < len(first) < len(Dialect.get_or_raise("mysql").tokenize(script)) / 20
    for d, pieces in whole.items():
        assert _pieces(script, d, LIMITS) == pieces, d


def test_a_window_after_which_the_script_does_not_tokenize(monkeypatch) -> None:
    from headwater.extract import split

    script = "SELECT 1;\n" * 40 + "SELECT 'unterminated\n" + "SELECT 2;\n" * 5
    whole = _pieces(script, "generic")
    monkeypatch.setattr(split, "WINDOW", 60)
    assert _pieces(script, "generic") == whole
    assert [p[0] for p in whole] == list(range(len(whole)))
