"""The headwater event inside a RunEvent that headwater produced: the inverse of ``to_run_event``.

The ``headwater`` run facet carries the event without its lineage lists and the headwater table of
each dataset; ``columnLineage`` carries the lineage (one entry per input and transformation here,
which the store records exactly as the original entries). A RunEvent without the facet (another
producer's, or a consumer dropped it) gives None: it is read as any OpenLineage event.

>>> from headwater.dispatch.sample import guide_event
>>> from headwater.model.openlineage import run_event_json
>>> import json
>>> e = guide_event("q1", timestamp="2025-01-01T00:00:00+00:00")
>>> back = restore_event(json.loads(run_event_json(e)))
>>> (back.event_id, back.status, back.context, back.target) == (e.event_id, e.status, e.context, e.target)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from headwater.model.codec import EventFormatError, event_from_dict
from headwater.model.event import LineageInfo

HEADWATER_FACET = "headwater"


def headwater_facet(run_event: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``headwater`` run facet of a RunEvent (parsed JSON), if it has one."""
    run = run_event.get("run")
    facets = run.get("facets") if isinstance(run, Mapping) else None
    facet = facets.get(HEADWATER_FACET) if isinstance(facets, Mapping) else None
    return facet if isinstance(facet, Mapping) and isinstance(facet.get("event"), Mapping) else None


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise EventFormatError(f"{path}: expected an array")
    return value


def restore_event(run_event: Mapping[str, Any], lineage: bool = True) -> LineageInfo | None:
    """The headwater event a RunEvent carries (its lineage from ``columnLineage`` when ``lineage``),
    or None without a ``headwater`` run facet. Raises ``EventFormatError`` naming the bad field."""
    facet = headwater_facet(run_event)
    if facet is None:
        return None
    base = "run.facets.headwater"
    tables: dict[tuple[str, str], Mapping[str, Any]] = {}
    for k, row in enumerate(_list(facet.get("datasets"), f"{base}.datasets")):
        if not isinstance(row, Mapping) or not isinstance(row.get("table"), Mapping):
            raise EventFormatError(f"{base}.datasets[{k}]: expected an object with namespace, name and table")
        tables[(str(row.get("namespace")), str(row.get("name")))] = row["table"]
    labels: dict[tuple[str, int, int], list[str]] = {}
    for k, row in enumerate(_list(facet.get("labels"), f"{base}.labels")):
        if not isinstance(row, Mapping):
            raise EventFormatError(f"{base}.labels[{k}]: expected an object")
        where, value = (row.get("input"), row.get("transformation")), row.get("labels")
        if not all(type(i) is int for i in where) or not isinstance(value, list):
            raise EventFormatError(f"{base}.labels[{k}]: expected integers input, transformation and a list of labels")
        labels[(str(row.get("column")), where[0], where[1])] = [str(x) for x in value]

    def column(inp: Any, path: str) -> dict[str, Any]:
        if not isinstance(inp, Mapping):
            raise EventFormatError(f"{path}: expected an object")
        t = tables.get((str(inp.get("namespace")), str(inp.get("name"))))
        if t is None:
            raise EventFormatError(
                f"{path}: dataset {inp.get('namespace')}/{inp.get('name')} is not in {base}.datasets"
            )
        return {
            "catalog": t.get("catalog"),
            "database": t.get("database"),
            "table": t.get("name"),
            "column": inp.get("field"),
        }

    direct: list[dict[str, Any]] = []
    output_indirect: list[dict[str, Any]] = []
    dataset_indirect: list[dict[str, Any]] = []
    outputs = _list(run_event.get("outputs"), "outputs")
    if lineage and outputs:
        facets = outputs[0].get("facets") if isinstance(outputs[0], Mapping) else None
        cl = (facets or {}).get("columnLineage") or {}
        fields = cl.get("fields") or {}
        if not isinstance(fields, Mapping):
            raise EventFormatError("outputs[0].facets.columnLineage.fields: expected an object")
        for name, spec in fields.items():
            path = f"outputs[0].facets.columnLineage.fields.{name}.inputFields"
            for j, inp in enumerate(_list((spec or {}).get("inputFields"), path)):
                c = column(inp, f"{path}[{j}]")
                for k, t in enumerate(_list(inp.get("transformations"), f"{path}[{j}].transformations")):
                    text = t.get("description") or ""
                    if t.get("type") == "DIRECT":
                        masking = bool(t.get("masking"))
                        direct.append(
                            {
                                "target_column": name,
                                "expression": text,
                                "type": t.get("subtype"),
                                "origin": "COLUMN",
                                "sources": [c],
                                "inputs": [
                                    {
                                        "column": c,
                                        "labels": labels.get((name, j, k), []),
                                        "masking": masking,
                                    }
                                ],
                            }
                        )
                    else:
                        output_indirect.append(
                            {
                                "type": t.get("subtype"),
                                "expression": t.get("description") or "",
                                "sources": [c],
                                "target_column": name,
                            }
                        )
        path = "outputs[0].facets.columnLineage.dataset"
        for j, inp in enumerate(_list(cl.get("dataset"), path)):
            c = column(inp, f"{path}[{j}]")
            for t in _list(inp.get("transformations"), f"{path}[{j}].transformations"):
                dataset_indirect.append(
                    {"type": t.get("subtype"), "expression": t.get("description") or "", "sources": [c]}
                )
    doc = {
        **facet["event"],
        "direct": direct,
        "dataset_indirect": dataset_indirect,
        "output_indirect": output_indirect,
    }
    try:
        return event_from_dict(doc)
    except EventFormatError as exc:
        raise EventFormatError(f"{base}.event: {exc}") from None
