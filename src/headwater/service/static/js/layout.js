// A layered left-to-right layout (Sugiyama style), written for the explorer:
//
//   1. cycles are broken by reversing the back edges of a depth-first search;
//   2. layers: longest path from the sources, then every source pulled right next to its first
//      successor (so a side input does not drag a long edge across the picture);
//   3. an edge spanning several layers gets a dummy node per crossed layer;
//   4. crossing reduction: barycenter sweeps down and up, then adjacent transpositions, keeping
//      the order with the fewest crossings (counted exactly, with a Fenwick tree per layer pair);
//   5. vertical coordinates: nodes are pulled towards the mean of their neighbours, alternately
//      from the left and from the right; each layer is then placed by isotonic regression (the
//      pool-adjacent-violators algorithm), which keeps the order and the gaps and moves every node
//      as little as possible from where its neighbours want it;
//   6. every edge becomes a list of points: out of its source's right side, through its dummies,
//      into its target's left side.
//
// Nodes may name a group (a catalog, a database, a layer): the members of a group stay together in
// each layer (the group is ordered by its members' mean barycenter), groups are kept apart by the
// room of their boxes, and every run of a group's nodes in a layer is returned as a box to draw.
//
// Input:  {nodes: [{id, width, height, group?}], edges: [{id, source, target}]}  (order = tie-break order)
// Output: {nodes: Map id -> {x, y, width, height, layer, order}, edges: Map id -> [{x, y}, ...],
//          groups: [{group, x, y, width, height}], width, height, crossings}

const DEFAULTS = {
  layerGap: 110, nodeGap: 18, dummyGap: 6, dummySize: 4, sweeps: 24, transposeMax: 400,
  groupTop: 24, groupPad: 8,
};

