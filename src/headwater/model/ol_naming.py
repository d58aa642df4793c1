"""OpenLineage names of headwater's tables and jobs, after the OpenLineage naming spec.

A dataset is named by the *namespace* of the system that holds it (``{scheme}://{host}:{port}``) and
a *name* inside it (``db.table``, or ``{database}.{schema}.{table}`` where the spec says so). headwater
names a table by catalog, database and table, so a ``Place`` per catalog says where its tables live
in OpenLineage terms: a namespace and, for systems whose names carry one more leading part (the
PostgreSQL database, the Trino catalog, the BigQuery project, the Snowflake database), that part
as ``prefix``. The same mapping reads names back (``OpenLineageNaming.table``), so RunEvents about a
table land on the node that directly recorded events use.

>>> naming = OpenLineageNaming({"internal": Place("doris://fe:9030")})
>>> naming.dataset(TableRef("internal", "sales", "orders"))
('doris://fe:9030', 'sales.orders')
>>> naming.dataset(TableRef("hive", "raw", "events"))
('headwater', 'hive.raw.events')
>>> naming.table("doris://fe:9030", "sales.orders")
TableRef(catalog='internal', database='sales', name='orders')
>>> place_of_url("postgresql+psycopg://u@db.example:5433/analytics").namespace
'postgres://db.example:5433'
>>> place_of_url("mysql+pymysql://root@127.0.0.1:9030/demo", dialect="doris")
Place(namespace='doris://127.0.0.1:9030', prefix=None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from headwater.model import qualified
from headwater.model.event import TableRef
from headwater.model.storage import is_storage, storage_namespace, storage_of_dataset

DEFAULT_NAMESPACE = "headwater"
"""The dataset namespace of a catalog nothing places, and the default job namespace."""
INTERNAL = "internal"

NAMESPACE_PROPERTY = "headwater.openlineage.namespace"
"""``external_catalog_properties`` key a hook sets: the namespace of the connection it saw."""
PREFIX_PROPERTY = "headwater.openlineage.prefix"
"""``external_catalog_properties`` key a hook sets: the name prefix of that connection (e.g. the
PostgreSQL database)."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a catalog's tables live in OpenLineage terms: a namespace, and a leading name part."""

    namespace: str
    prefix: str | None = None

    def name(self, table: TableRef) -> str:
        return ".".join(p for p in (self.prefix, table.database, table.name) if p)


# scheme, default port, and which URL part (if any) is the leading name part
_SCHEMES: dict[str, tuple[str, int | None, str | None]] = {
    "doris": ("doris", 9030, None),
    "starrocks": ("starrocks", 9030, None),
    "mysql": ("mysql", 3306, None),
    "mariadb": ("mysql", 3306, None),
    "postgres": ("postgres", 5432, "database"),
    "postgresql": ("postgres", 5432, "database"),
    "redshift": ("redshift", 5439, "database"),
    "hive": ("hive", 10000, None),
    "spark": ("hive", 10000, None),
    "trino": ("trino", 8080, "catalog"),
    "presto": ("trino", 8080, "catalog"),
    "mssql": ("mssql", 1433, "database"),
    "tsql": ("mssql", 1433, "database"),
    "oracle": ("oracle", 1521, "database"),
    "teradata": ("teradata", 1025, None),
    "clickhouse": ("clickhouse", 9000, None),
    "db2": ("db2", 50000, "database"),
}
# dialects whose tables live in a system that the catalog URL speaks to through another protocol
_ENGINE_DIALECTS = {"doris", "starrocks", "hive", "spark", "trino", "presto"}


