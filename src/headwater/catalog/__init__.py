"""Where table schemas come from: script DDL, schema files, live databases.

``open_catalog`` is what the CLI calls with its ``--schema`` and ``--catalog-url`` options.
The live-database parts (``SqlAlchemyCatalog``, ``dump_catalog``…) import SQLAlchemy on first use.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from headwater.catalog.base import (
    Catalog,
    ChainCatalog,
    ColumnSchema,
    LayeredCatalog,
    MemoryCatalog,
    TableSchema,
)
from headwater.catalog.errors import CatalogConnectionError, CatalogError, SchemaFileError
from headwater.catalog.names import Names
from headwater.catalog.schema_file import (
    FORMAT,
    SchemaFileCatalog,
    load_schema_file,
    schema_from_data,
    tables_to_document,
)

if TYPE_CHECKING:
    from headwater.catalog.dump import dump_catalog, write_schema_document
    from headwater.catalog.live import SqlAlchemyCatalog, mask_url

_LAZY = {
    "SqlAlchemyCatalog": "headwater.catalog.live",
    "mask_url": "headwater.catalog.live",
    "dump_catalog": "headwater.catalog.dump",
    "write_schema_document": "headwater.catalog.dump",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_catalog(
    schema_file: str | Path | None, catalog_url: str | None, dialect: str, default_catalog: str = "internal"
) -> Catalog | None:
    """The catalog of a schema file and/or a live database (the file is asked first); None for neither.

    The live database is connected to once here, so that a wrong URL fails at once with a
    ``CatalogConnectionError``; a malformed file raises ``SchemaFileError``.

    >>> open_catalog(None, None, "doris") is None
    True
    """
    catalogs: list[Catalog] = []
    if schema_file is not None:
        catalogs.append(load_schema_file(schema_file, dialect=dialect, default_catalog=default_catalog))
    if catalog_url is not None:
        from headwater.catalog.live import SqlAlchemyCatalog

        live = SqlAlchemyCatalog(catalog_url, dialect=dialect, catalog=default_catalog)
        live.check()
        catalogs.append(live)
    if not catalogs:
        return None
    return catalogs[0] if len(catalogs) == 1 else ChainCatalog(*catalogs)


__all__ = [
    "FORMAT",
    "Catalog",
    "CatalogConnectionError",
    "CatalogError",
    "ChainCatalog",
    "ColumnSchema",
    "LayeredCatalog",
    "MemoryCatalog",
    "Names",
    "SchemaFileCatalog",
    "SchemaFileError",
    "SqlAlchemyCatalog",
    "TableSchema",
    "dump_catalog",
    "load_schema_file",
    "mask_url",
    "open_catalog",
    "schema_from_data",
    "tables_to_document",
    "write_schema_document",
]
