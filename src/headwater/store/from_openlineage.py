"""An OpenLineage ``RunEvent`` (as parsed JSON) as ``Facts``.

- the job is ``namespace/name`` of the event's job; the run id is the run key, so several events
  of one run (START, RUNNING, COMPLETE) add to each other instead of replacing;
- a RunEvent that headwater produced (it has the ``headwater`` run facet) is the headwater event it
  carries (``model.ol_restore``), recorded as ``from_event`` records that event: the same nodes,
  edges, job identity, event id, context and status (a COMPLETE event); its START, FAIL and ABORT
  events name the same job and assert nothing;
- a dataset in a namespace that the ``OpenLineageNaming`` places a catalog in (``internal`` ↔
  ``doris://fe:9030``) is that catalog's table, and one in the naming's default namespace or one of
  the store's *headwater namespaces* (default ``headwater``) is named as headwater names it
  (``db.table`` → catalog ``internal``; ``catalog.db.table``), so lineage sent through OpenLineage
  meets lineage recorded directly; any other namespace is its own source system;
- the ``schema`` facet's fields become FIELD nodes; ``columnLineage`` inputs become MAPS_TO edges
  (transformation type/subtype → dependency/subtype; legacy ``transformationType`` IDENTITY →
  IDENTITY, anything else TRANSFORMATION); the facet's ``dataset`` entries apply to every output field
  (INDIRECT ones are stored once per input field, like a headwater event's dataset-level entries);
- FAIL and ABORT events are counted but assert no edges;
- a JobEvent (no run) is the job's static lineage, recorded as a COMPLETE run of its own would be (a
  version of the job); a DatasetEvent is a dataset's schema and facets, no job, no lineage;
- a dbt node's event (``openlineage-dbt``'s ``dbt_node`` job facet) is the job of that node as
  ``headwater ingest --dbt`` names it (``job:model.shop.orders``), so the two producers never make
  two jobs of one model; a namespace no mapping places is read as the node's ``database`` there
  (``postgres://127.0.0.1:5432`` + ``shop.marts.orders`` → catalog ``shop``), so its datasets are the
  ``--dbt`` ones; an ephemeral model named as an input (it is no relation), and a column input named
  with fewer parts than the model's relation (a CTE the producer did not resolve), are left out. When such a
  job's current lineage was extracted by headwater, the store keeps it and records the run
  (``store.producer_runs``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from headwater.model import qualified
from headwater.model.codec import EventFormatError
from headwater.model.ol_naming import OpenLineageNaming, Place
from headwater.model.ol_restore import headwater_facet, restore_event
from headwater.model.secrets import redact_run_event, redact_text
from headwater.model.storage import without_userinfo
from headwater.store.errors import InvalidInput
from headwater.store.facts import Facts, FactsBuilder, NodeKey, NodeSpec
from headwater.store.from_event import event_facts
from headwater.store.names import to_us
from headwater.store.types import EdgeType, NodeType
from headwater.store.write import chunks

_NS = uuid.UUID("3a1f0c52-7d7e-4b7e-8f4e-2b8a4c1d9e60")
_DIRECT_SUBTYPES = {"IDENTITY", "TRANSFORMATION", "AGGREGATION"}
EVENT_TYPES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER")
"""OpenLineage's run states; a missing ``eventType`` is OTHER."""


def _get(d: Any, key: str, path: str, kind: type | tuple[type, ...] = str) -> Any:
    if not isinstance(d, Mapping):
        raise InvalidInput(path, "expected an object")
    if key not in d or d[key] is None:
        raise InvalidInput(f"{path}.{key}", "missing")
    value = d[key]
    if not isinstance(value, kind):
        raise InvalidInput(f"{path}.{key}", f"expected {getattr(kind, '__name__', 'a value')}")
    if isinstance(value, str) and not value.strip():
        raise InvalidInput(f"{path}.{key}", "empty")
    return value


ALIASES_PROPERTY = "openlineage_aliases"
"""A dataset property: every ``[namespace, name]`` the dataset is known by (its own name first, then
the names of ``symlinks`` facets), so that a later event naming any of them meets the same node."""

