"""Errors raised by catalog sources; each message says which file, key, URL or table is at fault."""

from __future__ import annotations


class CatalogError(Exception):
    """A catalog source could not answer (bad file, unreachable database, failed reflection)."""


class SchemaFileError(CatalogError):
    """A schema file that cannot be read or is malformed; the message names the file and the key."""


class CatalogConnectionError(CatalogError):
    """A live catalog that cannot connect; the message names the URL without its password."""
