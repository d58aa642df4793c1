// From API answers to what is drawn: node-type filtering (edges bridged through hidden nodes),
// fan-out limits with "show more" stubs, and the ports of column-level edges.

export const NODE_TYPES = [
  "DATASET", "JOB", "PIPELINE", "PIPELINE_STEP", "EXTERNAL", "SCHEMA", "SOURCE_SYSTEM", "ENTITY", "REASONING",
  "REPORT", "MODEL", "DECISION", "FIELD",
];
export const FAN_OUT = 50;
// A table written by at least this many jobs shows them as one group node until it is unfolded.
export const WRITER_FOLD = 50;
const PROCESS = new Set(["JOB", "PIPELINE", "PIPELINE_STEP"]);
const TYPE_RANK = new Map(NODE_TYPES.map((t, i) => [t, i]));

export const byTypeThenName = (a, b) =>
  (TYPE_RANK.get(a.type) ?? 99) - (TYPE_RANK.get(b.type) ?? 99) || a.short.localeCompare(b.short) || a.id - b.id;

// The dataset-level graph to draw.
//   lineage: the /lineage answer; hidden: Set of node types not to draw (the root is always drawn);
//   shown: Map "id:up|down" -> how many neighbours to show (default FAN_OUT);
//   lazy: {pinned: Set of node ids picked from a "more" list (drawn past the limit),
//          unfolded: Set of dataset ids whose many writers are drawn one by one}.
// Returns {nodes: [node], edges: [{id, source, target, type, via: [node ids], ids: [edge ids]}],
//          stubs: [{id, anchor, side, hidden, rest: [node]}], sides: Map id -> "up"|"down"|"root",
//          folded: Map job id -> group node id}
// A group node ({id: "jobs:<dataset>", type: "GROUP", members: [job]}) stands for the writers of
// a table written by WRITER_FOLD jobs or more; its inputs are the union of theirs.
export function buildView(lineage, hidden, shown, lazy = {}) {
  const pinned = lazy.pinned || new Set();
  const unfolded = lazy.unfolded || new Set();
  const rootId = lineage.root.id;
  const all = new Map(lineage.nodes.map((n) => [n.id, n]));
  if (!all.has(rootId)) all.set(rootId, { ...lineage.root, depth: 0 });
  const visibleType = (n) => n.id === rootId || !hidden.has(n.type);
  const out = new Map();
  for (const e of lineage.edges) {
    if (!all.has(e.source) || !all.has(e.target)) continue;
    if (!out.has(e.source)) out.set(e.source, []);
    out.get(e.source).push(e);
  }

  // 1. Bridge edges through hidden nodes: u -> (hidden)* -> v becomes u -> v.
  const edges = new Map();
  const add = (u, v, e, via) => {
    const direct = via.length === 0;
    const key = direct ? `e${e.id}` : `via:${u}>${v}`;
    if (!edges.has(key)) {
      edges.set(key, { id: key, source: u, target: v, type: direct ? e.type : "VIA", via: [], ids: [] });
    }
    const rec = edges.get(key);
    rec.ids.push(e.id);
    for (const h of via) if (!rec.via.includes(h)) rec.via.push(h);
  };
  for (const [u, n] of all) {
    if (!visibleType(n)) continue;
    const stack = (out.get(u) || []).map((e) => [e, []]);
    const seen = new Set();
    while (stack.length) {
      const [e, via] = stack.pop();
      const w = all.get(e.target);
      if (visibleType(w)) {
        if (w.id !== u) add(u, w.id, e, via);
      } else if (!seen.has(w.id)) {
        seen.add(w.id);
        for (const f of out.get(w.id) || []) stack.push([f, [...via, w.id]]);
      }
    }
  }
  const edgeList = [...edges.values()];
  const succ = new Map();
  const pred = new Map();
  for (const e of edgeList) {
    if (!succ.has(e.source)) succ.set(e.source, []);
    if (!pred.has(e.target)) pred.set(e.target, []);
    succ.get(e.source).push(e.target);
    pred.get(e.target).push(e.source);
  }

  // 2. Fan-out: breadth first from the root, upstream through predecessors and downstream through
  //    successors; a node shows its first `shown` neighbours on a side (by type, then name).
  //    Many writers of a table: one group node in their place (until unfolded).
  const visible = new Set([rootId]);
  const sides = new Map([[rootId, "root"]]);
  const limits = [];
  const queue = [[rootId, "up"], [rootId, "down"]];
  const expanded = new Set();
  const groups = new Map(); // group id -> group node
  const folded = new Map(); // job id -> group id
  const groupEdges = [];
  const neighbours = (v, side) => {
    const g = groups.get(v);
    const of = (id) => (side === "up" ? pred : succ).get(id) || [];
    const ids = g ? [...new Set(g.members.flatMap((j) => of(j.id)))] : [...new Set(of(v))];
    return ids.map((id) => all.get(id)).filter((n) => n && visibleType(n)).sort(byTypeThenName);
  };
  while (queue.length) {
    const [v, side] = queue.shift();
    const key = `${v}:${side}`;
    if (expanded.has(key)) continue;
    expanded.add(key);
    let nbs = neighbours(v, side);
    const writers = side === "up" && !groups.has(v) ? nbs.filter((n) => PROCESS.has(n.type)) : [];
    if (writers.length >= WRITER_FOLD && !unfolded.has(v)) {
      const id = `jobs:${v}`;
      const g = { id, type: "GROUP", name: `${writers.length} jobs`, short: `${writers.length} jobs`, members: writers, anchor: v };
      groups.set(id, g);
      all.set(id, g);
      for (const j of writers) folded.set(j.id, id);
      groupEdges.push({ id: `${id}:e`, source: id, target: v, type: "WRITE", via: [], ids: writers.flatMap((j) => edgeList.filter((e) => e.source === j.id && e.target === v).flatMap((e) => e.ids)) });
      nbs = [g, ...nbs.filter((n) => !PROCESS.has(n.type))];
    }
    const limit = shown.get(key) ?? FAN_OUT;
    nbs.forEach((n, k) => {
      if (k >= limit && !pinned.has(n.id)) return;
      if (!visible.has(n.id)) {
        visible.add(n.id);
        sides.set(n.id, side);
      }
      queue.push([n.id, side]);
    });
    if (nbs.length > limit) limits.push({ key, anchor: v, side, nbs });
  }
  // Edges into a group: from every visible input of its members, once per input.
  for (const g of groups.values()) {
    if (!visible.has(g.id)) continue;
    const members = new Set(g.members.map((j) => j.id));
    const inputs = new Map();
    for (const e of edgeList) {
      if (!members.has(e.target) || !visible.has(e.source)) continue;
      if (!inputs.has(e.source)) inputs.set(e.source, { id: `${g.id}<${e.source}`, source: e.source, target: g.id, type: "READ", via: [], ids: [] });
      inputs.get(e.source).ids.push(...e.ids);
    }
    groupEdges.push(...inputs.values());
  }
  const stubs = [];
  for (const { key, anchor, side, nbs } of limits) {
    const rest = nbs.filter((n) => !visible.has(n.id));
    if (rest.length) stubs.push({ id: `more:${key}`, key, anchor, side, hidden: rest.length, shown: nbs.length - rest.length, rest });
  }
  const nodes = [...visible].map((id) => all.get(id));
  const foldedAway = (id) => folded.has(id) && !visible.has(id);
  return {
    rootId,
    nodes,
    edges: [
      ...edgeList.filter((e) => visible.has(e.source) && visible.has(e.target) && !foldedAway(e.source) && !foldedAway(e.target)),
      ...groupEdges.filter((e) => visible.has(e.source) && visible.has(e.target)),
    ],
    stubs,
    sides,
    folded,
    hiddenCount: [...all.values()].filter((n) => !visibleType(n)).length,
  };
}

