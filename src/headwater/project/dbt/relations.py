"""Relation names: a dbt node's ``database.schema.alias`` as headwater's ``TableRef`` (catalog =
the dbt database, database = the schema, name = the alias), folded as the adapter's dialect folds
identifiers, so it is the table the compiled SQL names (``"shop"."marts"."orders"``) and the one an
OpenLineage producer names (``postgres://host:5432`` + ``shop.marts.orders``, see
``docs/operations.md``).

>>> from headwater.project.dbt.manifest import DbtNode
>>> n = DbtNode("model.p.Orders", "model", "Orders", "Shop", "Marts", "Orders", "table")
>>> relation_of(n, "postgres")
TableRef(catalog='shop', database='marts', name='orders')
>>> relation_of(n, "snowflake")
TableRef(catalog='SHOP', database='MARTS', name='ORDERS')
>>> quoted(TableRef("shop", "marts", "orders"))
'"shop"."marts"."orders"'
"""

from __future__ import annotations

from functools import cache

from sqlglot import exp

from headwater.catalog import Names
from headwater.extract.split import sqlglot_dialect
from headwater.model import TableRef
from headwater.project.dbt.manifest import DbtNode


@cache
def _names(dialect: str) -> Names:
    return Names.for_dialect(dialect)


def relation_of(node: DbtNode, dialect: str, default_catalog: str = "internal") -> TableRef:
    """The relation a node writes (or, for a source, names); ``default_catalog`` for adapters whose
    nodes name no database (the catalog headwater gives two-part names)."""
    names = _names(dialect)
    catalog = names.dataset_ident(node.database) if node.database else default_catalog
    database = names.dataset_ident(node.schema) if node.schema else None
    name = names.dataset_ident(node.alias)
    assert catalog is not None and name is not None
    return TableRef(catalog, database, name)


def quoted(table: TableRef, dialect: str = "postgres") -> str:
    """``table`` as a quoted SQL name in ``dialect`` (how a statement headwater composes names it)."""
    parts = [p for p in (table.catalog, table.database, table.name) if p]
    return ".".join(exp.to_identifier(p, quoted=True).sql(dialect=sqlglot_dialect(dialect)) for p in parts)
