"""Dialect names: every sqlglot dialect, ``generic`` for sqlglot's default, and ``flink``.

sqlglot has no Flink dialect. Flink SQL reads closest to Hive's grammar (backquoted
identifiers, ``CREATE TABLE … WITH (…)``, ``CREATE TEMPORARY VIEW``), but unlike Hive its
identifiers are case-sensitive; the ``Flink`` class below is Hive's grammar with Flink's case
rule, registered with sqlglot under the name ``flink``. Statement sets (``EXECUTE STATEMENT SET
BEGIN … END``) are handled when a script is split (``headwater.extract.split``).

>>> sqlglot_dialect("generic"), sqlglot_dialect("doris"), sqlglot_dialect("flink")
('', 'doris', 'flink')
>>> from sqlglot.dialects.dialect import Dialect
>>> Dialect.get_or_raise("flink").NORMALIZATION_STRATEGY.name
'CASE_SENSITIVE'
"""

from __future__ import annotations

from sqlglot.dialects.dialect import NormalizationStrategy
from sqlglot.dialects.hive import Hive


class Flink(Hive):
    """Flink SQL: Hive's grammar, case-sensitive identifiers."""

    NORMALIZATION_STRATEGY = NormalizationStrategy.CASE_SENSITIVE


def sqlglot_dialect(dialect: str) -> str:
    """The sqlglot name of a headwater dialect name (``generic`` is sqlglot's default, "")."""
    if dialect in ("generic", "default", ""):
        return ""
    return dialect
