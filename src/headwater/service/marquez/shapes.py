"""headwater's nodes in the shapes of Marquez's API (``Namespace``, ``Dataset``, ``Job``).

Times are ISO 8601 in UTC; a value headwater does not know is left out rather than sent as null
(Marquez's schemas do not allow null where they give a type)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection

from headwater.model.openlineage import DEFAULT_PRODUCER
from headwater.service.marquez import store_reads as reads
from headwater.service.marquez.field_types import UNKNOWN, field_types
from headwater.service.marquez.names import dataset_id, job_id
from headwater.store.names import from_us

SQL_FACET = "https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet"


def iso(us: int | None) -> str | None:
    """``2024-05-01T10:00:00Z`` for microseconds since the epoch.

    >>> iso(1714557600000000)
    '2024-05-01T10:00:00Z'
    """
    t = from_us(us)
    return None if t is None else t.isoformat().replace("+00:00", "Z")


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def namespace(name: str, created_us: int, updated_us: int | None = None, what: str = "") -> dict[str, Any]:
    return _clean(
        {
            "name": name,
            "createdAt": iso(created_us),
            "updatedAt": iso(updated_us or created_us),
            "description": what or None,
        }
    )


class Shapes:
    """Builds Marquez objects for nodes read on one connection (caching systems and datasets)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._systems: dict[int, str] = {}

    def _system(self, ids: Collection[int | None]) -> None:
        todo = {i for i in ids if i is not None and i not in self._systems}
        if todo:
            self._systems.update(reads.systems(self.conn, todo))

    def dataset_ids(self, ds: Collection[reads.Node]) -> dict[int, tuple[str, str]]:
        """``(namespace, name)`` of each dataset node."""
        self._system([d.parent_id for d in ds])
        return {d.id: dataset_id(self._systems.get(d.parent_id or 0, ""), d.name) for d in ds}

    def datasets(self, ds: list[reads.Node]) -> list[dict[str, Any]]:
        ids = self.dataset_ids(ds)
        fields = reads.fields_of(self.conn, [d.id for d in ds])
        writes = reads.last_writes(self.conn, [d.id for d in ds])
        out = []
        for d in ds:
            ns, name = ids[d.id]
            types = field_types(self.conn, d.id, name) if fields[d.id] else {}
            cols = []
            for f in fields[d.id]:
                col = f.name.rsplit(".", 1)[-1]
                cols.append(_clean({"name": col, "type": types.get(col, UNKNOWN), "tags": [], "description": None}))
            description = d.properties.get("description")
            out.append(
                _clean(
                    {
                        "id": {"namespace": ns, "name": name},
                        "type": "DB_TABLE",
                        "name": name,
                        "physicalName": name,
                        "createdAt": iso(d.created_us),
                        "updatedAt": iso(max(d.created_us, writes.get(d.id, 0))),
                        "namespace": ns,
                        "sourceName": ns,
                        "fields": cols,
                        "tags": [],
                        "lastModifiedAt": iso(writes.get(d.id)),
                        "description": description if isinstance(description, str) else None,
                        "facets": {},
                        "deleted": False,
                    }
                )
            )
        return out

    def jobs(self, js: list[reads.Node]) -> list[dict[str, Any]]:
        io = reads.process_io(self.conn, [j.id for j in js])
        times = reads.job_times(self.conn, [j.id for j in js])
        ds = reads.by_ids(self.conn, {d for ins, outs in io.values() for d in (*ins, *outs)})
        ids = self.dataset_ids([d for d in ds.values() if d.type == "DATASET"])

        def refs(nodes: list[int]) -> list[dict[str, str]]:
            pairs = sorted({ids[n] for n in nodes if n in ids})
            return [{"namespace": a, "name": b} for a, b in pairs]

        out = []
        for j in js:
            ns, name = job_id(j.name, j.properties)
            first, last, file, line = times.get(j.id, (j.created_us, j.created_us, None, None))
            sql = j.properties.get("sql")
            facets = {}
            if isinstance(sql, str) and sql:
                facets["sql"] = {"_producer": DEFAULT_PRODUCER, "_schemaURL": SQL_FACET, "query": sql}
            where = f"{file}:{line}" if file else None
            out.append(
                _clean(
                    {
                        "id": {"namespace": ns, "name": name},
                        "type": "BATCH",
                        "name": name,
                        "simpleName": name,
                        "createdAt": iso(first),
                        "updatedAt": iso(last),
                        "namespace": ns,
                        "inputs": refs(io[j.id][0]),
                        "outputs": refs(io[j.id][1]),
                        "description": f"{j.type.lower()} {j.name}" + (f" ({where})" if where else ""),
                        "latestRuns": [],
                        "facets": facets,
                    }
                )
            )
        return out
