"""Schema files: table schemas in JSON or YAML, written by hand or by ``headwater catalog dump``.

Four hand-written shapes are read (they can be mixed in one file), each mapping a table to its
ordered ``{"column": "type"}`` mapping (a type may be null; a list of column names is accepted
too when the types are unknown):

- ``{"db.table": {...}}`` and ``{"catalog.db.table": {...}}``;
- ``{"table": {...}}``: a table without a database, found under *any* session database
  (the benchmark corpus uses this form);
- nested ``{"db": {"table": {...}}}`` (and ``{"catalog": {"db": {"table": {...}}}}``).

Names are normalised with the dialect's rules as unquoted identifiers; a name part written in
double quotes or backticks (``"db"."Mixed Case"``) is a quoted identifier.

The document that ``headwater catalog dump`` writes (``{"format": "headwater.schema/1", ...}``,
see ``docs/catalog.md``) also carries views with their SQL; its names are the ones the database
stores, so they are read as quoted identifiers.

>>> cat = schema_from_data({"sales.Orders": {"ID": "bigint"}, "nation": ["n_name"]}, dialect="postgres")
>>> cat.table(TableRef("internal", "sales", "orders")).columns
(ColumnSchema(name='id', type='bigint'),)
>>> cat.table(TableRef("internal", "any_db", "nation")).column_names
('n_name',)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from headwater.catalog.base import ColumnSchema, MemoryCatalog, TableSchema
from headwater.catalog.errors import SchemaFileError
from headwater.catalog.names import Names
from headwater.model import TableRef

FORMAT = "headwater.schema/1"
"""The ``format`` marker of the document written by ``headwater catalog dump``."""

_DOC_KEYS = frozenset({"format", "dialect", "source", "default_database", "tables"})
_ENTRY_KEYS = frozenset({"catalog", "database", "name", "kind", "columns", "view_sql", "view_dialect"})
_KINDS = ("table", "view")

Part = tuple[str, bool]  # (text, quoted)


class SchemaFileCatalog(MemoryCatalog):
    """A ``MemoryCatalog`` in which a table registered without a database is found for any database.

    An exact entry wins over the database-less one. With ``default_database`` (a dump records the
    connection's default), a name asked without a database is also looked up in that database.

    >>> cat = SchemaFileCatalog()
    >>> cat.put(TableRef("internal", None, "t"), TableSchema((ColumnSchema("a"),)))
    >>> cat.put(TableRef("internal", "db2", "t"), TableSchema((ColumnSchema("b"),)))
    >>> cat.table(TableRef("internal", "db1", "t")).column_names
    ('a',)
    >>> cat.table(TableRef("internal", "db2", "t")).column_names
    ('b',)
    >>> cat.table(TableRef("other", "db1", "t")) is None
    True
    """

    def __init__(
        self,
        tables: dict[TableRef, TableSchema] | None = None,
        source: str | None = None,
        default_database: str | None = None,
    ) -> None:
        super().__init__(tables)
        self.source = source
        self.default_database = default_database

    def table(self, ref: TableRef) -> TableSchema | None:
        found = super().table(ref)
        if found is not None:
            return found
        if ref.database is not None:
            return super().table(TableRef(ref.catalog, None, ref.name))
        if self.default_database is not None:
            return super().table(TableRef(ref.catalog, self.default_database, ref.name))
        return None


# ---------------------------------------------------------------- reading


def load_schema_file(path: str | Path, dialect: str = "doris", default_catalog: str = "internal") -> SchemaFileCatalog:
    """Read a JSON or YAML schema file (``.json``, ``.yaml``/``.yml``; other names: JSON, else YAML).

    Raises ``SchemaFileError`` naming the file and the offending key.
    """
    p = Path(path)
    return schema_from_data(_read(p), dialect=dialect, default_catalog=default_catalog, source=str(p))


def schema_from_data(
    data: Any, dialect: str = "doris", default_catalog: str = "internal", source: str = "<schema>"
) -> SchemaFileCatalog:
    """Build the catalog of already-parsed schema data (any shape ``load_schema_file`` reads).

    ``source`` names the data in error messages.

    >>> schema_from_data({"db.t": {"a": 1}}, source="s.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    headwater.catalog.errors.SchemaFileError: s.json: key "db.t" > "a": a column type must be a string...
    """
    try:
        names = Names.for_dialect(dialect)
    except ValueError as exc:
        raise SchemaFileError(f"{source}: {exc}") from None
    loader = _Loader(names, default_catalog, source)
    if data is None:
        raise SchemaFileError(f"{source}: the file is empty")
    if not isinstance(data, dict):
        raise SchemaFileError(f"{source}: expected a mapping of tables at the top level, got {_kind(data)}")
    if isinstance(data.get("format"), str):
        loader.document(data)
    else:
        loader.simple(data)
    return SchemaFileCatalog(loader.tables, source, loader.default_database)


class _Loader:
    def __init__(self, names: Names, default_catalog: str, source: str) -> None:
        self.names = names
        self.default_catalog = default_catalog
        self.source = source
        self.tables: dict[TableRef, TableSchema] = {}
        self.default_database: str | None = None
        self._where: dict[TableRef, str] = {}

    def fail(self, where: str, problem: str) -> SchemaFileError:
        return SchemaFileError(f"{self.source}: {where}: {problem}")

    # -- hand-written shapes

    def simple(self, data: dict[Any, Any], keys: tuple[str, ...] = (), parts: tuple[Part, ...] = ()) -> None:
        for key, value in data.items():
            where = _where(keys, key)
            if not isinstance(key, str):
                raise self.fail(where, "a name must be a string (quote it in YAML)")
            here = parts + tuple(self._split(key, where))
            path = (*keys, key)
            if _is_columns(value):
                self.add(self._ref(here, where), self._columns(value, path), where)
            elif isinstance(value, dict) and not value:
                raise self.fail(where, "an empty mapping: a table needs at least one column")
            elif isinstance(value, dict) and all(isinstance(v, dict | list) for v in value.values()):
                if len(here) >= 3:
                    raise self.fail(where, "nested too deeply: a table name has at most three parts")
                self.simple(value, path, here)
            elif isinstance(value, dict):
                raise self.fail(where, "mixes columns (string types) with nested tables (mappings)")
            else:
                raise self.fail(where, f"expected a mapping of columns to types, got {_kind(value)}")

    def _split(self, key: str, where: str) -> list[Part]:
        try:
            return split_name(key)
        except ValueError as exc:
            raise self.fail(where, str(exc)) from None

    def _ref(self, parts: tuple[Part, ...], where: str) -> TableRef:
        if len(parts) > 3:
            raise self.fail(where, "a table name has at most three parts (catalog.database.table)")
        t = self.names.dataset
        name = t(*parts[-1])
        database = t(*parts[-2]) if len(parts) >= 2 else None
        catalog = t(*parts[0]) if len(parts) == 3 else self.default_catalog
        return TableRef(catalog, database, name)

    def _columns(self, value: dict[Any, Any] | list[Any], path: tuple[str, ...]) -> TableSchema:
        items = value.items() if isinstance(value, dict) else ((c, None) for c in value)
        columns: list[ColumnSchema] = []
        seen: dict[str, str] = {}
        for key, typ in items:
            where = _where(path, key)
            if not isinstance(key, str) or not key:
                raise self.fail(where, "a column name must be a non-empty string")
            if typ is not None and not isinstance(typ, str):
                raise self.fail(where, f"a column type must be a string or null, got {typ!r}")
            parts = self._split(key, where)
            if len(parts) != 1:
                raise self.fail(where, "a column name cannot be qualified")
            name = self.names.column(*parts[0])
            if name in seen:
                raise self.fail(where, f"duplicate column: {seen[name]!r} and {key!r} are both {name!r}")
            seen[name] = key
            columns.append(ColumnSchema(name, (typ or "").strip() or None))
        return TableSchema(tuple(columns))

    def add(self, ref: TableRef, schema: TableSchema, where: str) -> None:
        if ref in self.tables:
            raise self.fail(where, f"table {ref} is already defined by {self._where[ref]}")
        self.tables[ref] = schema
        self._where[ref] = where

    # -- the dump document

    def document(self, data: dict[str, Any]) -> None:
        if data["format"] != FORMAT:
            raise self.fail('key "format"', f"unsupported format {data['format']!r} (expected {FORMAT!r})")
        unknown = sorted(str(k) for k in data if k not in _DOC_KEYS)
        if unknown:
            raise self.fail(f"key {json.dumps(unknown[0])}", "unknown key in a schema document")
        doc_dialect = _string(self, data, "dialect", "document")
        _string(self, data, "source", "document")
        default = _string(self, data, "default_database", "document")
        self.default_database = self.names.dataset(default, True) if default else None
        entries = data.get("tables", [])
        if not isinstance(entries, list):
            raise self.fail('key "tables"', f"expected a list of tables, got {_kind(entries)}")
        for k, entry in enumerate(entries):
            self._entry(entry, f"tables[{k}]", doc_dialect)

    def _entry(self, entry: Any, where: str, doc_dialect: str | None) -> None:
        if not isinstance(entry, dict):
            raise self.fail(where, f"expected a table object, got {_kind(entry)}")
        if isinstance(entry.get("name"), str):
            shown = ".".join(str(p) for p in (entry.get("database"), entry["name"]) if p)
            where = f"{where} ({shown})"
        unknown = sorted(str(k) for k in entry if k not in _ENTRY_KEYS)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}", "unknown key")
        name = _string(self, entry, "name", where, required=True)
        catalog = _string(self, entry, "catalog", where) or self.default_catalog
        database = _string(self, entry, "database", where)
        kind = entry.get("kind", "table")
        if kind not in _KINDS:
            raise self.fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(_KINDS)}")
        view_sql = _string(self, entry, "view_sql", where)
        view_dialect = _string(self, entry, "view_dialect", where) or (doc_dialect if view_sql else None)
        raw_columns = entry.get("columns")
        if not isinstance(raw_columns, list):
            raise self.fail(f"{where}.columns", f"expected a list of columns, got {_kind(raw_columns)}")
        t, c = self.names.dataset, self.names.column
        columns: list[ColumnSchema] = []
        seen: set[str] = set()
        for k, col in enumerate(raw_columns):
            cwhere = f"{where}.columns[{k}]"
            if not isinstance(col, dict) or set(col) - {"name", "type"}:
                raise self.fail(cwhere, 'expected {"name": ..., "type": ...}')
            cname = c(_string(self, col, "name", cwhere, required=True), True)
            if cname in seen:
                raise self.fail(cwhere, f"duplicate column {cname!r}")
            seen.add(cname)
            columns.append(ColumnSchema(cname, _string(self, col, "type", cwhere)))
        ref = TableRef(t(catalog, True), t(database, True) if database else None, t(name, True))
        self.add(ref, TableSchema(tuple(columns), view_sql, view_dialect), where)


def _string(loader: _Loader, d: dict[str, Any], key: str, where: str, required: bool = False) -> Any:
    value = d.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        problem = "missing" if value is None else f"expected a string, got {value!r}"
        raise loader.fail(f"{where}.{key}", problem)
    return value


def _is_columns(value: Any) -> bool:
    if isinstance(value, list):
        return True
    if not isinstance(value, dict) or not value:
        return False
    return all(not isinstance(v, dict | list) for v in value.values())


def _where(keys: tuple[str, ...], key: Any) -> str:
    shown = [json.dumps(k, ensure_ascii=False) if isinstance(k, str) else repr(k) for k in (*keys, key)]
    return "key " + " > ".join(shown)


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def split_name(key: str) -> list[Part]:
    """Split a dotted name into ``(part, quoted)`` pairs; ``"…"`` or backticks quote a part.

    >>> split_name('cat.db."My.Table"')
    [('cat', False), ('db', False), ('My.Table', True)]
    >>> split_name("`a``b`.c")
    [('a`b', True), ('c', False)]
    >>> split_name("db..t")
    Traceback (most recent call last):
    ...
    ValueError: empty name part in 'db..t'
    """
    parts: list[Part] = []
    i, n = 0, len(key)
    while True:
        if i < n and key[i] in '"`':
            quote, j, text = key[i], i + 1, []
            while True:
                if j >= n:
                    raise ValueError(f"unterminated quote in {key!r}")
                if key[j] == quote:
                    if j + 1 < n and key[j + 1] == quote:
                        text.append(quote)
                        j += 2
                        continue
                    break
                text.append(key[j])
                j += 1
            part, i = ("".join(text), True), j + 1
            if i < n and key[i] != ".":
                raise ValueError(f"expected '.' after a quoted part in {key!r}")
        else:
            j = key.find(".", i)
            j = n if j < 0 else j
            part, i = (key[i:j].strip(), False), j
        if not part[0]:
            raise ValueError(f"empty name part in {key!r}")
        parts.append(part)
        if i >= n:
            return parts
        i += 1  # the dot
        if i >= n:
            raise ValueError(f"empty name part in {key!r}")


# ---------------------------------------------------------------- files


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key written twice in one mapping."""


def _construct_unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)  # type: ignore[no-untyped-call]
        if not isinstance(key, str | int | float | bool | None):
            continue  # an unhashable or odd key: refused later as "not a string"
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping)


