"""Storage paths as datasets: ``s3://bucket/key``, ``hdfs://nn:8020/path``, ``/local/file``.

A path is a ``TableRef`` whose catalog is ``scheme://authority`` (the OpenLineage namespace of the
storage, after the naming spec) and whose name is the path inside it: an object key for object
stores (no leading slash), an absolute path for file systems. ``s3a://`` and ``s3n://`` are ``s3://``;
a local file (``/tmp/x.csv``, ``file:///tmp/x.csv``) is in ``file://``, OpenLineage's ``file``.

>>> storage_ref("s3://bucket/path/part-0.parquet")
TableRef(catalog='s3://bucket', database=None, name='path/part-0.parquet')
>>> storage_ref("hdfs://nn:8020/warehouse/out")
TableRef(catalog='hdfs://nn:8020', database=None, name='/warehouse/out')
>>> storage_ref("/tmp/x.csv"), storage_ref("relative.csv")
(TableRef(catalog='file://', database=None, name='/tmp/x.csv'), None)
>>> storage_uri(storage_ref("s3a://bucket/out/"))
's3://bucket/out/'
>>> storage_namespace(storage_ref("file:///tmp/x.csv"))
('file', '/tmp/x.csv')

Credentials in a URI (``s3://AKID:SECRET@bucket``) are never part of a dataset's identity (the
OpenLineage naming spec drops them): ``without_userinfo`` removes them wherever a name is made.

>>> storage_ref("s3a://AKID:SECRET@bucket/p")
TableRef(catalog='s3://bucket', database=None, name='p')
"""

from __future__ import annotations

import re

from headwater.model.event import TableRef

_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<authority>[^/?#]*)(?P<path>[^?#]*)")
_USERINFO = re.compile(r"(?<=[A-Za-z0-9+.-]://)[^/?#\s]*@")
_ALIASES = {"s3a": "s3", "s3n": "s3", "gcs": "gs"}
OBJECT_STORES = frozenset({"s3", "gs", "wasb", "wasbs", "abfs", "abfss", "oss", "cos", "obs", "http", "https"})
"""Schemes whose names are object keys (no leading slash); the others name absolute paths."""
LOCAL = "file://"
"""The catalog of local files; OpenLineage's namespace for them is ``file``."""


def without_userinfo(text: str) -> str:
    """``text`` without the user information (``user:password@``) of the URIs it holds; unchanged
    (the same object) when it holds none.

    >>> without_userinfo("jdbc:postgresql://etl:PW@db:5432/app"), without_userinfo("s3://K:S@b/k@v")
    ('jdbc:postgresql://db:5432/app', 's3://b/k@v')
    >>> without_userinfo("user@example.com"), without_userinfo("a.b")
    ('user@example.com', 'a.b')
    """
    if "@" not in text or "//" not in text:
        return text
    return _USERINFO.sub("", text)


def storage_ref(path: str, default_scheme: str | None = None) -> TableRef | None:
    """The dataset a storage path names; None when it names none (a relative path, a stage).

    ``default_scheme``: the file system of an absolute path without one (``hdfs`` for a Hive
    ``INSERT OVERWRITE DIRECTORY '/out'``, whose file system is the cluster's default); local else.

    >>> storage_ref("/out/daily", default_scheme="hdfs")
    TableRef(catalog='hdfs://', database=None, name='/out/daily')
    """
    text = without_userinfo(path.strip())
    m = _URI.match(text)
    if m is None:
        if not text.startswith("/"):
            return None
        scheme, authority, rest = (default_scheme or "file"), "", text
    else:
        scheme, authority, rest = m["scheme"].lower(), m["authority"], m["path"]
        scheme = _ALIASES.get(scheme, scheme)
    if scheme in OBJECT_STORES:
        rest = rest.lstrip("/") or "/"
    elif not rest.startswith("/"):
        rest = "/" + rest
    return TableRef(f"{scheme}://{authority}", None, rest)


def is_storage(table: TableRef) -> bool:
    """True for a storage path's dataset (its catalog is ``scheme://authority``)."""
    return "://" in table.catalog


def storage_uri(table: TableRef) -> str:
    """The path a storage dataset names, as a URI (``s3://bucket/key``, ``file:///tmp/x``); a relative
    path on a file system (Spark ``parquet.`out/p/` ``) as it is written.

    >>> storage_uri(TableRef("hdfs://", None, "out/p/"))
    'out/p/'
    """
    if table.name.startswith("/"):
        return table.catalog + table.name
    scheme = table.catalog.partition("://")[0]
    if scheme not in OBJECT_STORES and table.catalog.endswith("://"):
        return table.name
    return f"{table.catalog}/{table.name}"


def storage_namespace(table: TableRef) -> tuple[str, str]:
    """``(namespace, name)`` of a storage dataset in OpenLineage terms."""
    return ("file" if table.catalog == LOCAL else table.catalog), table.name


def storage_of_dataset(namespace: str, name: str) -> TableRef | None:
    """The storage dataset an OpenLineage ``(namespace, name)`` names, or None when the namespace
    is no storage's (``s3://bucket``, ``hdfs://nn:8020``, ``file``, ``gs://b``…).

    >>> storage_of_dataset("s3://bucket", "path/x.parquet")
    TableRef(catalog='s3://bucket', database=None, name='path/x.parquet')
    >>> storage_of_dataset("file", "/tmp/x")
    TableRef(catalog='file://', database=None, name='/tmp/x')
    >>> storage_of_dataset("postgres://h:5432", "db.public.t") is None
    True
    """
    if namespace == "file":
        return TableRef(LOCAL, None, name) if name else None
    m = _URI.match(namespace)
    if m is None or m["path"] or not name:
        return None
    scheme = _ALIASES.get(m["scheme"].lower(), m["scheme"].lower())
    if scheme not in OBJECT_STORES and scheme not in _FILE_SYSTEMS:
        return None
    return TableRef(f"{scheme}://{m['authority']}", None, name)


_FILE_SYSTEMS = frozenset({"file", "hdfs", "viewfs", "dbfs", "ofs", "jfs", "alluxio", "cosn", "lakefs"})
