"""Ephemeral models resolved through: dbt compiles an ephemeral model into each reader as a
``__dbt__cte__<name>`` CTE. The manifest's ``compiled_code`` has those CTEs injected already
(``extra_ctes_injected``); when it does not, they are put in front here, so the reader's columns
trace through the ephemeral model's SELECT to the relations it reads, never stopping at a CTE.

>>> from dataclasses import replace
>>> from headwater.project.dbt.manifest import DbtNode
>>> cte = ("model.p.e", " __dbt__cte__e as (select a from s.t)")
>>> n = DbtNode("model.p.m", "model", "m", "d", "s", "m", "table", "select a from __dbt__cte__e",
...             extra_ctes=(cte,), ctes_injected=False)
>>> resolved_code(n)
'with __dbt__cte__e as (select a from s.t) select a from __dbt__cte__e'
>>> code = "-- x\\nWITH b AS (select 1) select a from __dbt__cte__e"
>>> resolved_code(replace(n, compiled_code=code))
'-- x\\nWITH __dbt__cte__e as (select a from s.t), b AS (select 1) select a from __dbt__cte__e'
"""

from __future__ import annotations

import re

from headwater.project.dbt.manifest import DbtNode

_LEADING_WITH = re.compile(r"^((?:\s|--[^\n]*\n|/\*.*?\*/)*)(with)\b\s*", re.I | re.S)


def resolved_code(node: DbtNode) -> str | None:
    """The node's compiled SQL with the CTEs of the ephemeral models it reads."""
    code = node.compiled_code
    if code is None or node.ctes_injected or not node.extra_ctes:
        return code
    ctes = ", ".join(sql.strip() for _, sql in node.extra_ctes)
    m = _LEADING_WITH.match(code)
    if m:
        return f"{m.group(1)}{m.group(2)} {ctes}, {code[m.end() :]}"
    return f"with {ctes} {code.lstrip()}"