Aliases = Mapping[tuple[str, str], tuple[str, str]]
"""OpenLineage dataset names read as another (an alias → the name of the node that holds it)."""


def symlinks(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ``(namespace, name)`` of each identifier of a dataset's ``symlinks`` facet."""
    facet = (d.get("facets") or {}).get("symlinks") if isinstance(d.get("facets"), Mapping) else None
    out = []
    for i in (facet or {}).get("identifiers") or () if isinstance(facet, Mapping) else ():
        if isinstance(i, Mapping) and isinstance(i.get("namespace"), str) and isinstance(i.get("name"), str):
            out.append((i["namespace"], i["name"]))
    return out


def dataset_names(event: Mapping[str, Any]) -> list[tuple[tuple[str, str], list[tuple[str, str]]]]:
    """Each dataset an event names (inputs, outputs, a DatasetEvent's dataset, the column lineage's
    input fields) with the names of its symlinks."""
    out = []
    items = [*(event.get("inputs") or ()), *(event.get("outputs") or ())]
    if isinstance(event.get("dataset"), Mapping):
        items.append(event["dataset"])
    for d in items:
        if isinstance(d, Mapping) and isinstance(d.get("namespace"), str) and isinstance(d.get("name"), str):
            out.append(((d["namespace"], d["name"]), symlinks(d)))
            cl = (d.get("facets") or {}).get("columnLineage") if isinstance(d.get("facets"), Mapping) else None
            for spec in ((cl or {}).get("fields") or {}).values() if isinstance(cl, Mapping) else ():
                for inp in (spec or {}).get("inputFields") or () if isinstance(spec, Mapping) else ():
                    if isinstance(inp, Mapping) and isinstance(inp.get("namespace"), str):
                        out.append(((inp["namespace"], str(inp.get("name"))), []))
    return out


class _Datasets:
    def __init__(
        self, b: FactsBuilder, naming: OpenLineageNaming, namespaces: Collection[str], aliases: Aliases | None = None
    ) -> None:
        self.b = b
        self.naming = naming
        self.namespaces = tuple(namespaces)
        self.aliases = aliases or {}

    def key(self, namespace: str, name: str) -> NodeKey:
        namespace = without_userinfo(namespace)  # ``postgres://etl:PW@db:5432`` is ``postgres://db:5432``
        namespace, name = self.aliases.get((namespace, name), (namespace, name))
        placed = self.naming.table_parts(namespace, name, self.namespaces)
        if placed is not None:
            return self.b.dataset(placed[0], *placed[1])
        return self.b.dataset(namespace, *qualified.split(name))

    def plain(self, namespace: str, name: str) -> NodeKey | None:
        """The node ``(namespace, name)`` names by itself (no alias map, nothing added to the facts);
        None for a name no node can have."""
        scratch = FactsBuilder(Facts(event_id="", kind="", run_key="", event_us=0))
        try:
            return _Datasets(scratch, self.naming, self.namespaces).key(namespace, name)
        except InvalidInput:
            return None


def _described(text: Any) -> Any:
    """A transformation's description as stored: free text that may quote SQL, its secrets masked."""
    return redact_text(text) if isinstance(text, str) else text


def _transformations(inp: Mapping[str, Any], legacy: str | None) -> list[tuple[str, str, str | None, bool]]:
    out = []
    for t in inp.get("transformations") or ():
        dep = str(t.get("type") or "DIRECT").upper()
        sub = str(t.get("subtype") or ("TRANSFORMATION" if dep == "DIRECT" else "FILTER")).upper()[:16]
        out.append(
            (
                dep if dep in ("DIRECT", "INDIRECT") else "DIRECT",
                sub,
                t.get("description"),
                bool(t.get("masking")),
            )
        )
    if not out:
        sub = "IDENTITY" if (legacy or "").upper() == "IDENTITY" else "TRANSFORMATION"
        out.append(("DIRECT", sub, None, (legacy or "").upper() == "MASKED"))
    return out


def dbt_node(job: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``dbt_node`` job facet of an ``openlineage-dbt`` event, when it names a node."""
    facet = (job.get("facets") or {}).get("dbt_node")
    if isinstance(facet, Mapping) and isinstance(facet.get("unique_id"), str) and facet["unique_id"].strip():
        return facet
    return None


def _placed_for_dbt(
    naming: OpenLineageNaming, node: Mapping[str, Any], datasets: list[Any], namespaces: Collection[str]
) -> OpenLineageNaming:
    """``naming`` with each unplaced namespace of a dbt event read as the node's database there."""
    database = node.get("database")
    if not isinstance(database, str) or not database:
        return naming
    for d in datasets:
        ns, name = d["namespace"], d["name"]
        if name.split(".")[0].lower() == database.lower() and naming.table(ns, name, tuple(namespaces)) is None:
            naming = naming.with_place(database, Place(ns, database))
    return naming


def _ephemeral(d: Mapping[str, Any]) -> bool:
    config = ((d.get("facets") or {}).get("dbt_model") or {}).get("config") or {}
    return isinstance(config, Mapping) and config.get("materialized") == "ephemeral"


def _unresolved_cte(inp: Mapping[str, Any], output: Mapping[str, Any]) -> bool:
    """A dbt event's column input named with fewer parts than the model's own relation: a CTE the
    producer's SQL parser did not resolve (dbt names every relation in full)."""
    name = inp.get("name")
    return isinstance(name, str) and name.count(".") < str(output.get("name") or "").count(".")


RUN_EVENT, JOB_EVENT, DATASET_EVENT = "RunEvent", "JobEvent", "DatasetEvent"
JOB_EVENT_STATUS, DATASET_EVENT_STATUS = "JOB", "DATASET"
"""The event status of a JobEvent's and a DatasetEvent's record (a RunEvent's is its ``eventType``)."""


def event_kind(event: Mapping[str, Any]) -> str:
    """Which of the spec's three events ``event`` is: its ``schemaURL`` says (``…#/$defs/JobEvent``),
    else its shape — a ``run`` is a RunEvent, a ``job`` without ``run`` or ``eventType`` a JobEvent,
    a ``dataset`` without ``job`` a DatasetEvent; anything else is read as a RunEvent (and refused
    as one: ``event.run: missing``).

    >>> event_kind({"job": {}, "inputs": []}), event_kind({"dataset": {}}), event_kind({"eventType": "START"})
    ('JobEvent', 'DatasetEvent', 'RunEvent')
    """
    url = event.get("schemaURL")
    if isinstance(url, str):
        for kind in (RUN_EVENT, JOB_EVENT, DATASET_EVENT):
            if url.endswith(f"/{kind}"):
                return kind
    if "run" in event:
        return RUN_EVENT
    if "job" in event and "eventType" not in event:
        return JOB_EVENT
    if "dataset" in event and "job" not in event:
        return DATASET_EVENT
    return RUN_EVENT


def dataset_event_facts(
    event: Mapping[str, Any],
    t: int,
    namespaces: Collection[str] = ("headwater",),
    naming: OpenLineageNaming | None = None,
    aliases: Aliases | None = None,
) -> Facts:
    """A DatasetEvent: the dataset and the fields of its ``schema`` facet, its other facets kept in
    the event (the dataset's ``openlineage_dataset_event`` property names the latest); no job, no
    lineage, like a table's DDL."""
    d = _get(event, "dataset", "event", Mapping)
    ns, name = _get(d, "namespace", "event.dataset"), _get(d, "name", "event.dataset")
    facets = d.get("facets") or {}
    if not isinstance(facets, Mapping):
        raise InvalidInput("event.dataset.facets", "expected an object")
    body = json.dumps(redact_run_event(event), sort_keys=True, default=str)
    event_id = "ol:" + str(uuid.uuid5(_NS, f"dataset\x1f{ns}\x1f{name}\x1f{body}"))
    facts = Facts(
        event_id=event_id, kind="openlineage", run_key=event_id, event_us=t, status=DATASET_EVENT_STATUS, payload=body
    )
    b = FactsBuilder(facts)
    ds = _Datasets(b, naming or OpenLineageNaming(), namespaces, aliases)
    key = ds.key(ns, name)
    _aliased(ds, key, d)
    spec = facts.nodes[key]  # shared with the builder's names: replaced, not changed
    props = {**(spec.properties or {}), DATASET_EVENT_PROPERTY: event_id}
    facts.nodes[key] = NodeSpec(spec.type, spec.name, spec.short, spec.parent, props)
    _schema_fields(b, key, d)
    return facts


DATASET_EVENT_PROPERTY = "openlineage_dataset_event"
"""The dataset property naming the DatasetEvent that last described it (its schema and facets)."""


def run_event_facts(
    event: Mapping[str, Any],
    namespaces: Collection[str] = ("headwater",),
    naming: OpenLineageNaming | None = None,
    aliases: Aliases | None = None,
) -> Facts:
    """Translate one RunEvent, JobEvent or DatasetEvent (``event_kind``); raises ``InvalidInput``
    naming the first bad field.

    ``naming`` maps namespaces to catalogs (``OpenLineageNaming.table``); ``namespaces`` are read
    as headwater's own besides the naming's default namespace.

    A JobEvent is the job's static lineage: its inputs, outputs and column lineage recorded as a
    run's would be, under a run key of its own (each JobEvent is a version of the job: it replaces
    the lineage the job asserted before, as a new run does); a DatasetEvent is a dataset's schema
    and facets (``dataset_event_facts``)."""
    event_time = _get(event, "eventTime", "event")
    try:
        t = to_us(event_time)
    except ValueError:
        raise InvalidInput("event.eventTime", f"not an ISO 8601 time: {event_time!r}") from None
    assert t is not None
    kind = event_kind(event)
    if kind == DATASET_EVENT:
        return dataset_event_facts(event, t, namespaces, naming, aliases)
    job_d = _get(event, "job", "event", Mapping)
    job_ns, job_nm = without_userinfo(_get(job_d, "namespace", "event.job")), _get(job_d, "name", "event.job")
    if kind == JOB_EVENT:
        run_id, event_type = f"job:{job_ns}/{job_nm}@{event_time}", "COMPLETE"
    else:
        run_id = _get(_get(event, "run", "event", Mapping), "runId", "event.run")
        event_type = str(event.get("eventType") or "OTHER").upper()
    if event_type not in EVENT_TYPES:
        raise InvalidInput("event.eventType", f"{event.get('eventType')!r} is not one of {', '.join(EVENT_TYPES)}")
    inputs = event.get("inputs") or []
    outputs = event.get("outputs") or []
    for label, items in (("inputs", inputs), ("outputs", outputs)):
        if not isinstance(items, list):
            raise InvalidInput(f"event.{label}", "expected a list")
        for k, d in enumerate(items):
            _get(d, "namespace", f"event.{label}[{k}]")
            _get(d, "name", f"event.{label}[{k}]")
    event_id = "ol:" + str(uuid.uuid5(_NS, f"{run_id}\x1f{event_type}\x1f{event_time}\x1f{job_ns}/{job_nm}"))
    if kind == RUN_EVENT and headwater_facet(event) is not None:
        return _headwater_facts(event, event_type, event_id, t)
    facts = Facts(
        event_id=event_id,
        kind="openlineage",
        run_key=f"ol:{run_id}",
        event_us=t,
        status=event_type if kind == RUN_EVENT else JOB_EVENT_STATUS,
        payload=json.dumps(redact_run_event(event), sort_keys=True, default=str),  # no SQL secret kept
    )
    b = FactsBuilder(facts)
    node = dbt_node(job_d)
    if node is not None:
        uid = node["unique_id"].strip()
        props = {"namespace": job_ns, "openlineage.name": job_nm}
        # the short name a headwater event of the same dbt node gives it (``from_event``): its id
        job = b.node(NodeType.JOB, f"job:{uid}", uid.lower()[:512], properties=props)
        inputs = [d for d in inputs if not _ephemeral(d)]
        naming = _placed_for_dbt(naming or OpenLineageNaming(), node, [*inputs, *outputs], namespaces)
    else:
        job = b.node(NodeType.JOB, f"ol:{job_ns}/{job_nm}", job_nm.lower(), properties={"namespace": job_ns})
    facts.job = job
    if event_type in ("FAIL", "ABORT"):
        return facts
    ds = _Datasets(b, naming or OpenLineageNaming(), namespaces, aliases)
    for d in inputs:
        key = ds.key(d["namespace"], d["name"])
        _aliased(ds, key, d)
        _schema_fields(b, key, d)
        b.edge(EdgeType.READ, key, job)
    for k, d in enumerate(outputs):
        key = ds.key(d["namespace"], d["name"])
        _aliased(ds, key, d)
        out_fields = _schema_fields(b, key, d)
        b.edge(EdgeType.WRITE, job, key)
        cl = (d.get("facets") or {}).get("columnLineage") or {}
        per_field = cl.get("fields") or {}
        if not isinstance(per_field, Mapping):
            raise InvalidInput(f"event.outputs[{k}].facets.columnLineage.fields", "expected an object")
        for column, spec in per_field.items():
            dst = b.field(key, column)
            out_fields.append(dst)
            legacy = spec.get("transformationType")
            for j, inp in enumerate(spec.get("inputFields") or ()):
                path = f"event.outputs[{k}].facets.columnLineage.fields.{column}.inputFields[{j}]"
                if node is not None and _unresolved_cte(inp, d):
                    continue
                src = b.field(ds.key(_get(inp, "namespace", path), _get(inp, "name", path)), _get(inp, "field", path))
                for dep, sub, desc, masking in _transformations(inp, legacy):
                    b.edge(
                        EdgeType.MAPS_TO,
                        src,
                        dst,
                        subtype=sub,
                        dependency=dep,
                        expression=_described(desc or spec.get("transformationDescription")),
                        masking=masking,
                    )
        b.written(key, list(dict.fromkeys(out_fields)))
        for j, inp in enumerate(cl.get("dataset") or ()):
            path = f"event.outputs[{k}].facets.columnLineage.dataset[{j}]"
            src = b.field(ds.key(_get(inp, "namespace", path), _get(inp, "name", path)), _get(inp, "field", path))
            for dep, sub, desc, masking in _transformations(inp, None):
                if dep == "INDIRECT":
                    b.indirect_all(src, key, sub, desc, masking)
                    continue
                for dst in dict.fromkeys(out_fields):
                    b.edge(
                        EdgeType.MAPS_TO,
                        src,
                        dst,
                        subtype=sub,
                        dependency=dep,
                        expression=_described(desc),
                        masking=masking,
                    )
    b.finish()
    return facts


def _aliased(ds: _Datasets, key: NodeKey, d: Mapping[str, Any]) -> None:
    """Give the dataset ``key`` the ``ALIASES_PROPERTY`` of ``d``'s names (its own and its symlinks'),
    and those names as node names (``Facts.aliases``, the ``hw_aliases`` rows)."""
    links = symlinks(d)
    if not links:
        return
    b = ds.b
    own = (d["namespace"], d["name"])
    canonical = ds.aliases.get(own, own)
    names = [list(n) for n in dict.fromkeys([canonical, own, *links])]
    spec = b.facts.nodes[key]  # shared with the builder's names: replaced, not changed
    known = list((spec.properties or {}).get(ALIASES_PROPERTY) or [])
    merged = known + [n for n in names if n not in known]
    b.facts.nodes[key] = NodeSpec(
        spec.type, spec.name, spec.short, spec.parent, {**(spec.properties or {}), ALIASES_PROPERTY: merged}
    )
    plain = [p[1] for n in names if (p := ds.plain(n[0], n[1])) is not None and p[0] == key[0] and p[1] != key[1]]
    if plain:
        b.facts.aliases = b.facts.aliases or {}
        held = b.facts.aliases.setdefault(key, [])
        held.extend(n for n in plain if n not in held)


def _schema_fields(b: FactsBuilder, key: NodeKey, d: Mapping[str, Any]) -> list[NodeKey]:
    schema = (d.get("facets") or {}).get("schema") or {}
    return [b.field(key, f["name"]) for f in schema.get("fields") or () if isinstance(f, Mapping) and f.get("name")]


def _headwater_facts(event: Mapping[str, Any], event_type: str, event_id: str, t: int) -> Facts:
    """A RunEvent headwater produced: its COMPLETE event is the headwater event it carries, recorded
    as directly (same event id, so the two paths are replays of each other); other run states name
    the event's job and assert nothing."""
    try:
        restored = restore_event(event, lineage=event_type == "COMPLETE")
    except EventFormatError as exc:
        path, _, problem = str(exc).partition(": ")
        raise InvalidInput(f"event.{path}", problem or "invalid") from None
    assert restored is not None
    facts = event_facts(restored)
    facts.kind = "openlineage"
    facts.payload = json.dumps(redact_run_event(event), sort_keys=True, default=str)
    if restored.context.timestamp is None:
        facts.event_us = t
    if event_type != "COMPLETE":
        job = facts.job
        assert job is not None
        facts.nodes = {job: facts.nodes[job]}
        facts.edges = []
        facts.event_id = event_id
        facts.event_us = t
        facts.status = event_type
    return facts


def dataset_aliases(
    conn: Any, events: Sequence[Mapping[str, Any]], naming: OpenLineageNaming, namespaces: Collection[str]
) -> dict[tuple[str, str], tuple[str, str]]:
    """The alias map of a batch of events: a dataset and the names of its ``symlinks`` are one node,
    whichever name reached the store first; a name another dataset holds as an alias
    (``ALIASES_PROPERTY``) is that dataset."""
    from sqlalchemy import select

    from headwater.store import aliases as alias_rows
    from headwater.store.schema import nodes

    groups = [[own, *links] for e in events if isinstance(e, Mapping) for own, links in dataset_names(e)]
    groups.sort(key=lambda g: len(g) == 1)  # symlink groups first: a name alone then meets its group
    builder = FactsBuilder(Facts(event_id="", kind="", run_key="", event_us=0))
    keys = _Datasets(builder, naming, namespaces)
    plain = {n: k for n in dict.fromkeys(x for g in groups for x in g) if (k := keys.plain(*n)) is not None}
    held = alias_rows.by_name(conn, {k[1] for k in plain.values()})  # alias (a node name) -> node id
    props: dict[int, Any] = {}
    for part in chunks(sorted(set(held.values()))):
        props.update(conn.execute(select(nodes.c.id, nodes.c.properties).where(nodes.c.id.in_(part))).all())
    stored: dict[tuple[str, str], tuple[str, str]] = {}
    for name, key in plain.items():
        if key[1] in held:  # the name of a node's symlink: that node, by the name it was first known by
            found = json.loads(props.get(held[key[1]]) or "{}").get(ALIASES_PROPERTY) or []
            if found:
                stored[name] = tuple(found[0])
    existing: set[tuple[str, str]] = set()
    for part in chunks(sorted({k for n, k in plain.items() if n not in stored})):
        names = [k[1] for k in part]
        q = select(nodes.c.type, nodes.c.name).where(nodes.c.name.in_(names))
        existing.update((t, n) for t, n in conn.execute(q) if (t, n) in set(part))
    exists = {n: k in existing for n, k in plain.items()}
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for g in groups:
        canonical = next((out.get(n) or stored[n] for n in g if n in out or n in stored), None)
        if canonical is None:
            canonical = next((n for n in g if exists.get(n)), g[0]) if len(g) > 1 else g[0]
        for n in g:
            if n != canonical and (len(g) > 1 or n in stored or n in out):
                out[n] = canonical
    return {k: v for k, v in out.items() if k != v}
