"""Snapshot a live database into a schema file (``headwater catalog dump``).

The document lists every table and view (columns in order, types, a view's query) of the chosen
databases with the names the database stores; ``load_schema_file`` reads it back, so batch runs
and Spark executors bind without touching the production database.

Which databases: the ones named; otherwise the URL's database for the MySQL family (every user
database when the URL names none), every user schema for PostgreSQL, ``main`` for SQLite.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

import sqlalchemy as sa

from headwater.catalog.base import TableSchema
from headwater.catalog.errors import CatalogError
from headwater.catalog.live import (
    backend_view_dialect,
    connect,
    create_engine,
    mask_url,
    reason,
    reflect_table,
    user_schemas,
    view_names,
)
from headwater.catalog.schema_file import tables_to_document
from headwater.model import TableRef


def dump_catalog(
    url: str | sa.URL,
    databases: Sequence[str] | None = None,
    dialect: str = "doris",
    catalog: str = "internal",
) -> dict[str, Any]:
    """The schema document of the databases (schemas) of ``url``; see the module docstring.

    >>> import sqlite3, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "db.sqlite")
    >>> with sqlite3.connect(path) as db:
    ...     _ = db.execute("CREATE TABLE t (a INTEGER)")
    ...     _ = db.execute("CREATE VIEW v AS SELECT a FROM t")
    >>> doc = dump_catalog(f"sqlite:///{path}", dialect="sqlite")
    >>> [(t["name"], t["kind"], t.get("view_sql")) for t in doc["tables"]]
    [('t', 'table', None), ('v', 'view', 'SELECT a FROM t')]
    >>> import shutil; shutil.rmtree(os.path.dirname(path))
    """
    engine = create_engine(url)
    masked = mask_url(engine.url)
    backend = engine.dialect.name
    view_dialect = backend_view_dialect(backend, dialect)
    tables: dict[TableRef, TableSchema] = {}
    views: list[TableRef] = []
    default: str | None = None
    try:
        with connect(engine) as conn:
            insp = sa.inspect(conn)
            default = insp.default_schema_name
            known = insp.get_schema_names()
            if databases:
                missing = [d for d in databases if d not in known]
                if missing:
                    raise CatalogError(f"no database {missing[0]!r} at {masked}")
                schemas = list(dict.fromkeys(databases))
            elif backend == "postgresql" or default is None:
                schemas = user_schemas(insp, backend)
            else:
                schemas = [default]
            for schema in schemas:
                view_set = view_names(insp, schema)
                for name in sorted(set(insp.get_table_names(schema)) | view_set):
                    found = reflect_table(insp, schema, name, name in view_set, view_dialect)
                    if found is None:  # dropped while we read
                        continue
                    ref = TableRef(catalog, schema, name)
                    tables[ref] = found
                    if name in view_set:
                        views.append(ref)
    except sa.exc.DBAPIError as exc:
        raise CatalogError(f"cannot read the catalog of {masked}: {reason(exc, engine.url)}") from None
    finally:
        engine.dispose()
    return tables_to_document(tables, dialect=view_dialect, source=masked, views=views, default_database=default)


def write_schema_document(doc: dict[str, Any], out: TextIO) -> None:
    """Write a schema document as indented JSON."""
    json.dump(doc, out, indent=2, ensure_ascii=False)
    out.write("\n")
