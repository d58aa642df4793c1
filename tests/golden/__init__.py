"""The golden lineage corpus: SQL scripts per dialect with reviewed expected lineage (see README.md)."""
