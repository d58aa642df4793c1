"""Issue 37 item 5: a chain of any operator the parser nests (``::``, ``->``, ``[i]``, ``DIV``, ``<=>``…)
is counted by the term guard and refused before parsing, so a statement under the size limit costs
about its tokenizing time whatever operator it repeats."""

from __future__ import annotations

import pytest
from sqlglot.dialects.dialect import Dialect

from headwater.extract import ExtractOptions, Extractor
from headwater.extract.guards import Limits, check_tokens

CHAINS = {
    "cast": "a" + "::int" * 2000,
    "json path": "a" + " -> '$.x'" * 2000,
    "json text": "a" + " ->> '$.x'" * 2000,
    "subscript": "a" + "[1]" * 2000,
    "div": "a" + " DIV a" * 2000,
    "null-safe equality": "a" + " <=> a" * 2000,
    "like": "a" + " LIKE a" * 2000,
    "is": "a" + " IS NULL IS NULL" * 1000,
    "collate": "a" + " COLLATE utf8" * 2000,
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_every_nesting_operator_is_counted(name: str) -> None:
    tokens = Dialect.get_or_raise("doris").tokenize(f"INSERT INTO t SELECT {CHAINS[name]} FROM s")
    refused = check_tokens(tokens, Limits(max_terms=1000))
    assert refused is not None and refused[0] == "expression_too_long", refused


@pytest.mark.parametrize("name", ["cast", "json path", "subscript", "div", "null-safe equality"])
def test_a_long_chain_is_refused_before_parsing(name: str) -> None:
    ex = Extractor(options=ExtractOptions(limits=Limits(max_terms=1000), dialect="doris", statements="all"))
    (result,) = ex.run(f"INSERT INTO t SELECT {CHAINS[name]} FROM s; INSERT INTO u SELECT b FROM v").statements[:1]
    assert result.error is not None and result.error.code == "expression_too_long", result.error


def test_ordinary_commas_still_reset_the_chain() -> None:
    tokens = Dialect.get_or_raise("doris").tokenize("SELECT " + ", ".join(["a::int -> '$.x'"] * 3000) + " FROM s")
    assert check_tokens(tokens, Limits(max_terms=1000)) is None
