"""The statement a dbt node runs, composed from its compiled SQL and its materialisation, in the
adapter's dialect: a view is ``CREATE VIEW`` (a view node in the store), a table or a snapshot
``CREATE TABLE … AS``, an incremental model ``INSERT INTO`` its relation when the relation's
columns are known (its run's compiled SQL, ``is_incremental()`` branch included), else
``CREATE TABLE … AS``. The statement is named as its job by a ``-- name:`` line.

>>> from headwater.project.dbt.manifest import DbtNode
>>> n = DbtNode("model.p.v", "model", "v", "db", "s", "v", "view", "select a from t;\\n")
>>> print(statement_of(n, TableRef("db", "s", "v"), "postgres"))
-- name: model.p.v
CREATE VIEW "db"."s"."v" AS
select a from t
"""

from __future__ import annotations

from headwater.model import TableRef
from headwater.project.dbt.ephemeral import resolved_code
from headwater.project.dbt.manifest import DbtNode
from headwater.project.dbt.relations import quoted


def statement_of(node: DbtNode, relation: TableRef, dialect: str, target_known: bool = False) -> str | None:
    """The SQL text extracted for ``node`` (None when it has no compiled SQL: not compiled, a seed)."""
    code = resolved_code(node)
    if code is None:
        return None
    body = code.strip().rstrip(";").rstrip()
    name = quoted(relation, dialect)
    if node.materialized == "view":
        head = f"CREATE VIEW {name} AS"
    elif node.materialized == "materialized_view":
        head = f"CREATE MATERIALIZED VIEW {name} AS"
    elif node.is_incremental and target_known:
        head = f"INSERT INTO {name}"
    else:
        head = f"CREATE TABLE {name} AS"
    return f"-- name: {node.unique_id}\n{head}\n{body}"