def place_of_url(url: str, dialect: str | None = None) -> Place | None:
    """The place of the tables behind a SQLAlchemy URL, per the naming spec; None when it names none.

    ``dialect`` wins over the URL's backend for engines reached through another protocol (Doris and
    StarRocks speak MySQL's). SQLite has no entry in the spec: ``sqlite:{path}``.

    >>> place_of_url("bigquery://my-project/dataset")
    Place(namespace='bigquery', prefix='my-project')
    >>> place_of_url("snowflake://u:p@myorg-acct/db/public")
    Place(namespace='snowflake://myorg-acct', prefix='db')
    >>> place_of_url("trino://u@trino.example:8443/hive/sales")
    Place(namespace='trino://trino.example:8443', prefix='hive')
    >>> place_of_url("sqlite:////var/data/app.db")
    Place(namespace='sqlite:/var/data/app.db', prefix=None)
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        u = make_url(url)
    except ArgumentError:
        return None
    backend = u.get_backend_name()
    key = dialect if dialect in _ENGINE_DIALECTS else backend
    if backend == "sqlite" and key == "sqlite":
        return Place(f"sqlite:{u.database}") if u.database else None
    if key == "bigquery":
        return Place("bigquery", u.host or None)
    if key == "snowflake":
        db = (u.database or "").split("/")[0] or None
        return Place(f"snowflake://{u.host}", db) if u.host else None
    spec = _SCHEMES.get(key or "")
    if spec is None or not u.host:
        return None
    scheme, port, prefix_part = spec
    prefix = None
    if prefix_part is not None and u.database:
        prefix = u.database.split("/")[0] or None
    return Place(f"{scheme}://{u.host}:{u.port or port}", prefix)


@dataclass(frozen=True, slots=True)
class OpenLineageNaming:
    """Catalog ↔ place mapping, the namespace of unplaced catalogs, and the job namespace.

    A catalog without a place is named in ``default_namespace`` with the catalog in front of the
    name (``internal``'s tables without it). ``explicit`` lists the catalogs the user placed: a
    place derived from a connection (``with_place``) never overrides those.
    """

    catalogs: Mapping[str, Place] = field(default_factory=lambda: MappingProxyType({}))
    default_namespace: str = DEFAULT_NAMESPACE
    job_namespace: str = DEFAULT_NAMESPACE
    explicit: frozenset[str] | None = None
    """None: every catalog of ``catalogs`` (what a user writes is explicit)."""

    def __post_init__(self) -> None:
        if not isinstance(self.catalogs, MappingProxyType):
            object.__setattr__(self, "catalogs", MappingProxyType(dict(self.catalogs)))
        if self.explicit is None:
            object.__setattr__(self, "explicit", frozenset(self.catalogs))

    def place(self, catalog: str) -> Place | None:
        return self.catalogs.get(catalog)

    def with_place(self, catalog: str, place: Place | None) -> OpenLineageNaming:
        """The naming with ``catalog`` at ``place``, unless the user placed that catalog already.

        >>> n = OpenLineageNaming({"internal": Place("mysql://a:3306")})
        >>> n.with_place("internal", Place("mysql://b:3306")).place("internal").namespace
        'mysql://a:3306'
        >>> derived = OpenLineageNaming().with_place("internal", Place("mysql://b:3306"))
        >>> derived.explicit, derived.dataset(TableRef("internal", "db", "t"), Place("mysql://hook:3306"))
        (frozenset(), ('mysql://hook:3306', 'db.t'))
        """
        if place is None or catalog in (self.explicit or ()):
            return self
        return replace(self, catalogs={**self.catalogs, catalog: place}, explicit=self.explicit)

    def dataset(self, table: TableRef, event_place: Place | None = None) -> tuple[str, str]:
        """``(namespace, name)`` of a table; ``event_place`` is the place a hook saw for the event's
        connection (it names ``internal`` when the user did not). A storage path is named by its
        scheme (``headwater.model.storage``).

        >>> OpenLineageNaming().dataset(TableRef("s3://bucket", None, "path/x.parquet"))
        ('s3://bucket', 'path/x.parquet')
        """
        if is_storage(table):
            return storage_namespace(table)
        place = self.catalogs.get(table.catalog)
        if table.catalog == INTERNAL and event_place is not None and INTERNAL not in (self.explicit or ()):
            place = event_place
        if place is not None:
            return place.namespace, place.name(table)
        if table.catalog == INTERNAL:
            return self.default_namespace, table.qualified
        return self.default_namespace, f"{table.catalog}.{table.qualified}"

    def table(self, namespace: str, name: str, also: tuple[str, ...] = ()) -> TableRef | None:
        """The table a dataset names, or None when its namespace is no place of headwater's.

        ``default_namespace`` and ``also`` are read as headwater's own: ``db.table`` in catalog
        ``internal``, ``catalog.db.table`` otherwise.

        >>> n = OpenLineageNaming({"internal": Place("postgres://h:5432", "app")})
        >>> n.table("postgres://h:5432", "app.public.users")
        TableRef(catalog='internal', database='public', name='users')
        >>> n.table("postgres://h:5432", "other.public.users") is None, n.table("kafka://k:9092", "t") is None
        (True, True)
        >>> n.table("headwater", "hive.raw.events")
        TableRef(catalog='hive', database='raw', name='events')
        >>> n.table("s3://bucket", "out/part-0.csv")
        TableRef(catalog='s3://bucket', database=None, name='out/part-0.csv')
        """
        placed = self.table_parts(namespace, name, also)
        if placed is None:
            return None
        catalog, parts = placed
        return TableRef(catalog, ".".join(parts[:-1]) or None, parts[-1])

    def table_parts(self, namespace: str, name: str, also: tuple[str, ...] = ()) -> tuple[str, list[str]] | None:
        """``table`` as its catalog and the exact parts of its qualified name (a schema path may have
        several; a part in double quotes is one identifier, dots and all: ``model.qualified``).

        >>> OpenLineageNaming().table_parts("headwater", 'hive.a."b.c".t')
        ('hive', ['a', 'b.c', 't'])
        """
        parts = qualified.split(name)
        best: tuple[int, str] | None = None
        for catalog, place in self.catalogs.items():
            if place.namespace.lower() != namespace.lower():
                continue
            lead = qualified.split(place.prefix) if place.prefix else []
            if [p.lower() for p in parts[: len(lead)]] != [p.lower() for p in lead] or len(parts) <= len(lead):
                continue
            if best is None or len(lead) > best[0]:
                best = (len(lead), catalog)
        if best is not None:
            return best[1], parts[best[0] :]
        if namespace == self.default_namespace or namespace in also:
            if len(parts) <= 2:
                return INTERNAL, parts
            return parts[0], parts[1:]
        storage = storage_of_dataset(namespace, name)
        return None if storage is None else (storage.catalog, [storage.name])


def event_place(properties: Mapping[str, str]) -> Place | None:
    """The place a hook recorded in an event's ``external_catalog_properties``, if any."""
    ns = properties.get(NAMESPACE_PROPERTY)
    return Place(ns, properties.get(PREFIX_PROPERTY) or None) if ns else None


class NamingError(ValueError):
    """A namespace mapping that cannot be read; the message names the entry and the fix."""


def place_of_setting(catalog: str, value: Any, where: str) -> Place:
    """A ``[openlineage.namespaces]`` entry: ``"ns"`` or ``{ namespace = "ns", prefix = "db" }``.

    >>> place_of_setting("internal", "doris://fe:9030", "x")
    Place(namespace='doris://fe:9030', prefix=None)
    >>> place_of_setting("internal", {"namespace": "postgres://h:5432", "prefix": "app"}, "x").prefix
    'app'
    """
    if isinstance(value, str) and value.strip():
        return Place(value.strip())
    if isinstance(value, Mapping) and isinstance(value.get("namespace"), str) and value["namespace"].strip():
        unknown = set(value) - {"namespace", "prefix"}
        prefix = value.get("prefix")
        if not unknown and (prefix is None or (isinstance(prefix, str) and prefix.strip())):
            return Place(value["namespace"].strip(), prefix.strip() if prefix else None)
    raise NamingError(
        f'namespace of catalog {catalog!r} (from {where}) must be a string such as "doris://fe:9030" '
        f'or a table {{ namespace = "postgres://host:5432", prefix = "database" }}, got {value!r}'
    )


def parse_mapping(items: list[str] | tuple[str, ...], where: str = "CLI") -> dict[str, Place]:
    """``CATALOG=NAMESPACE`` items (a bare ``NAMESPACE`` places ``internal``), as CLI options give them.

    >>> m = parse_mapping(["doris://fe:9030", "hive=hive://metastore:9083"])
    >>> m["internal"], m["hive"].namespace
    (Place(namespace='doris://fe:9030', prefix=None), 'hive://metastore:9083')
    """
    out: dict[str, Place] = {}
    for item in items:
        text = item.strip()
        catalog, sep, ns = text.partition("=")
        if not sep:
            catalog, ns = INTERNAL, text
        if "://" in catalog or not catalog.strip():
            catalog, ns = INTERNAL, text
        out[catalog.strip()] = _with_database(catalog.strip(), place_of_setting(catalog.strip(), ns, where), where)
    return out


def _with_database(catalog: str, place: Place, where: str) -> Place:
    """A place on a platform whose names lead with the database (PostgreSQL, Redshift, SQL Server,
    Oracle, Db2: ``{database}.{schema}.{table}``) takes it from the namespace's path
    (``postgres://pg:5432/shop``), else it is refused: without it every name would lack its first part.

    >>> _with_database("internal", Place("postgres://pg:5432/shop"), "CLI")
    Place(namespace='postgres://pg:5432', prefix='shop')
    >>> _with_database("internal", Place("postgres://pg:5432"), "CLI")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    headwater.model.ol_naming.NamingError: namespace of catalog 'internal' (from CLI): postgres names are ...
    """
    scheme, sep, rest = place.namespace.partition("://")
    entry = _SCHEMES.get(scheme.lower())
    if not sep or entry is None or entry[2] != "database" or place.prefix:
        return place
    host, slash, database = rest.partition("/")
    database = database.strip("/")
    if slash and database and "/" not in database:
        return Place(f"{scheme}://{host}", database)
    raise NamingError(
        f"namespace of catalog {catalog!r} (from {where}): {scheme} names are {{database}}.{{schema}}.{{table}}; "
        f"give the database in the namespace ({scheme}://{host}/DATABASE)"
    )


def naming_for(
    mapping: Mapping[str, Place] | None = None,
    catalog_url: str | None = None,
    dialect: str | None = None,
    default_namespace: str = DEFAULT_NAMESPACE,
    job_namespace: str = DEFAULT_NAMESPACE,
) -> OpenLineageNaming:
    """The naming for a command: the explicit ``mapping``, and ``internal`` placed from ``catalog_url``
    when the mapping does not place it (the ``--catalog-url`` default)."""
    naming = OpenLineageNaming(dict(mapping or {}), default_namespace, job_namespace)
    if catalog_url:
        naming = naming.with_place(INTERNAL, place_of_url(catalog_url, dialect))
    return naming


def naming_from_table(table: Mapping[str, Any], where: str) -> OpenLineageNaming:
    """The ``[openlineage]`` table of ``headwater.toml``: ``job_namespace``, ``default_namespace`` and
    ``[openlineage.namespaces]`` (catalog = namespace, or a table with ``namespace`` and ``prefix``).

    >>> n = naming_from_table({"job_namespace": "etl", "namespaces": {"internal": "doris://fe:9030"}}, "x")
    >>> n.job_namespace, n.dataset(TableRef("internal", "db", "t"))
    ('etl', ('doris://fe:9030', 'db.t'))
    """
    if not isinstance(table, Mapping):
        raise NamingError(f"[openlineage] in {where} must be a table")
    unknown = sorted(set(table) - {"job_namespace", "default_namespace", "namespaces"})
    if unknown:
        raise NamingError(
            f"[openlineage] in {where}: unknown key {unknown[0]!r} "
            "(known: job_namespace, default_namespace, namespaces)"
        )
    texts: dict[str, str] = {}
    for key in ("job_namespace", "default_namespace"):
        value = table.get(key, DEFAULT_NAMESPACE)
        if not isinstance(value, str) or not value.strip():
            raise NamingError(f"openlineage.{key} (from {where}) must be a non-empty string, got {value!r}")
        texts[key] = value.strip()
    mapping = table.get("namespaces", {})
    if not isinstance(mapping, Mapping):
        raise NamingError(f"[openlineage.namespaces] in {where} must be a table of catalog = namespace")
    catalogs = {str(k): place_of_setting(str(k), v, where) for k, v in mapping.items()}
    return OpenLineageNaming(catalogs, texts["default_namespace"], texts["job_namespace"])
