"""headwater: column-level data lineage for SQL warehouses."""

__version__ = "0.1.0"
