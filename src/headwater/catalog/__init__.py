"""Where table schemas come from: script DDL, schema files, live databases."""

from headwater.catalog.base import Catalog, ColumnSchema, LayeredCatalog, MemoryCatalog, TableSchema
from headwater.catalog.names import Names

__all__ = ["Catalog", "ColumnSchema", "LayeredCatalog", "MemoryCatalog", "Names", "TableSchema"]
