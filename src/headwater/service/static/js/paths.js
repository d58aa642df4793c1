// A selected column's paths walked in the page, over the view's column index
// (POST /explorer/column-index): the same breadth-first walk as the store's (store/traverse.py
// over MAPS_TO, with the dataset-level mappings of store/indirect.py), so that the paths are drawn
// at the click; the store's /field-paths answer, when it comes, stays the truth.
//
// The walk is the store's whenever every field it expands belongs to a dataset of the index (all
// their edges are in it): it says `complete` then, and only then is it drawn.

const SHIFT = 2 ** 31; // indirect.virtual_id: -((stored << 31) | field)
const MAX_NODES = 2000; // /explorer/field-paths' default max_nodes

const push = (map, key, value) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

// The index from the endpoint's answer: adjacency by field, once per view.
export function buildIndex(r) {
  const parent = new Map();
  let f = 0;
  r.fields.id.forEach((d, k) => {
    f += d;
    parent.set(f, r.fields.dataset[k]);
  });
  const into = new Map(); // field -> stored edges into it
  const out = new Map(); // field -> stored edges out of it
  const E = r.edges;
  for (let k = 0; k < E.id.length; k++) {
    const e = { id: E.id[k], source: E.source[k], target: E.target[k], job_id: E.job[k], kind: E.kind[k], k1: E.id[k], k2: 0 };
    push(into, e.target, e);
    push(out, e.source, e);
  }
  // a dataset-level mapping stands for one virtual MAPS_TO into each column its job wrote in its
  // target dataset (the witnesses): materialised here once, followed at level all (kind 3)
  const written = new Map(); // job -> dataset -> columns
  const W = r.written;
  for (let k = 0; k < W.job.length; k++) {
    if (!written.has(W.job[k])) written.set(W.job[k], new Map());
    push(written.get(W.job[k]), W.dataset[k], W.field[k]);
  }
  const A = r.all;
  for (let k = 0; k < A.id.length; k++) {
    for (const f of written.get(A.job[k])?.get(A.dataset[k]) || []) {
      const e = { id: -(A.id[k] * SHIFT + f), source: A.source[k], target: f, job_id: A.job[k], kind: 3, k1: A.id[k], k2: f };
      push(into, f, e);
      push(out, e.source, e);
    }
  }
  return { datasets: new Set(r.datasets), parent, into, out };
}

// The edges a walk at `level` follows from `field`, one way, appended to `rows`.
function follow(ix, field, upstream, level, rows) {
  const max = level === "direct" ? 0 : level === "field" ? 1 : 3;
  for (const e of (upstream ? ix.into : ix.out).get(field) || []) if (e.kind <= max) rows.push(e);
}

const byOrder = (a, b) => a.k1 - b.k1 || a.k2 - b.k2; // indirect.order

// traverse.walk from one field, one way: level by level, each level's edges in the store's order,
// at most `maxNodes` fields (the root included).
function walk(ix, root, upstream, level, maxNodes) {
  const depth = new Map([[root, 0]]);
  const edges = new Map();
  let truncated = false;
  let complete = true;
  let frontier = [root];
  while (frontier.length && !truncated) {
    const rows = [];
    for (const n of frontier) {
      if (!ix.datasets.has(ix.parent.get(n))) complete = false;
      follow(ix, n, upstream, level, rows);
    }
    rows.sort(byOrder);
    const next = [];
    for (const r of rows) {
      const far = upstream ? r.source : r.target;
      if (!depth.has(far)) {
        if (depth.size >= maxNodes) {
          truncated = true;
          continue;
        }
        depth.set(far, depth.get(upstream ? r.target : r.source) + 1);
        next.push(far);
      }
      edges.set(r.id, r);
    }
    frontier = next;
  }
  depth.delete(root);
  const parentOf = (id) => ix.parent.get(id) ?? null;
  return {
    nodes: [...depth.keys()].map((id) => ({ id, parent_id: parentOf(id) })),
    // an edge belongs to the path when both its ends were reached
    edges: [...edges.values()].filter((e) => (depth.has(e.source) || e.source === root) && (depth.has(e.target) || e.target === root)),
    truncated,
    complete,
  };
}

// The paths of `field` at `level` (direct, field, all), shaped as /field-paths' answer where the
// drawing reads it: {field, upstream: {nodes, edges, truncated}, downstream, complete}.
export function walkPaths(ix, field, level, maxNodes = MAX_NODES) {
  const upstream = walk(ix, field, true, level, maxNodes);
  const downstream = walk(ix, field, false, level, maxNodes);
  return {
    field: { id: field, parent_id: ix.parent.get(field) ?? null },
    upstream,
    downstream,
    complete: upstream.complete && downstream.complete,
    local: true,
  };
}

// Whether two answers hold the same paths: the same fields and edges on each side.
export function samePaths(a, b) {
  const ids = (list) => list.map((x) => x.id).sort((p, q) => p - q).join(",");
  return a.field.id === b.field.id && ["upstream", "downstream"].every((s) =>
    a[s].truncated === b[s].truncated && ids(a[s].nodes) === ids(b[s].nodes) && ids(a[s].edges) === ids(b[s].edges));
}
