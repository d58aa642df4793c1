// A selected column's paths walked in the page, over the view's column index
// (POST /explorer/column-index): the same breadth-first walk as the store's (store/traverse.py
// over MAPS_TO, with the dataset-level mappings of store/indirect.py), so that the paths are drawn
// at the click; the store's /field-paths answer, when it comes, stays the truth.
//
// The walk is the store's whenever every field it expands belongs to a dataset of the index (all
// their edges are in it): it says `complete` then, and only then is it drawn.

const SHIFT = 2 ** 31; // indirect.virtual_id: -((stored << 31) | field)
const MAX_NODES = 2000; // /explorer/field-paths' default max_nodes

// The index from the endpoint's answer, once per view: the edges (stored, and the virtual ones of
// the dataset-level mappings, kind 3) in typed arrays, with each field's edges in and out
// (compressed rows), so that the page keeps no object per edge (less for the collector to trace).
export function buildIndex(r) {
  const F = r.fields.id.length;
  const fid = new Float64Array(F);
  const local = new Map(); // field id -> its row in the arrays
  const parent = new Map();
  let f = 0;
  for (let k = 0; k < F; k++) {
    f += r.fields.id[k];
    fid[k] = f;
    local.set(f, k);
    parent.set(f, r.fields.dataset[k]);
  }
  // the columns each job wrote in each dataset (the witnesses of the dataset-level mappings)
  const written = new Map(); // "job|dataset" -> columns
  const W = r.written;
  for (let k = 0; k < W.job.length; k++) {
    const key = `${W.job[k]}|${W.dataset[k]}`;
    if (!written.has(key)) written.set(key, []);
    written.get(key).push(W.field[k]);
  }
  const E = r.edges;
  const A = r.all;
  const cols = A.id.map((id, k) => written.get(`${A.job[k]}|${A.dataset[k]}`) || []);
  const M = E.id.length + cols.reduce((n, c) => n + c.length, 0);
  const ix = {
    datasets: new Set(r.datasets),
    parent,
    local,
    fid,
    id: new Float64Array(M),
    source: new Float64Array(M),
    target: new Float64Array(M),
    job: new Float64Array(M), // NaN: none
    kind: new Uint8Array(M),
    k1: new Float64Array(M), // indirect.order: (id, 0) for a stored edge, (mapping, column) for a virtual one
    k2: new Float64Array(M),
  };
  let m = 0;
  const add = (id, src, dst, job, kind, k1, k2) => {
    ix.id[m] = id;
    ix.source[m] = src;
    ix.target[m] = dst;
    ix.job[m] = job ?? NaN;
    ix.kind[m] = kind;
    ix.k1[m] = k1;
    ix.k2[m] = k2;
    m++;
  };
  for (let k = 0; k < E.id.length; k++) add(E.id[k], E.source[k], E.target[k], E.job[k], E.kind[k], E.id[k], 0);
  A.id.forEach((id, k) => {
    for (const c of cols[k]) add(-(id * SHIFT + c), A.source[k], c, A.job[k], 3, id, c);
  });
  ix.into = rows(ix.target, local, F);
  ix.out = rows(ix.source, local, F);
  return ix;
}

// Compressed rows: the edges of field row k are list[start[k] .. start[k + 1]).
function rows(end, local, F) {
  const start = new Int32Array(F + 1);
  for (let e = 0; e < end.length; e++) start[local.get(end[e]) + 1]++;
  for (let k = 0; k < F; k++) start[k + 1] += start[k];
  const fill = start.slice(0, F);
  const list = new Int32Array(end.length);
  for (let e = 0; e < end.length; e++) list[fill[local.get(end[e])]++] = e;
  return { start, list };
}

// The edges (their rows) a walk at `level` follows from `field`, one way, appended to `out`.
function follow(ix, field, upstream, level, out) {
  const k = ix.local.get(field);
  if (k === undefined) return;
  const max = level === "direct" ? 0 : level === "field" ? 1 : 3;
  const { start, list } = upstream ? ix.into : ix.out;
  for (let p = start[k]; p < start[k + 1]; p++) if (ix.kind[list[p]] <= max) out.push(list[p]);
}

// traverse.walk from one field, one way: level by level, each level's edges in the store's order,
// at most `maxNodes` fields (the root included).
function walk(ix, root, upstream, level, maxNodes) {
  const depth = new Map([[root, 0]]);
  const seen = [];
  let truncated = false;
  let complete = true;
  let frontier = [root];
  const near = upstream ? ix.target : ix.source;
  const far = upstream ? ix.source : ix.target;
  const byOrder = (a, b) => ix.k1[a] - ix.k1[b] || ix.k2[a] - ix.k2[b]; // indirect.order
  while (frontier.length && !truncated) {
    const level_ = [];
    for (const n of frontier) {
      if (!ix.datasets.has(ix.parent.get(n))) complete = false;
      follow(ix, n, upstream, level, level_);
    }
    level_.sort(byOrder);
    const next = [];
    for (const e of level_) {
      const f = far[e];
      if (!depth.has(f)) {
        if (depth.size >= maxNodes) {
          truncated = true;
          continue;
        }
        depth.set(f, depth.get(near[e]) + 1);
        next.push(f);
      }
      seen.push(e);
    }
    frontier = next;
  }
  const parentOf = (id) => ix.parent.get(id) ?? null;
  // an edge belongs to the path when both its ends were reached
  const edges = seen.filter((e) => depth.has(ix.source[e]) && depth.has(ix.target[e])).map((e) => ({
    id: ix.id[e],
    source: ix.source[e],
    target: ix.target[e],
    job_id: Number.isNaN(ix.job[e]) ? null : ix.job[e],
  }));
  depth.delete(root);
  return { nodes: [...depth.keys()].map((id) => ({ id, parent_id: parentOf(id) })), edges, truncated, complete };
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
