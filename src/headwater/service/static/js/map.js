// The map of a view too large to read whole: its cards aggregated by the grouping the user picked
// (database, catalog, a property such as a dbt folder or a layer) into labelled clusters with
// their counts, and the lineage edges between two clusters bundled into one, weighted by their
// number. A job belongs to the cluster of the first table it writes (else of the first it reads).

import { layeredLayout } from "./layout.js";

const SVG = "http://www.w3.org/2000/svg";
const UNGROUPED = "(ungrouped)";

// items: the scene's cards [{id, kind, node}]; edges: the view's edges [{source, target}];
// groupOf(item) -> a group name or null; isTable(node) -> true for a dataset's card.
// -> {clusters: [{key, tables, jobs, members}], links: [{source, target, weight}], title}
export function clusterMap(items, edges, groupOf, isTable) {
  const of = new Map();
  const clusters = new Map();
  const add = (key, item, table) => {
    if (!clusters.has(key)) clusters.set(key, { key, tables: 0, jobs: 0, members: [] });
    const c = clusters.get(key);
    c.members.push(item.id);
    if (table) c.tables += 1;
    else c.jobs += item.node?.members?.length ?? 1;
    of.set(item.id, key);
  };
  const rest = [];
  for (const it of items) {
    if (it.kind !== "node") continue;
    if (isTable(it.node)) add(groupOf(it) ?? UNGROUPED, it, true);
    else rest.push(it);
  }
  // a job (or a group of jobs) joins what it writes, else what it reads
  const writes = new Map();
  const reads = new Map();
  for (const e of edges) {
    if (of.has(e.target) && !writes.has(e.source)) writes.set(e.source, of.get(e.target));
    if (of.has(e.source) && !reads.has(e.target)) reads.set(e.target, of.get(e.source));
  }
  for (const it of rest) add(writes.get(it.id) ?? reads.get(it.id) ?? UNGROUPED, it, false);
  const links = new Map();
  for (const e of edges) {
    const a = of.get(e.source);
    const b = of.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    const key = `${a}>${b}`;
    if (!links.has(key)) links.set(key, { source: a, target: b, weight: 0 });
    links.get(key).weight += 1;
  }
  const tables = [...clusters.values()].reduce((a, c) => a + c.tables, 0);
  return { clusters: [...clusters.values()], links: [...links.values()], title: `${plural(tables, "table")} in ${clusters.size} groups` };
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

const fmt = (n) => n.toLocaleString("en-US");
const plural = (n, one) => `${fmt(n)} ${one}${n === 1 ? "" : "s"}`;

// Draw the map in `layer` (screen pixels, no zoom: every text at its own size), laid out left to
// right inside `area` ({x0, y0, x1, y1}). A cluster's box grows with its card count.
export function drawMap(layer, map, area) {
  layer.replaceChildren();
  // an opaque cover: the graph under it is left as it is (hiding it would restyle every card)
  el("rect", { class: "map-bg", x: 0, y: 0, width: "100%", height: "100%" }, layer);
  const max = Math.max(1, ...map.clusters.map((c) => c.tables + c.jobs));
  // a name is never cut: a long one widens its box
  const size = (c) => ({
    width: Math.max(170, Math.round(c.key.length * 9.5 + 28)),
    height: Math.round(66 + 46 * Math.sqrt((c.tables + c.jobs) / max)),
  });
  const lay = layeredLayout({
    nodes: map.clusters.map((c) => ({ id: c.key, ...size(c) })),
    edges: map.links.map((l, k) => ({ id: k, source: l.source, target: l.target })),
  }, { layerGap: 120, nodeGap: 40 });
  // the layout spread over the area: its columns evenly (boxes narrowed to leave 28 px between
  // them, never below 120 px), its rows scaled to the height (at most 1:1)
  const pad = 24;
  const aw = area.x1 - area.x0 - 2 * pad;
  const ah = area.y1 - area.y0 - 2 * pad;
  const placed = [...lay.nodes.entries()];
  const columns = [...new Set(placed.map(([, b]) => b.layer))].sort((a, b) => a - b);
  const natural = Math.max(...placed.map(([, b]) => b.width));
  const pitch = columns.length > 1 ? Math.min(natural + 120, (aw - natural) / (columns.length - 1)) : 0;
  const bw = columns.length > 1 ? Math.max(120, Math.min(natural, pitch - 28)) : natural;
  const hmax = Math.max(...placed.map(([, b]) => b.height));
  const sy = lay.height > hmax ? Math.min(1, (ah - hmax) / (lay.height - hmax)) : 1;
  const w = (columns.length - 1) * Math.max(pitch, bw + 28) + bw;
  const h = (lay.height - hmax) * sy + hmax;
  const ox = area.x0 + pad + Math.max(0, (aw - w) / 2);
  const oy = area.y0 + pad + Math.max(0, (ah - h) / 2);
  const box = new Map();
  for (const [key, b] of placed) {
    const x = ox + columns.indexOf(b.layer) * Math.max(pitch, bw + 28);
    box.set(key, { x, y: oy + b.y * sy, width: bw, height: b.height });
  }
  const heaviest = Math.max(1, ...map.links.map((l) => l.weight));
  const gLinks = el("g", { class: "map-links" }, layer);
  for (const l of map.links) {
    const a = box.get(l.source);
    const b = box.get(l.target);
    const p = { x: a.x + a.width, y: a.y + a.height / 2 };
    const q = { x: b.x, y: b.y + b.height / 2 };
    const back = q.x <= p.x;
    const dx = Math.max(40, Math.abs(q.x - p.x) / 2);
    const g = el("g", { class: `map-link${back ? " back" : ""}`, "data-kind": "cluster-link",
      "data-source": l.source, "data-target": l.target, "data-weight": l.weight }, gLinks);
    el("path", {
      d: `M${p.x},${p.y} C${p.x + dx},${p.y} ${q.x - dx},${q.y} ${q.x},${q.y}`,
      "stroke-width": (1.5 + 10 * Math.sqrt(l.weight / heaviest)).toFixed(1),
    }, g);
    const t = el("text", { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 - 6, "text-anchor": "middle" }, g);
    t.textContent = fmt(l.weight);
    el("title", {}, g).textContent = `${plural(l.weight, "lineage edge")} from ${l.source} to ${l.target}`;
  }
  if (map.title) {
    el("text", { class: "map-title", x: area.x0 + pad, y: area.y0 + 20 }, layer).textContent = map.title;
  }
  const gClusters = el("g", { class: "map-clusters" }, layer);
  for (const c of map.clusters) {
    const b = box.get(c.key);
    const g = el("g", {
      class: "cluster",
      "data-kind": "cluster",
      "data-id": c.key,
      "data-tables": c.tables,
      "data-jobs": c.jobs,
      transform: `translate(${b.x.toFixed(1)},${b.y.toFixed(1)})`,
      tabindex: 0,
      role: "button",
    }, gClusters);
    el("rect", { width: b.width, height: b.height, rx: 12 }, g);
    const name = el("text", { class: "cname", x: 14, y: 26 }, g);
    name.textContent = c.key;
    el("text", { class: "ccount", x: 14, y: 46 }, g).textContent = plural(c.tables, "table");
    if (c.jobs) el("text", { class: "ccount jobs", x: 14, y: 63 }, g).textContent = plural(c.jobs, "job");
    el("title", {}, g).textContent = `${c.key}: ${plural(c.tables, "table")}, ${plural(c.jobs, "job")} — click to open`;
  }
  return box;
}
