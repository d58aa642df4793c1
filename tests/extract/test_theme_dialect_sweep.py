"""Issue 19 theme 10: the statement forms of the themes, in every dialect sqlglot knows, never
end in an internal error (a crash of headwater, not a diagnostic about the SQL)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml
from sqlglot.dialects import Dialects

from headwater.extract import extract_script

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "accuracy"
FORMS = [
    "INSERT INTO out SELECT x, n FROM (VALUES (ARRAY[1, 2])) AS v(arr) CROSS JOIN UNNEST(arr) WITH ORDINALITY AS u(x, n)",
    "INSERT INTO o SELECT a FROM t MATCH_RECOGNIZE (PARTITION BY a ORDER BY b MEASURES FIRST(b) AS f PATTERN (x+) "
    "DEFINE x AS b > 0)",
    "INSERT INTO o SELECT * FROM t UNPIVOT (v FOR k IN (a, b))",
    "INSERT INTO o SELECT f.value FROM t, LATERAL FLATTEN(input => t.arr) f",
    "INSERT INTO o WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
    "MERGE INTO t USING (SELECT * FROM s) x ON t.k = x.k WHEN MATCHED AND x.d THEN DELETE "
    "WHEN NOT MATCHED THEN INSERT VALUES (x.k, x.v)",
    "UPDATE t SET (a, b) = (SELECT x, y FROM s WHERE s.k = t.k)",
    "DELETE t1 FROM t1 JOIN t2 ON t1.k = t2.k WHERE t2.x = 1",
    "INSERT INTO o (a) SELECT a FROM t ON CONFLICT (a) DO UPDATE SET a = excluded.a",
    "INSERT INTO o SELECT ARRAY(SELECT x FROM UNNEST(t.arr) x) FROM t",
    "INSERT INTO o SELECT * FROM parquet.`s3://b/p`",
    "INSERT OVERWRITE DIRECTORY 's3://b/out' SELECT a FROM t",
    "CREATE PROCEDURE p() BEGIN INSERT INTO t2 SELECT a FROM t1; END",
    "BEGIN INSERT INTO t2 SELECT a FROM t1; END",
    "ALTER TABLE a SWAP WITH b",
]


def statements() -> list[str]:
    out = list(FORMS)
    for path in sorted(CORPUS.glob("*.yaml")):
        out.extend(case["sql"] for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"])
    return out


@pytest.mark.parametrize("dialect", [d.value for d in Dialects if d.value] + ["flink"])
def test_no_internal_error_in_any_dialect(dialect):
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    crashes = []
    for sql in statements():
        for mode in ("doris", "all"):
            res = extract_script(sql, dialect=dialect, database="db", statements=mode)
            crashes += [s.error.message for s in res.statements if s.error and s.error.code == "internal_error"]
    assert crashes == []