def _unique_pairs(source: str) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise SchemaFileError(f"{source}: key {json.dumps(key)}: written twice in one object")
            out[key] = value
        return out

    return hook


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SchemaFileError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise SchemaFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _yaml(text, path)
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs(str(path)))
    except json.JSONDecodeError as exc:
        if suffix == ".json":
            raise SchemaFileError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return _yaml(text, path)


def _yaml(text: str, path: Path) -> Any:
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SchemaFileError(f"{path}: invalid YAML{at}: {problem}") from None


# ---------------------------------------------------------------- writing


def tables_to_document(
    tables: Mapping[TableRef, TableSchema],
    dialect: str | None = None,
    source: str | None = None,
    views: Iterable[TableRef] = (),
    default_database: str | None = None,
) -> dict[str, Any]:
    """The schema document of ``tables``, as ``headwater catalog dump`` writes it.

    Names are written as given (the loader reads them back as quoted identifiers); a table with
    ``view_sql``, or listed in ``views``, is a view.

    >>> ref = TableRef("internal", "db", "v")
    >>> doc = tables_to_document({ref: TableSchema((ColumnSchema("a", "INT"),), "SELECT 1 AS a", "mysql")})
    >>> doc["tables"][0]["kind"], doc["tables"][0]["columns"]
    ('view', [{'name': 'a', 'type': 'INT'}])
    >>> schema_from_data(doc).table(ref) == TableSchema((ColumnSchema("a", "INT"),), "SELECT 1 AS a", "mysql")
    True
    """
    view_set = set(views)
    doc: dict[str, Any] = {"format": FORMAT}
    if dialect is not None:
        doc["dialect"] = dialect
    if source is not None:
        doc["source"] = source
    if default_database is not None:
        doc["default_database"] = default_database
    entries = []
    for ref, schema in tables.items():
        entry: dict[str, Any] = {"catalog": ref.catalog, "database": ref.database, "name": ref.name}
        entry["kind"] = "view" if schema.view_sql is not None or ref in view_set else "table"
        entry["columns"] = [{"name": c.name, "type": c.type} for c in schema.columns]
        if schema.view_sql is not None:
            entry["view_sql"] = schema.view_sql
            entry["view_dialect"] = schema.view_dialect
        entries.append(entry)
    doc["tables"] = entries
    return doc
