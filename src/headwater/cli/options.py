"""Options that several commands share (``ingest``, ``diff``): one declaration, one help text."""

from __future__ import annotations

from typing import Annotated

import typer

DefaultDbOpt = Annotated[str | None, typer.Option("--default-db", help="Database of unqualified tables (until a USE).")]
DefaultCatalogOpt = Annotated[str, typer.Option("--default-catalog", help="Catalog of tables named without one.")]
SchemaOpt = Annotated[str | None, typer.Option(help="Schema file (JSON/YAML) describing tables.")]
CatalogUrlOpt = Annotated[
    str | None, typer.Option("--catalog-url", help="A live database (SQLAlchemy URL) describing tables.")
]
