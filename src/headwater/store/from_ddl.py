"""A table's definition (``CREATE TABLE`` with columns) as ``Facts``: catalog knowledge, no lineage.

The dataset and its column nodes, and an event row of kind ``ddl`` holding the columns (names and
types, in order) and the statement; the dataset's ``properties.ddl_event`` names that event (its id
comes from the file and the statement's text, so re-ingesting records nothing twice; a changed DDL
is a new event, and the property names it from then on). No job, no edge but the memberships: a
table nothing writes yet is known, so the statements that read it bind (``StoreCatalog``).

>>> from headwater.model import TableRef
>>> d = TableDefinition(TableRef("internal", "mart", "fct"), (("sk", "BIGINT"), ("paid", None)), "CREATE …", "a.sql", 3)
>>> f = definition_facts(d, 1_700_000_000_000_000)
>>> f.kind, f.job, f.nodes[("DATASET", "internal.mart.fct")].properties  # doctest: +ELLIPSIS
('ddl', None, {'ddl_event': 'ddl:...'})
>>> sorted(k[1] for k in f.nodes if k[0] == "FIELD")
['internal.mart.fct.paid', 'internal.mart.fct.sk']
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, replace

from headwater.model import TableRef
from headwater.store.facts import Facts, FactsBuilder, Names
from headwater.store.names import now_us

DDL_PROPERTY = "ddl_event"
"""The dataset property naming the event of its latest recorded DDL (``{"columns": [[name, type], …], …}``)."""

DDL_KIND = "ddl"
"""The ``kind`` of the event rows of table definitions (not lineage: ``get_lineage_stats`` leaves them out)."""

_DDL_IDS = uuid.UUID("5b0c1e8e-7d1a-4c7e-9a55-1f3c2d0e6a10")


@dataclass(frozen=True, slots=True)
class TableDefinition:
    """A ``CREATE TABLE`` statement's table and columns, and where it was written (file and line)."""

    table: TableRef
    columns: tuple[tuple[str, str | None], ...]
    sql: str
    file: str | None = None
    line: int | None = None

    @property
    def event_id(self) -> str:
        text = f"{self.file or ''}\x1f{self.table}\x1f{self.sql}"
        return "ddl:" + str(uuid.uuid5(_DDL_IDS, text))


def definition_facts(d: TableDefinition, at: int | None = None, names: Names | None = None) -> Facts:
    """The facts recording ``d`` at ``at`` (µs; default now)."""
    document = {
        "table": {"catalog": d.table.catalog, "database": d.table.database, "name": d.table.name},
        "columns": [list(c) for c in d.columns],
        "sql": d.sql,
        "file": d.file,
        "line": d.line,
    }
    facts = Facts(
        event_id=d.event_id,
        kind=DDL_KIND,
        run_key=d.event_id,
        event_us=at if at is not None else now_us(),
        payload=json.dumps(document, sort_keys=True),
        file=d.file,
        line=d.line,
    )
    b = FactsBuilder(facts, names)
    ds = b.dataset(d.table.catalog, d.table.database, d.table.name)
    spec = facts.nodes[ds]  # shared by ``names``: replaced, not changed
    facts.nodes[ds] = replace(spec, properties={**(spec.properties or {}), DDL_PROPERTY: d.event_id})
    for name, _ in d.columns:
        b.field(ds, name)
    return facts