// Column-level edges to draw, with their end points: a field row when its dataset is expanded and
// the row is shown, else the dataset's card. Edges with neither end on a shown row, or with an end
// in a dataset that is not drawn, are counted as off-screen.
//   columns: Map datasetId -> {fields: [node]} of expanded datasets; fieldEdges: Map id -> edge;
//   fieldParent: Map fieldId -> datasetId; drawn: Set of dataset ids drawn;
//   rowsShown: (datasetId) -> Set of field ids shown as rows.
export function columnEdges(fieldEdges, fieldParent, drawn, rowsShown, showIndirect) {
  const out = [];
  let offscreen = 0;
  for (const e of fieldEdges.values()) {
    if (!showIndirect && e.dependency === "INDIRECT") continue;
    const ds = fieldParent.get(e.source);
    const dt = fieldParent.get(e.target);
    if (ds === undefined || dt === undefined || !drawn.has(ds) || !drawn.has(dt)) {
      offscreen++;
      continue;
    }
    const fromRow = rowsShown(ds).has(e.source);
    const toRow = rowsShown(dt).has(e.target);
    if (!fromRow && !toRow) continue;
    out.push({
      edge: e,
      from: fromRow ? { field: e.source, dataset: ds } : { dataset: ds },
      to: toRow ? { field: e.target, dataset: dt } : { dataset: dt },
    });
  }
  out.sort((a, b) => a.edge.id - b.edge.id);
  return { edges: out, offscreen };
}
