"""``analyze_impact``: what a change to a dataset or field affects downstream, and how badly.

Severity rules (``docs/store.md``). Each affected field gets the strongest dependency class over
the paths that reach it from a changed field: **IDENTITY** (every hop a DIRECT IDENTITY mapping:
the value is copied), **VALUE** (every hop DIRECT: the value is computed from it, through
TRANSFORMATION or AGGREGATION), **INDIRECT** (some hop is JOIN / FILTER / GROUP_BY / SORT / WINDOW /
CONDITIONAL). Nodes reached only through table-level lineage (READ / WRITE / entity edges) have
class **UNKNOWN**.

=================================  ========  ========  ========  =======
change                             IDENTITY  VALUE     INDIRECT  UNKNOWN
=================================  ========  ========  ========  =======
DELETE, SCHEMA_CHANGE (drop,       CRITICAL  HIGH      HIGH      HIGH
rename, type change: the default)
DATA_UPDATE                        MEDIUM    MEDIUM    LOW       MEDIUM
metadata only (SCHEMA_CHANGE with  LOW       LOW       LOW       LOW
operation ADD_COLUMN, COMMENT,
METADATA, PROPERTIES)
=================================  ========  ========  ========  =======

A destructive change (DELETE, SCHEMA_CHANGE but metadata only) breaks every statement that reads a
changed field in any role (``breakage.py``): the statement's target, all its columns and everything
downstream of it are at least HIGH.

A dataset takes the highest severity of its affected fields (UNKNOWN when none); a job the
highest of the fields it writes. Entity chains follow the seed design's scale (``entity_chain``):
unless the change is metadata only, an affected DECISION is CRITICAL and an affected REASONING HIGH
when a DIRECT (IDENTITY or VALUE) mapping reaches one of its fields, else MEDIUM. Group and overall
severity are the maximum of their members (LOW when nothing is affected). ``risk_level`` is the
overall severity in words, raised one step when ten or more datasets are affected.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, select

from headwater.store.breakage import Broken, broken_by
from headwater.store.errors import InvalidInput
from headwater.store.fields import MAPS_TO, direct_reach
from headwater.store.names import split_name
from headwater.store.resolve import children, fetch_nodes, normalise_ref, resolve
from headwater.store.results import ImpactAnalysis, ImpactGroup, NodeInfo
from headwater.store.schema import nodes
from headwater.store.traverse import DEFAULT_MAX_NODES, walk
from headwater.store.types import ENTITY_TYPES, FLOW_EDGE_TYPES, ChangeType, ImpactSeverity, NodeType

IDENTITY, VALUE, INDIRECT, UNKNOWN = "IDENTITY", "VALUE", "INDIRECT", "UNKNOWN"
METADATA_OPERATIONS = frozenset({"ADD_COLUMN", "COMMENT", "METADATA", "PROPERTIES"})
DESTRUCTIVE_OPERATIONS = frozenset({"DROP_COLUMN", "RENAME_COLUMN", "CHANGE_TYPE", "TYPE_CHANGE"})
"""Operations a SCHEMA_CHANGE may name that take the destructive rules (TYPE_CHANGE = CHANGE_TYPE)."""
_S = ImpactSeverity
RULES: Mapping[str, Mapping[str, ImpactSeverity]] = {
    "DESTRUCTIVE": {IDENTITY: _S.CRITICAL, VALUE: _S.HIGH, INDIRECT: _S.HIGH, UNKNOWN: _S.HIGH},
    ChangeType.DATA_UPDATE: {IDENTITY: _S.MEDIUM, VALUE: _S.MEDIUM, INDIRECT: _S.LOW, UNKNOWN: _S.MEDIUM},
    "METADATA": {IDENTITY: _S.LOW, VALUE: _S.LOW, INDIRECT: _S.LOW, UNKNOWN: _S.LOW},
}
RISK_WORDS = ("low", "moderate", "high", "critical")
BROAD = 10
_GROUP_ORDER = [t.value for t in NodeType]


def _operation(details: Mapping[str, Any]) -> str:
    operation = details.get("operation")
    if operation is None or operation == "":
        return ""
    name = str(operation).strip().upper()
    if not isinstance(operation, str) or name not in METADATA_OPERATIONS | DESTRUCTIVE_OPERATIONS:
        allowed = ", ".join(sorted(DESTRUCTIVE_OPERATIONS | METADATA_OPERATIONS))
        raise InvalidInput("details.operation", f"{operation!r} is not one of {allowed}")
    return name


def _columns(details: Mapping[str, Any]) -> list[str]:
    columns = details.get("columns")
    if columns is None:
        return []
    if not isinstance(columns, list | tuple) or not all(isinstance(c, str) and c.strip() for c in columns):
        raise InvalidInput("details.columns", "expected a list of column names")
    return list(columns)


def rule_set(change_type: ChangeType, details: Mapping[str, Any]) -> str:
    """Which row of the severity table applies; an unknown ``operation`` is ``InvalidInput``."""
    operation = _operation(details)
    if change_type == ChangeType.SCHEMA_CHANGE and operation in METADATA_OPERATIONS:
        return "METADATA"
    if change_type == ChangeType.DATA_UPDATE:
        return ChangeType.DATA_UPDATE.value
    return "DESTRUCTIVE"


def _changed_fields(conn: Connection, root: NodeInfo, details: Mapping[str, Any]) -> list[int]:
    """The changed fields: the target field, or the named columns of the target dataset (all when
    none are named); a column the dataset does not have is ``InvalidInput``, not an empty answer."""
    columns = _columns(details)
    if root.type == NodeType.FIELD:
        if columns:
            raise InvalidInput("details.columns", f"the target {root.name} is a field: columns name a dataset's")
        return [root.id]
    fields = children(conn, root.id, NodeType.FIELD)
    if not columns:
        return [f.id for f in fields]
    by_name = {split_name(f.name)[-1]: f.id for f in fields}
    unknown = [c for c in columns if normalise_ref(c) not in by_name]
    if unknown:
        raise InvalidInput("details.columns", f"{root.name} has no column {', '.join(map(repr, unknown))}")
    return sorted({by_name[normalise_ref(c)] for c in columns})


def entity_chain(
    severity: dict[int, ImpactSeverity], infos: Mapping[int, NodeInfo], direct_fields: set[int], rules: str
) -> None:
    """Apply the seed's scale to the affected DECISION and REASONING nodes in ``severity``: a change
    that reaches a decision is CRITICAL; one that reaches a reasoning is HIGH when the reasoning's
    values depend on it DIRECTly (``direct_fields`` holds one of its fields), MEDIUM otherwise
    (INDIRECT, or only through table- and entity-level edges); metadata-only changes stay LOW."""
    if rules == "METADATA":
        return
    direct_parents = {infos[f].parent_id for f in direct_fields if f in infos}
    for n in severity:
        kind = infos[n].type if n in infos else None
        if kind == NodeType.DECISION:
            severity[n] = _S.CRITICAL
        elif kind == NodeType.REASONING:
            severity[n] = _S.HIGH if n in direct_parents else _S.MEDIUM


def _has_entities(conn: Connection) -> bool:
    q = select(nodes.c.id).where(nodes.c.type.in_(sorted(ENTITY_TYPES | {NodeType.EXTERNAL}))).limit(1)
    return conn.execute(q).first() is not None


def analyze_impact(
    conn: Connection,
    target: str | int,
    change_type: ChangeType | str = ChangeType.SCHEMA_CHANGE,
    details: Mapping[str, Any] | None = None,
    as_of: int | None = None,
    sample_size: int = 5,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> ImpactAnalysis:
    """Affected nodes grouped by type with counts, samples and severities (see module doc).

    ``details`` may name ``columns`` (of a dataset target) and an ``operation``.
    """
    change_type = ChangeType(change_type)
    details = dict(details or {})
    root = resolve(conn, target)
    rule_name = rule_set(change_type, details)
    rules = RULES[rule_name]
    roots = _changed_fields(conn, root, details)
    fw = walk(conn, roots, False, MAPS_TO, as_of, None, max_nodes, from_fields=True)
    broken = broken_by(conn, fw, roots, as_of, max_nodes) if rule_name == "DESTRUCTIVE" else Broken()
    ident = direct_reach(fw, roots, lambda r: r.dependency == "DIRECT" and r.subtype == "IDENTITY")
    value = direct_reach(fw, roots)
    severity: dict[int, ImpactSeverity] = {}
    for n in fw.depth:
        if n not in roots:
            severity[n] = rules[IDENTITY if n in ident else VALUE if n in value else INDIRECT]
    for n in broken.fields:  # a column of a broken statement's target, or computed from one
        severity[n] = max(severity.get(n, _S.LOW), _S.HIGH, key=lambda s: s.rank)
    infos = fetch_nodes(conn, set(fw.depth) | broken.fields)
    for n in list(severity):
        parent = infos[n].parent_id
        if parent is not None and parent != root.id:
            severity[parent] = max(severity.get(parent, _S.LOW), severity[n], key=lambda s: s.rank)
    for row in [*fw.edges.values(), *broken.edges]:
        if row.job_id is not None and row.dst_id in severity:
            prev = severity.get(row.job_id, _S.LOW)
            severity[row.job_id] = max(prev, severity[row.dst_id], key=lambda s: s.rank)
    for n in broken.table_level:  # the broken statements, their targets and what reads them
        severity[n] = max(severity.get(n, _S.LOW), _S.HIGH, key=lambda s: s.rank)
    truncated = fw.truncated or broken.truncated
    field_datasets = {infos[n].parent_id for n in fw.depth if n not in roots and infos[n].parent_id}
    table_only: set[int] = set()
    if root.type != NodeType.FIELD:
        tw = walk(conn, [root.id], False, FLOW_EDGE_TYPES, as_of, None, max_nodes, from_fields=False)
        table_only = set(tw.depth) - {root.id}
        truncated = truncated or tw.truncated
    elif field_datasets and _has_entities(conn):
        tw = walk(conn, sorted(field_datasets), False, FLOW_EDGE_TYPES, as_of, None, max_nodes, from_fields=False)
        table_only = set(tw.depth)
        truncated = truncated or tw.truncated
    all_infos = {**infos, **fetch_nodes(conn, (set(severity) | table_only) - set(infos))}
    for n in table_only:
        info = all_infos.get(n)
        if info is None or n in severity:
            continue
        if root.type == NodeType.FIELD and info.type not in ENTITY_TYPES | {NodeType.EXTERNAL}:
            continue
        severity[n] = rules[UNKNOWN]
    entity_chain(severity, all_infos, set(value), rule_set(change_type, details))
    severity.pop(root.id, None)
    for r in roots:
        severity.pop(r, None)
    by_type: dict[str, list[int]] = {}
    for n in severity:
        if n in all_infos:
            by_type.setdefault(all_infos[n].type, []).append(n)
    groups = []
    for typ in sorted(by_type, key=lambda t: _GROUP_ORDER.index(t) if t in _GROUP_ORDER else 99):
        members = sorted(by_type[typ], key=lambda n: (-severity[n].rank, all_infos[n].name))
        top = max((severity[n] for n in members), key=lambda s: s.rank)
        groups.append(ImpactGroup(typ, len(members), [all_infos[n].name for n in members[:sample_size]], top.value))
    overall = max((ImpactSeverity(g.severity) for g in groups), key=lambda s: s.rank, default=_S.LOW)
    step = overall.rank - 1 + (1 if len(by_type.get(NodeType.DATASET, ())) >= BROAD else 0)
    details.setdefault("rules", rule_set(change_type, details))
    details["changed_fields"] = sorted(all_infos[r].name for r in roots if r in all_infos)
    return ImpactAnalysis(
        analysis_id=str(uuid.uuid4()),
        target=root,
        change_type=change_type.value,
        total_affected_count=sum(len(v) for v in by_type.values()),
        groups=groups,
        overall_severity=overall.value,
        risk_level=RISK_WORDS[min(step, len(RISK_WORDS) - 1)],
        truncated=truncated,
        details=details,
    )
