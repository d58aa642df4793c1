"""``headwater catalog …``: schema snapshots of live databases."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

catalog_app = typer.Typer(
    name="catalog",
    help="Schemas for binding: snapshot a live database into a schema file.",
    no_args_is_help=True,
)


@catalog_app.command("dump")
def dump(
    catalog_url: Annotated[
        str,
        typer.Option(
            "--catalog-url",
            help="SQLAlchemy URL: mysql+pymysql://… (Doris, StarRocks, MySQL, MariaDB), "
            "postgresql+psycopg://…, sqlite:///…",
        ),
    ],
    database: Annotated[
        list[str] | None,
        typer.Option(
            "--database",
            "-d",
            help="Database (PostgreSQL: schema) to dump; repeat for several. Default: the URL's database "
            "(every user database when it names none); every user schema for PostgreSQL.",
        ),
    ] = None,
    dialect: Annotated[
        str, typer.Option("--dialect", help="Dialect of the SQL to bind (over MySQL: of view SQL too).")
    ] = "doris",
    catalog_name: Annotated[
        str, typer.Option("--default-catalog", help="Catalog the tables belong to in lineage events.")
    ] = "internal",
    catalog_alias: Annotated[str | None, typer.Option("--catalog-name", hidden=True)] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of standard output.")
    ] = None,
) -> None:
    """Write every table and view (columns, types, view SQL) as a schema file for --schema."""

    from headwater.catalog import CatalogError, dump_catalog, write_schema_document
    from headwater.cli.extract_cmd import check_dialect

    check_dialect(dialect)
    try:
        doc = dump_catalog(catalog_url, database or None, dialect=dialect, catalog=catalog_alias or catalog_name)
    except CatalogError as exc:  # a connection error exits 2, as in extract and ingest
        from headwater.cli.display import fail

        fail(str(exc))
    if output is None:
        write_schema_document(doc, sys.stdout)
    else:
        with output.open("w", encoding="utf-8") as out:
            write_schema_document(doc, out)
    views = sum(1 for t in doc["tables"] if t["kind"] == "view")
    typer.echo(f"{len(doc['tables']) - views} tables and {views} views from {doc['source']}", err=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.add_typer(catalog_app)