export function layeredLayout(input, options = {}) {
  const o = { ...DEFAULTS, ...options };
  const real = input.nodes;
  const index = new Map(real.map((n, i) => [n.id, i]));
  const V = real.map((n) => ({ id: n.id, width: n.width, height: n.height, dummy: false, group: n.group ?? null }));

  // Edges between known, distinct nodes; parallel edges share one route.
  const pairs = new Map(); // "s>t" -> {s, t, ids: []}
  for (const e of input.edges) {
    const s = index.get(e.source);
    const t = index.get(e.target);
    if (s === undefined || t === undefined || s === t) continue;
    const key = `${s}>${t}`;
    if (!pairs.has(key)) pairs.set(key, { s, t, ids: [] });
    pairs.get(key).ids.push(e.id);
  }
  const links = [...pairs.values()];

  // 1. Cycle breaking: iterative DFS in input order; edges into the current stack are reversed.
  const out = real.map(() => []);
  links.forEach((l, k) => out[l.s].push(k));
  const state = new Uint8Array(real.length); // 0 new, 1 on stack, 2 done
  for (let start = 0; start < real.length; start++) {
    if (state[start]) continue;
    const stack = [[start, 0]];
    state[start] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, k] = top;
      if (k < out[v].length) {
        top[1]++;
        const l = links[out[v][k]];
        if (state[l.t] === 1) l.reversed = true;
        else if (state[l.t] === 0) {
          state[l.t] = 1;
          stack.push([l.t, 0]);
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  for (const l of links) {
    l.u = l.reversed ? l.t : l.s; // DAG orientation
    l.v = l.reversed ? l.s : l.t;
  }

  // 2. Layering.
  const succ = real.map(() => []);
  const pred = real.map(() => []);
  for (const l of links) {
    succ[l.u].push(l.v);
    pred[l.v].push(l.u);
  }
  const indeg = pred.map((p) => p.length);
  const topo = [];
  const queue = [];
  indeg.forEach((d, i) => d === 0 && queue.push(i));
  while (queue.length) {
    const v = queue.shift();
    topo.push(v);
    for (const w of succ[v]) if (--indeg[w] === 0) queue.push(w);
  }
  const layer = new Array(real.length).fill(0);
  for (const v of topo) for (const w of succ[v]) layer[w] = Math.max(layer[w], layer[v] + 1);
  for (let i = topo.length - 1; i >= 0; i--) {
    const v = topo[i];
    if (pred[v].length === 0 && succ[v].length > 0) layer[v] = Math.min(...succ[v].map((w) => layer[w])) - 1;
  }
  const minLayer = Math.min(0, ...layer);
  for (let i = 0; i < layer.length; i++) layer[i] -= minLayer;

  // 3. Dummy nodes.
  for (const l of links) {
    l.chain = [l.u];
    for (let k = layer[l.u] + 1; k < layer[l.v]; k++) {
      V.push({ id: null, width: 0, height: o.dummySize, dummy: true, group: null });
      layer.push(k);
      l.chain.push(V.length - 1);
    }
    l.chain.push(l.v);
  }
  const up = V.map(() => []); // neighbours one layer to the left
  const down = V.map(() => []); // one layer to the right
  for (const l of links) {
    for (let k = 0; k + 1 < l.chain.length; k++) {
      down[l.chain[k]].push(l.chain[k + 1]);
      up[l.chain[k + 1]].push(l.chain[k]);
    }
  }
  const layerCount = V.length ? Math.max(...layer) + 1 : 0;
  let layers = Array.from({ length: layerCount }, () => []);
  V.forEach((_, i) => layers[layer[i]].push(i));

  // 4. Crossing reduction.
  const pos = new Float64Array(V.length);
  const setPos = () => layers.forEach((row) => row.forEach((v, k) => (pos[v] = k)));
  setPos();
  const crossings = () => {
    let total = 0;
    for (let L = 0; L + 1 < layers.length; L++) total += crossingsBetween(layers[L], down, pos, layers[L + 1].length);
    return total;
  };
  let best = layers.map((r) => r.slice());
  let bestCross = crossings();
  for (let sweep = 0; sweep < o.sweeps && bestCross > 0; sweep++) {
    const downward = sweep % 2 === 0;
    const order = downward ? range(1, layers.length) : range(layers.length - 2, -1, -1);
    for (const L of order) {
      const nb = downward ? up : down;
      const row = layers[L];
      const bary = new Map();
      for (const v of row) {
        const ns = nb[v];
        bary.set(v, ns.length ? ns.reduce((a, w) => a + pos[w], 0) / ns.length : pos[v]);
      }
      const key = groupKeys(row, bary, V);
      row.sort((a, b) => key.get(a) - key.get(b) || bary.get(a) - bary.get(b) || pos[a] - pos[b]);
      row.forEach((v, k) => (pos[v] = k));
    }
    if (V.length <= o.transposeMax) transpose(layers, up, down, pos, V);
    const c = crossings();
    if (c < bestCross) {
      bestCross = c;
      best = layers.map((r) => r.slice());
    }
  }
  layers = best;
  setPos();

  // 5. Coordinates.
  const layerWidth = layers.map((row) => Math.max(0, ...row.map((v) => V[v].width)));
  const layerX = [];
  let x = 0;
  for (let L = 0; L < layers.length; L++) {
    layerX.push(x);
    x += layerWidth[L] + o.layerGap;
  }
  const y = new Float64Array(V.length);
  for (const row of layers) {
    let top = 0;
    row.forEach((v, k) => {
      y[v] = top;
      top += V[v].height + gapAfter(row, k, V, o);
    });
  }
  const centre = (v) => y[v] + V[v].height / 2;
  const pull = (L, sides) => {
    const row = layers[L];
    const want = row.map((v) => {
      let sum = 0;
      let n = 0;
      for (const nb of sides) {
        for (const w of nb[v]) {
          sum += centre(w);
          n++;
        }
      }
      return n ? sum / n : centre(v);
    });
    placeRow(row, want, V, y, o);
  };
  for (let it = 0; it < 8; it++) {
    for (let L = 1; L < layers.length; L++) pull(L, [up]);
    for (let L = layers.length - 2; L >= 0; L--) pull(L, [down]);
  }
  for (let L = 0; L < layers.length; L++) pull(L, [up, down]);

  // Runs of a group's nodes in a layer, with room for the label above.
  const runs = [];
  layers.forEach((row, L) => {
    let run = null;
    for (const v of row) {
      if (V[v].dummy) continue;
      const g = V[v].group;
      if (run && run.group === g) run.last = v;
      else {
        run = g === null ? null : { group: g, layer: L, first: v, last: v };
        if (run) runs.push(run);
      }
    }
  });
  // Normalise to a top-left origin.
  let minY = Infinity;
  let maxY = -Infinity;
  V.forEach((n, v) => {
    minY = Math.min(minY, y[v]);
    maxY = Math.max(maxY, y[v] + n.height);
  });
  for (const r of runs) {
    minY = Math.min(minY, y[r.first] - o.groupTop);
    maxY = Math.max(maxY, y[r.last] + V[r.last].height + o.groupPad);
  }
  if (!V.length) minY = maxY = 0;
  const nodes = new Map();
  V.forEach((n, v) => {
    if (n.dummy) return;
    const nx = layerX[layer[v]] + (layerWidth[layer[v]] - n.width) / 2;
    nodes.set(n.id, { x: nx, y: y[v] - minY, width: n.width, height: n.height, layer: layer[v], order: pos[v] });
  });

  // 6. Routes.
  const edges = new Map();
  for (const l of links) {
    const pts = l.chain.map((v, k) => {
      const n = V[v];
      const cx = layerX[layer[v]] + layerWidth[layer[v]] / 2;
      const cy = y[v] - minY + n.height / 2;
      if (n.dummy) return { x: cx, y: cy };
      const nx = layerX[layer[v]] + (layerWidth[layer[v]] - n.width) / 2;
      return { x: k === 0 ? nx + n.width : nx, y: cy };
    });
    // Through dummies, keep the edge horizontal across the layer's width.
    const route = [];
    pts.forEach((p, k) => {
      const v = l.chain[k];
      if (V[v].dummy) {
        const half = layerWidth[layer[v]] / 2;
        route.push({ x: p.x - half, y: p.y }, { x: p.x + half, y: p.y });
      } else route.push(p);
    });
    if (l.reversed) route.reverse();
    for (const id of l.ids) edges.set(id, route);
  }
  const groups = runs.map((r) => ({
    group: r.group,
    x: layerX[r.layer] - o.groupPad,
    y: y[r.first] - minY - o.groupTop,
    width: layerWidth[r.layer] + 2 * o.groupPad,
    height: y[r.last] + V[r.last].height - y[r.first] + o.groupTop + o.groupPad,
  }));
  const pad = runs.length ? o.groupPad : 0;
  if (pad) {
    for (const b of nodes.values()) b.x += pad;
    for (const route of new Set(edges.values())) for (const p of route) p.x += pad;
    for (const g of groups) g.x += pad;
  }
  return { nodes, edges, groups, width: Math.max(0, x - o.layerGap) + 2 * pad, height: maxY - minY, crossings: bestCross };
}

function range(from, to, step = 1) {
  const out = [];
  for (let i = from; step > 0 ? i < to : i > to; i += step) out.push(i);
  return out;
}

function gapAfter(row, k, V, o) {
  if (k + 1 >= row.length) return 0;
  const a = V[row[k]];
  const b = V[row[k + 1]];
  if (!a.dummy && !b.dummy && a.group === b.group) return o.nodeGap;
  // a run of a group ends above (its box's bottom padding) or starts below (its label)
  const end = !a.dummy && a.group !== null ? o.groupPad + 4 : 0;
  const start = !b.dummy && b.group !== null ? o.groupTop + 4 : 0;
  return Math.max(a.dummy || b.dummy ? o.dummyGap : o.nodeGap, end + start);
}

// The sort key of each node of a row: its group's mean barycenter (its own when it has no group).
function groupKeys(row, bary, V) {
  const sum = new Map();
  for (const v of row) {
    const g = V[v].group;
    if (g === null) continue;
    const [s, n] = sum.get(g) || [0, 0];
    sum.set(g, [s + bary.get(v), n + 1]);
  }
  const key = new Map();
  for (const v of row) {
    const g = V[v].group;
    key.set(v, g === null ? bary.get(v) : sum.get(g)[0] / sum.get(g)[1]);
  }
  return key;
}

// Crossings between a layer and the next: edges sorted by (upper, lower) position; every pair
// whose lower positions are inverted crosses. Counted with a Fenwick tree in O(E log n).
export function crossingsBetween(row, down, pos, nextSize) {
  const es = [];
  for (const v of row) for (const w of down[v]) es.push([pos[v], pos[w]]);
  es.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const tree = new Int32Array(nextSize + 1);
  let seen = 0;
  let total = 0;
  for (const [, q] of es) {
    let i = q + 1;
    let le = 0;
    while (i > 0) {
      le += tree[i];
      i -= i & -i;
    }
    total += seen - le;
    seen++;
    for (i = q + 1; i <= nextSize; i += i & -i) tree[i]++;
  }
  return total;
}

// Adjacent swaps while they reduce the crossings with both neighbouring layers.
function transpose(layers, up, down, pos, V) {
  const pairCross = (a, b, nb) => {
    let c = 0;
    for (const x of nb[a]) for (const y of nb[b]) if (pos[x] > pos[y]) c++;
    return c;
  };
  let improved = true;
  for (let round = 0; improved && round < 4; round++) {
    improved = false;
    for (const row of layers) {
      for (let k = 0; k + 1 < row.length; k++) {
        const a = row[k];
        const b = row[k + 1];
        if (V[a].group !== V[b].group) continue; // groups stay together
        const now = pairCross(a, b, up) + pairCross(a, b, down);
        const swapped = pairCross(b, a, up) + pairCross(b, a, down);
        if (swapped < now) {
          row[k] = b;
          row[k + 1] = a;
          pos[a] = k + 1;
          pos[b] = k;
          improved = true;
        }
      }
    }
  }
}

// Place one layer: tops as close as possible (least squares) to the wanted centres, keeping the
// order and the minimum gaps. With offsets o_k = sum of (height + gap) before k, the tops are
// z_k + o_k where z is the isotonic (non-decreasing) regression of want_k - height_k/2 - o_k.
function placeRow(row, want, V, y, o) {
  const a = [];
  const off = [];
  let acc = 0;
  row.forEach((v, k) => {
    off.push(acc);
    a.push(want[k] - V[v].height / 2 - acc);
    acc += V[v].height + gapAfter(row, k, V, o);
  });
  const blocks = []; // [sum, count]
  for (const value of a) {
    blocks.push([value, 1]);
    while (blocks.length > 1) {
      const [s2, n2] = blocks[blocks.length - 1];
      const [s1, n1] = blocks[blocks.length - 2];
      if (s1 / n1 <= s2 / n2) break;
      blocks.splice(blocks.length - 2, 2, [s1 + s2, n1 + n2]);
    }
  }
  let k = 0;
  for (const [s, n] of blocks) {
    for (let j = 0; j < n; j++, k++) y[row[k]] = s / n + off[k];
  }
}
