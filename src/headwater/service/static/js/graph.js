// SVG rendering of the lineage graph: cards, column rows, edges, pan and zoom, highlighting.

import { drawMap } from "./map.js";

const SVG = "http://www.w3.org/2000/svg";
export const CARD_W = 210;
const CARD_W_MAX = 360;
export const HEADER = 46;
export const ROW = 22;
const PILL_W_MAX = 300;
const PILL_H = 32;
const STUB_W = 170;
const STUB_H = 30;
const GROUP_W = 190;
const GROUP_H = 44;
const PROCESS = new Set(["JOB", "PIPELINE", "PIPELINE_STEP"]);
const FLAT = new Set(["SOURCE_SYSTEM"]);

export const SUBTYPE_COLOURS = {
  IDENTITY: "#2563eb",
  TRANSFORMATION: "#7c3aed",
  AGGREGATION: "#db2777",
  JOIN: "#ea580c",
  FILTER: "#b45309",
  GROUP_BY: "#0d9488",
  SORT: "#64748b",
  WINDOW: "#0891b2",
  CONDITIONAL: "#4d7c0f",
};
export const DIRECT_SUBTYPES = ["IDENTITY", "TRANSFORMATION", "AGGREGATION"];
export const INDIRECT_SUBTYPES = ["JOIN", "FILTER", "GROUP_BY", "SORT", "WINDOW", "CONDITIONAL"];
export const TYPE_COLOURS = {
  DATASET: "#2563eb",
  FIELD: "#0f766e",
  JOB: "#d97706",
  PIPELINE: "#b45309",
  PIPELINE_STEP: "#ca8a04",
  SCHEMA: "#64748b",
  REASONING: "#0891b2",
  SOURCE_SYSTEM: "#475569",
  EXTERNAL: "#7c3aed",
  ENTITY: "#059669",
  REPORT: "#db2777",
  MODEL: "#9333ea",
  DECISION: "#dc2626",
};
const FLOW_COLOUR = "#94a3b8";
const OTHER_COLOUR = "#64748b";

export const expandable = (n) => !PROCESS.has(n.type) && !FLAT.has(n.type) && n.type !== "GROUP";

// The name a person reads on a node: a job's stable name (the file and statement, or the name it
// was given) rather than its store key; other nodes their short name.
//   job:marts/fct_sales.sql#2 -> marts/fct_sales.sql#2;  sql:6cc2beaf…:internal.rpt.t -> t #6cc2beaf
export function displayName(node) {
  if (node.type === "JOB") {
    if (node.name.startsWith("job:")) return node.name.slice(4);
    const m = /^sql:([0-9a-f]+):(.*)$/.exec(node.name);
    if (m) return `${m[2].split(".").pop()} #${m[1].slice(0, 8)}`;
  }
  return node.short;
}

// Levels of detail: at every zoom a text is drawn at 10 CSS px or more on screen, or replaced by a
// simpler drawing.
//   k >= LOD_SCALE: the cards as they are (their smallest text, the type line, is 10 px at 1);
//   below it: each card's own text gives way to its name drawn at LOD_PX on screen;
//   below ROWS_SCALE: a column row's text would be under ROW_MIN_PX, so rows are bars (no text);
//   below MIN_FIT_SCALE ("far"): a card is a dot with its name as tooltip, and a view too large
//   to fit legibly at MIN_FIT_SCALE is drawn as its map (clusters with counts, map.js) instead.
export const LOD_SCALE = 1;
const LOD_PX = 11;
// A column row's font size (CSS px at scale 1), and the least it may be on screen to be read.
export const ROW_FONT_PX = 12.5;
export const ROW_MIN_PX = 10;
export const ROWS_SCALE = ROW_MIN_PX / ROW_FONT_PX;
// How far past its card's right edge a level-of-detail name may run, in graph units (its room).
const LOD_OVERHANG = 90;
// The smallest scale "fit" uses: there, the fixed-size labels still fit their cards' rows.
export const MIN_FIT_SCALE = 0.3;
// The scale "fit" gives a view shown as its map (any scale under MIN_FIT_SCALE draws the map).
const MAP_SCALE = 0.2;
const DOT_PX = 5;

export function colourOf(edge) {
  return SUBTYPE_COLOURS[edge.subtype] || OTHER_COLOUR;
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

const measurer = document.createElement("canvas").getContext("2d");
let measurerFont = "";
// Text widths, with the canvas font set only when it changes (setting it parses it again).
function width(text, px, weight) {
  const font = `${weight} ${px}px system-ui, -apple-system, "Segoe UI", sans-serif`;
  if (font !== measurerFont) {
    measurer.font = font;
    measurerFont = font;
  }
  return measurer.measureText(text).width;
}
const textWidth = width;

// The longest `cut(n)` (n from 0 to max) that fits `maxWidth`: a binary search, as a cut's width
// grows with n.
function longestFit(cut, max, px, weight, maxWidth) {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (width(cut(mid), px, weight) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}

// Where a name may be cut: before a separator (. _ / # - space), never inside a part of it.
const SEPARATOR = /[._/#\- ]/;
export function boundaries(text) {
  const at = [];
  for (let i = 1; i < text.length; i++) if (SEPARATOR.test(text[i]) && !SEPARATOR.test(text[i - 1])) at.push(i);
  return at;
}

// The name whole when it fits, else its longest start that ends at a boundary, with "…"
// (fct_store_sales -> fct_store…); "" when not even its first part fits (the full name is the
// element's title, shown on hover).
export function fit(text, px, weight, maxWidth) {
  if (width(text, px, weight) <= maxWidth) return text;
  const cuts = boundaries(text);
  if (!cuts.length || width(`${text.slice(0, cuts[0])}…`, px, weight) > maxWidth) return "";
  return longestFit((n) => `${text.slice(0, cuts[n])}…`, cuts.length - 1, px, weight, maxWidth);
}

// Cut in the middle at boundaries: a job's name keeps its file's start and its statement's end
// (02_marts….sql#5 -> 02_marts…#5); "" when no such cut fits.
export function fitMiddle(text, px, weight, maxWidth) {
  if (width(text, px, weight) <= maxWidth) return text;
  const cuts = boundaries(text);
  let best = "";
  for (let t = cuts.length - 1; t >= 0; t--) {
    const tail = text.slice(cuts[t] + (text[cuts[t]] === "#" ? 0 : 1));
    const heads = cuts.filter((c) => c < cuts[t]);
    if (!heads.length || width(`${text.slice(0, heads[0])}…${tail}`, px, weight) > maxWidth) continue;
    const s = longestFit((n) => `${text.slice(0, heads[n])}…${tail}`, heads.length - 1, px, weight, maxWidth);
    if (s.length > best.length) best = s;
  }
  return best || fit(text, px, weight, maxWidth);
}

// A dotted prefix cut from its start, its last parts kept whole (internal.mart -> …mart).
function fitTail(text, px, weight, maxWidth) {
  if (width(text, px, weight) <= maxWidth) return text;
  const parts = text.split(".");
  for (let k = 1; k < parts.length; k++) {
    const s = `…${parts.slice(k).join(".")}`;
    if (width(s, px, weight) <= maxWidth) return s;
  }
  return "";
}

// The size a node takes: cards grow with their shown rows.
// Widths follow the names (within bounds) so that most names show whole.
export function nodeSize(node, rows, extraRow) {
  if (node.kind === "stub") return { width: STUB_W, height: STUB_H };
  if (node.type === "GROUP") return { width: GROUP_W, height: GROUP_H };
  if (PROCESS.has(node.type)) {
    return { width: clamp(textWidth(displayName(node), 12, 500) + 44, 140, PILL_W_MAX), height: PILL_H };
  }
  const where = node.name.slice(0, Math.max(0, node.name.length - node.short.length - 1));
  let width = Math.max(textWidth(node.short, 13.5, 650), textWidth(`${node.type} · ${where}`, 10, 600)) + 64;
  if (rows) {
    const prefix = `${node.short}.`;
    for (const f of rows) {
      const label = f.short.startsWith(prefix) ? f.short.slice(prefix.length) : f.short;
      width = Math.max(width, textWidth(label, 12.5, 400) + 40);
    }
  }
  width = clamp(width, CARD_W, CARD_W_MAX);
  if (rows === null) return { width, height: HEADER };
  return { width, height: HEADER + Math.max(1, rows.length + (extraRow ? 1 : 0)) * ROW + 6 };
}

const CUTS = { start: fit, middle: fitMiddle, tail: fitTail };
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, Math.ceil(v)));
// Above this many cards, only what is near the view is drawn.
export const CULL_MIN = 1200;
const spanOf = (points) => ({
  x0: Math.min(...points.map((p) => p.x)),
  y0: Math.min(...points.map((p) => p.y)) - 6,
  x1: Math.max(...points.map((p) => p.x)),
  y1: Math.max(...points.map((p) => p.y)) + 6,
});

export class GraphView {
  constructor(svg, handlers) {
    this.svg = svg;
    this.h = handlers;
    this.t = { x: 40, y: 40, k: 1 };
    this.elements = new Map(); // "kind:id" -> element
    this.defs = el("defs", {}, svg);
    this.markers = new Set();
    this.viewport = el("g", { class: "viewport" }, svg);
    this.mapLayer = el("g", { class: "map" }, svg); // a view too large to read, zoomed out (map.js)
    this.bounds = { width: 0, height: 0 };
    this.positions = new Map();
    this.lodTexts = new Map();
    this.marked = []; // elements a highlight changed: the next one undoes only these
    this._size = null;
    new ResizeObserver(() => {
      this._size = null;
    }).observe(svg);
    this._panning();
    this._events();
  }

  marker(colour) {
    const id = `arrow-${colour.replace("#", "")}`;
    if (!this.markers.has(id)) {
      const m = el("marker", {
        id,
        viewBox: "0 0 10 10",
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: "auto-start-reverse",
        markerUnits: "userSpaceOnUse",
      }, this.defs);
      el("path", { d: "M0,1 L9,5 L0,9 z", fill: colour }, m);
      this.markers.add(id);
    }
    return `url(#${id})`;
  }

  // scene: {nodes: [{node, kind, box, rows, extraRow, expanded, root, side}], edges: [{edge, points}],
  //         stubs, columnEdges: [{edge, from, to}], rowsOf}
  //
  // A graph of more than CULL_MIN cards draws only what is near the view (culling): every card,
  // edge and box is a "drawable" with its bounds, drawn when it comes within half a view's width or
  // height of the view and removed when it leaves that; the highlight is applied again to what
  // comes in. Below CULL_MIN everything is drawn once.
  render(scene) {
    this.viewSize(); // measured before the new cards exist: no forced layout of them
    this.viewport.replaceChildren();
    this.marked = [];
    this.elements.clear();
    this.positions.clear();
    this.lodTexts = new Map(); // drawable key -> its level-of-detail labels
    this._lodBucket = null;
    this.scene = scene;
    const layer = (cls) => el("g", { class: cls }, this.viewport);
    const gGroups = layer("groups");
    const gEdges = layer("edges");
    const gNodes = layer("nodes");
    const gCols = layer("cedges");
    for (const item of scene.nodes) this.positions.set(item.id, item.box);
    const all = [];
    const add = (key, b, draw, keys) => all.push({ key, x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1, draw, keys });
    const boxOf = (b) => ({ x0: b.x, y0: b.y - 10, x1: b.x + b.width, y1: b.y + b.height });
    (scene.groups || []).forEach((b, k) => add(`group:${k}`, boxOf(b), () => this._groupBox(gGroups, b), []));
    for (const e of scene.edges) {
      if (!e.points || e.points.length < 2) continue;
      add(`edge:${e.edge.id}`, spanOf(e.points), () => this._edge(gEdges, e), [`edge:${e.edge.id}`]);
    }
    for (const item of scene.nodes) {
      const keys = [`${item.kind === "stub" ? "stub" : "node"}:${item.id}`, ...(item.rows || []).map((f) => `field:${f.id}`)];
      add(keys[0], boxOf(item.box), () => this._node(gNodes, item), keys);
    }
    for (const c of this._routeColumnEdges(scene.columnEdges)) {
      add(`cedge:${c.item.edge.id}`, spanOf([c.a, c.b]), () => this._columnEdge(gCols, c), [`cedge:${c.item.edge.id}`]);
    }
    this.drawables = all;
    this.drawn = new Map(); // drawable key -> element
    this.culling = scene.nodes.length > CULL_MIN;
    // its map, when it has two clusters or more and the view cannot be read whole at MIN_FIT_SCALE
    const v = this.viewSize();
    this.map = scene.map && scene.map.clusters.length > 1
      && (scene.width * MIN_FIT_SCALE > v.width - 60 || scene.height * MIN_FIT_SCALE > v.height - 40) ? scene.map : null;
    this._mapDrawn = null;
    this._culled = null;
    this.hl = null;
    if (!this.culling) this._draw(() => true);
    this.bounds = { width: scene.width, height: scene.height };
    this._apply();
  }

  // Draw the drawables `keep` says yes to and remove the others; true when some were added.
  _draw(keep) {
    let added = false;
    for (const d of this.drawables) {
      const el = this.drawn.get(d.key);
      if (keep(d)) {
        if (el) continue;
        this._owner = d.key;
        this.drawn.set(d.key, d.draw());
        added = true;
      } else if (el) {
        el.remove();
        this.drawn.delete(d.key);
        this.lodTexts.delete(d.key);
        for (const k of d.keys) this.elements.delete(k);
      }
    }
    this._owner = null;
    if (added) {
      this._lodBucket = null;
      if (this.hl) this.highlight(this.hl);
    }
    return added;
  }

  // Culling: when the view leaves the region drawn, draw the view and half a view around it.
  _cull() {
    if (!this.culling) return;
    const { width, height } = this.viewSize();
    const { x, y, k } = this.t;
    const v = { x0: -x / k, y0: -y / k, x1: (width - x) / k, y1: (height - y) / k };
    const r = this._culled;
    if (r && v.x0 >= r.x0 && v.y0 >= r.y0 && v.x1 <= r.x1 && v.y1 <= r.y1) return;
    const mx = (v.x1 - v.x0) / 2;
    const my = (v.y1 - v.y0) / 2;
    const w = { x0: v.x0 - mx, y0: v.y0 - my, x1: v.x1 + mx, y1: v.y1 + my };
    this._culled = w;
    this._draw((d) => d.x1 >= w.x0 && d.x0 <= w.x1 && d.y1 >= w.y0 && d.y0 <= w.y1);
  }

  // Everything drawn while `fn` runs (an export copies the whole graph), then culled again.
  whole(fn) {
    if (!this.culling) return fn();
    this._draw(() => true);
    try {
      return fn();
    } finally {
      this._culled = null;
      if (!this.mapShown()) this._cull();
    }
  }

  // The canvas size, measured once per resize (a measure after a redraw would force a layout of
  // every card).
  viewSize() {
    if (!this._size || !this._size.width) {
      const r = this.svg.getBoundingClientRect();
      this._size = { width: r.width, height: r.height };
    }
    return this._size;
  }

  _edge(parent, { edge, points }) {
    if (!points || points.length < 2) return;
    const g = el("g", {
      class: `edge flow ${edge.type === "VIA" ? "via" : ""}`,
      "data-kind": "edge",
      "data-id": edge.id,
      "data-edge-ids": edge.ids.join(","),
    }, parent);
    const d = smooth(points);
    el("path", { class: "hit", d }, g);
    el("path", { class: "line", d, stroke: FLOW_COLOUR, "marker-end": this.marker(FLOW_COLOUR) }, g);
    this.elements.set(`edge:${edge.id}`, g);
    return g;
  }

  _node(parent, item) {
    const { node, box } = item;
    if (item.kind === "stub") {
      const g = el("g", {
        class: "stub",
        "data-kind": "stub",
        "data-id": item.id,
        transform: `translate(${box.x},${box.y})`,
        tabindex: 0,
        role: "button",
      }, parent);
      el("rect", { width: box.width, height: box.height, rx: 15 }, g);
      const t = el("text", { class: "sname", x: box.width / 2, y: box.height / 2 + 4, "text-anchor": "middle" }, g);
      t.textContent = item.stub.hidden > 50 ? `+${item.stub.hidden} more — search…` : `+${item.stub.hidden} more — show`;
      this._lodText(el("text", { class: "lodname", x: 8, y: box.height / 2 }, g), `+${item.stub.hidden} more`, box.width + LOD_OVERHANG, 600);
      el("title", {}, g).textContent = `${item.stub.shown} of ${item.stub.shown + item.stub.hidden} neighbours shown`;
      this.elements.set(`stub:${item.id}`, g);
      return g;
    }
    if (node.type === "GROUP") return this._group(parent, item);
    const cls = ["node", `t-${node.type}`];
    if (item.root) cls.push("root");
    if (item.expanded) cls.push("expanded");
    const g = el("g", {
      class: cls.join(" "),
      "data-kind": "node",
      "data-id": node.id,
      "data-type": node.type,
      transform: `translate(${box.x},${box.y})`,
    }, parent);
    this.elements.set(`node:${node.id}`, g);
    const colour = TYPE_COLOURS[node.type] || OTHER_COLOUR;
    el("title", {}, g).textContent = `${node.type} ${node.name}`;
    if (PROCESS.has(node.type)) {
      el("rect", { class: "card", width: box.width, height: box.height, rx: 16 }, g);
      el("circle", { cx: 16, cy: box.height / 2, r: 5, fill: colour }, g);
      const t = el("text", { class: "name", x: 28, y: box.height / 2 + 4 }, g);
      t.textContent = fitMiddle(displayName(node), 12, 500, box.width - 40);
      this._lodText(el("text", { class: "lodname", x: 8, y: box.height / 2 }, g), displayName(node), box.width + LOD_OVERHANG, 500, "middle");
      el("circle", { class: "dot", cx: box.width / 2, cy: box.height / 2, r: 4, fill: colour }, g);
      return g;
    }
    el("rect", { class: "card", width: box.width, height: box.height, rx: 8 }, g);
    el("rect", { class: "accent", width: 5, height: box.height, rx: 2, fill: colour }, g);
    const type = el("text", { class: "type", x: 14, y: 17, fill: colour }, g);
    const where = node.name.slice(0, Math.max(0, node.name.length - node.short.length - 1));
    const room = box.width - 50 - width(`${node.type} · `, 10, 600);
    const at = where ? fitTail(where, 10, 600, room) : "";
    type.textContent = at ? `${node.type} · ${at}` : node.type;
    const name = el("text", { class: "name", x: 14, y: 35 }, g);
    name.textContent = fit(node.short, 13.5, 650, box.width - 50);
    if (expandable(node)) {
      const tg = el("g", {
        class: "toggle",
        "data-kind": "toggle",
        "data-id": node.id,
        transform: `translate(${box.width - 26},${12})`,
        role: "button",
        tabindex: 0,
        "aria-label": item.expanded ? "hide columns" : "show columns",
      }, g);
      el("rect", { width: 20, height: 20, rx: 5 }, tg);
      el("path", { d: item.expanded ? "M5,8 L10,13 L15,8" : "M8,5 L13,10 L8,15" }, tg);
    }
    // after the toggle: zoomed out, the name (with its halo) is painted over it
    this._lodText(el("text", { class: "lodname", x: 10, y: HEADER / 2 }, g), node.short, box.width + LOD_OVERHANG, 650);
    el("circle", { class: "dot", cx: box.width / 2, cy: HEADER / 2, r: 4, fill: colour }, g);
    if (!item.rows) return g;
    const prefix = `${node.short}.`;
    if (!item.rows.length && !item.extraRow) {
      const t = el("text", { class: "empty", x: 14, y: HEADER + 15 }, g);
      t.textContent = item.loading ? "loading columns…" : "no columns recorded";
    }
    item.rows.forEach((f, k) => {
      const y = HEADER + k * ROW;
      const r = el("g", {
        class: "field",
        "data-kind": "field",
        "data-id": f.id,
        "data-dataset": node.id,
        transform: `translate(0,${y})`,
        tabindex: 0,
        role: "button",
      }, g);
      el("rect", { class: "row", x: 4, width: box.width - 8, height: ROW, rx: 4 }, r);
      const label = f.short.startsWith(prefix) ? f.short.slice(prefix.length) : f.short;
      const t = el("text", { x: 16, y: 15 }, r);
      t.textContent = fit(label, 12.5, 400, box.width - 32);
      el("circle", { class: "port", cx: 0, cy: ROW / 2, r: 3 }, r);
      el("circle", { class: "port", cx: box.width, cy: ROW / 2, r: 3 }, r);
      el("title", {}, r).textContent = f.name;
      this.elements.set(`field:${f.id}`, r);
    });
    if (item.extraRow) {
      const y = HEADER + item.rows.length * ROW;
      const r = el("g", { class: "morecols", "data-kind": "morecols", "data-id": node.id, transform: `translate(0,${y})`, role: "button", tabindex: 0 }, g);
      el("rect", { class: "row", x: 4, width: box.width - 8, height: ROW, rx: 4 }, r);
      const t = el("text", { x: 16, y: 15 }, r);
      t.textContent = `+${item.extraRow} more columns — show all`;
    }
    return g;
  }

  // A group's box in one column of the layout, labelled with its name.
  _groupBox(parent, b) {
    const g = el("g", { class: "groupbox", "data-group": b.group, transform: `translate(${b.x},${b.y})` }, parent);
    el("rect", { width: b.width, height: b.height, rx: 10 }, g);
    const t = el("text", { class: "gname", x: 10, y: 16 }, g);
    t.textContent = fitTail(b.group, 11, 650, b.width - 20);
    this._lodText(el("text", { class: "lodname", x: 6, y: 14 }, g), b.group, b.width + 40, 700, "tail");
    el("title", {}, g).textContent = b.group;
    return g;
  }

  // Jobs folded into one node: a stack of pills, the count and what they write; a click unfolds it.
  _group(parent, item) {
    const { node, box } = item;
    const g = el("g", {
      class: "node group",
      "data-kind": "group",
      "data-id": node.id,
      "data-type": "GROUP",
      "data-count": node.members.length,
      transform: `translate(${box.x},${box.y})`,
      tabindex: 0,
      role: "button",
    }, parent);
    this.elements.set(`node:${node.id}`, g);
    el("title", {}, g).textContent = `${node.members.length} jobs write this table: click to show them`;
    el("rect", { class: "card back", x: 6, y: -5, width: box.width - 12, height: box.height, rx: 16 }, g);
    el("rect", { class: "card", width: box.width, height: box.height, rx: 16 }, g);
    el("circle", { cx: 16, cy: 16, r: 5, fill: TYPE_COLOURS.JOB }, g);
    el("text", { class: "name", x: 28, y: 20 }, g).textContent = node.short;
    el("text", { class: "sub", x: 28, y: 35 }, g).textContent = "writers — click to show";
    this._lodText(el("text", { class: "lodname", x: 8, y: box.height / 2 }, g), node.short, box.width + LOD_OVERHANG, 600);
    el("circle", { class: "dot", cx: box.width / 2, cy: box.height / 2, r: 4, fill: TYPE_COLOURS.JOB }, g);
    return g;
  }

  portOf(end, out) {
    const box = this.positions.get(end.dataset);
    if (!box) return null;
    const x = out ? box.x + box.width : box.x;
    if (end.field === undefined) return { x, y: box.y + HEADER / 2, card: true };
    const k = this.scene.rowIndex(end.dataset, end.field);
    return { x, y: box.y + HEADER + k * ROW + ROW / 2, card: false };
  }

  // Column edges between the same two ports are drawn side by side, 3 units apart.
  _routeColumnEdges(items) {
    const groups = new Map();
    const routed = [];
    for (const item of items) {
      const a = this.portOf(item.from, true);
      const b = this.portOf(item.to, false);
      if (!a || !b) continue;
      const key = `${a.x},${a.y}>${b.x},${b.y}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(item);
      routed.push({ item, a, b, group: groups.get(key) });
    }
    return routed;
  }

  _columnEdge(parent, { item, a, b, group }) {
    const shift = (group.indexOf(item) - (group.length - 1) / 2) * 3;
    const e = item.edge;
    const colour = colourOf(e);
    const g = el("g", {
      class: `cedge ${e.dependency === "INDIRECT" ? "indirect" : "direct"}`,
      "data-kind": "cedge",
      "data-id": e.id,
      "data-subtype": e.subtype || "",
      "data-parallel": group.map((x) => x.edge.id).join(","),
    }, parent);
    const d = curve({ x: a.x, y: a.y + shift }, { x: b.x, y: b.y + shift });
    el("path", { class: "hit", d }, g);
    el("path", {
      class: "line",
      d,
      stroke: colour,
      "stroke-dasharray": e.dependency === "INDIRECT" ? "6 4" : null,
      "marker-end": this.marker(colour),
    }, g);
    this.elements.set(`cedge:${e.id}`, g);
    return g;
  }

  // hl: {root: fieldId|null, up: Set, down: Set, edgesUp: Set, edgesDown: Set, nodes: Set,
  //      flowEdges: Set, badges: Map datasetId -> count, selectedNode: id|null}
  // Incremental: only the elements the previous highlight marked are unmarked, so a selection
  // costs what it touches, not the size of the graph.
  highlight(hl) {
    this.hl = hl;
    for (const e of this.marked) {
      if (e.classList.contains("pathbadge")) e.remove();
      else e.classList.remove("hl", "hl-up", "hl-down", "hl-root", "selected");
    }
    this.marked = [];
    const on = !!(hl && (hl.root !== null || hl.nodes.size));
    this.svg.classList.toggle("has-hl", on && hl.root !== null);
    if (!hl) return;
    const mark = (key, ...cls) => {
      const e = this.elements.get(key);
      if (!e) return;
      e.classList.add("hl", ...cls);
      this.marked.push(e);
    };
    if (hl.root !== null) mark(`field:${hl.root}`, "hl-root");
    hl.up.forEach((id) => mark(`field:${id}`, "hl-up"));
    hl.down.forEach((id) => mark(`field:${id}`, "hl-down"));
    const cols = this.viewport.querySelector(".cedges");
    const lift = (id, cls) => {
      mark(`cedge:${id}`, cls);
      const e = this.elements.get(`cedge:${id}`);
      if (e && cols) cols.appendChild(e); // highlighted column edges drawn last, above the others
    };
    hl.edgesUp.forEach((id) => lift(id, "hl-up"));
    hl.edgesDown.forEach((id) => lift(id, "hl-down"));
    hl.nodes.forEach((id) => mark(`node:${id}`));
    hl.flowEdges.forEach((id) => mark(`edge:${id}`));
    for (const [id, n] of hl.badges) {
      const g = this.elements.get(`node:${id}`);
      const box = this.positions.get(id);
      if (!g || !box) continue;
      const b = el("text", { class: "pathbadge", x: box.width - 34, y: 38, "text-anchor": "end" }, g);
      b.textContent = `${n} on path`;
      this.marked.push(b);
    }
    if (hl.selectedNode !== null && hl.selectedNode !== undefined) {
      const e = this.elements.get(`node:${hl.selectedNode}`);
      if (e) {
        e.classList.add("selected");
        this.marked.push(e);
      }
    }
  }

  // ---------------------------------------------------------------- pan and zoom

  // The map is drawn instead of the graph: a view too large to read whole, zoomed out under
  // MIN_FIT_SCALE.
  mapShown() {
    return !!this.map && this.t.k < MIN_FIT_SCALE;
  }

  _apply() {
    if (!this.mapShown()) this._cull(); // at once: what a move brings into view exists when the move returns
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => {
      this._frame = null;
      const { x, y, k } = this.t;
      // The map, when shown, covers the graph (an opaque layer over it): the graph is left as
      // it is, so entering and leaving the map restyles and lays out no card.
      const map = this.mapShown();
      if (map !== this.svg.classList.contains("map-on")) this.svg.classList.toggle("map-on", map);
      if (map) {
        this._drawMap();
        this._minimap();
        return;
      }
      this.viewport.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)}) scale(${k.toFixed(4)})`);
      // Zoomed out, a card's own text is unreadable: each card shows its name at LOD_PX on
      // screen instead, and the small text (columns, ports) is not painted, which also keeps
      // panning smooth on big graphs.
      const lod = k < LOD_SCALE;
      this.viewport.style.setProperty("--lod-font", `${(LOD_PX / k).toFixed(2)}px`);
      if (lod) this._fitLodTexts(k);
      if (lod !== this.lod) {
        this.lod = lod;
        this.svg.classList.toggle("lod", lod);
      }
      const norows = k < ROWS_SCALE;
      if (norows !== this.norows) {
        this.norows = norows;
        this.svg.classList.toggle("norows", norows);
      }
      const far = k < MIN_FIT_SCALE;
      this.viewport.style.setProperty("--dot-r", `${(DOT_PX / k).toFixed(2)}px`);
      if (far !== this.far) {
        this.far = far;
        this.svg.classList.toggle("far", far);
      }
      this._minimap();
    });
  }

  // A level-of-detail label: its text is cut to the room it has at the scale it is drawn at.
  // mode: how a name too long is cut (fit, fitMiddle, fitTail).
  _lodText(t, full, room, weight, mode = "start") {
    const key = this._owner ?? "";
    if (!this.lodTexts.has(key)) this.lodTexts.set(key, []);
    this.lodTexts.get(key).push({ t, full, room, weight, cut: CUTS[mode] });
    t.appendChild(document.createTextNode(full));
  }

  _fitLodTexts(k) {
    const bucket = Math.round(k * 40);
    if (bucket === this._lodBucket) return; // (drawing more resets the bucket)
    this._lodBucket = bucket;
    const px = LOD_PX / (bucket / 40);
    for (const { t, full, room, weight, cut } of [...this.lodTexts.values()].flat()) {
      t.lastChild.nodeValue = cut(full, px, weight, room);
    }
  }

  // A minimap in the canvas corner when the graph does not fit the view: every card, and the view.
  attachMinimap(box) {
    this.mini = box;
    box.addEventListener("pointerdown", (ev) => {
      const go = (e) => {
        const m = this._miniScale;
        if (!m) return;
        const r = box.getBoundingClientRect();
        const gx = (e.clientX - r.left - m.ox) / m.s;
        const gy = (e.clientY - r.top - m.oy) / m.s;
        const v = this.viewSize();
        this.t.x = v.width / 2 - gx * this.t.k;
        this.t.y = v.height / 2 - gy * this.t.k;
        this._apply();
      };
      go(ev);
      box.setPointerCapture(ev.pointerId);
      box.onpointermove = go;
      box.onpointerup = () => {
        box.onpointermove = null;
      };
    });
  }

  _drawMap() {
    const v = this.viewSize();
    const key = `${v.width}x${v.height}`;
    if (this._mapDrawn?.map === this.map && this._mapDrawn.key === key) return;
    const a = this.freeArea();
    this._mapBoxes = drawMap(this.mapLayer, this.map, a);
    this._mapDrawn = { map: this.map, key };
  }

  // The cluster of the map under a point of the canvas, or null.
  clusterAt(cx, cy) {
    if (!this.mapShown() || !this._mapBoxes) return null;
    for (const [key, b] of this._mapBoxes) {
      if (cx >= b.x && cx <= b.x + b.width && cy >= b.y && cy <= b.y + b.height) return key;
    }
    return null;
  }

  // Open a cluster of the map: the graph fitted to its cards' box (at MIN_FIT_SCALE at least).
  openCluster(key) {
    const c = this.map?.clusters.find((x) => x.key === key);
    if (!c) return;
    const boxes = c.members.map((id) => this.positions.get(id)).filter(Boolean);
    if (!boxes.length) return;
    const x0 = Math.min(...boxes.map((b) => b.x));
    const y0 = Math.min(...boxes.map((b) => b.y));
    const x1 = Math.max(...boxes.map((b) => b.x + b.width));
    const y1 = Math.max(...boxes.map((b) => b.y + b.height));
    this.fitBox({ x0, y0, x1, y1 });
  }

  // Leave the map for the graph around the root, at MIN_FIT_SCALE.
  openRoot() {
    const root = this.scene?.nodes.find((it) => it.root);
    this.t.k = MIN_FIT_SCALE;
    if (root) this.centerOn(root.id);
    else this._apply();
  }

  // A box of the graph (graph units) centred in the free area, at the largest zoom that fits
  // (at most 1.2, at least MIN_FIT_SCALE).
  fitBox(b) {
    const a = this.freeArea();
    const pad = 16;
    const fw = a.x1 - a.x0 - 2 * pad;
    const fh = a.y1 - a.y0 - 2 * pad;
    const k = Math.max(MIN_FIT_SCALE, Math.min(1.2, fw / Math.max(1, b.x1 - b.x0 + LOD_OVERHANG), fh / Math.max(1, b.y1 - b.y0)));
    this.t = { k, x: (a.x0 + a.x1) / 2 - ((b.x0 + b.x1) / 2) * k, y: (a.y0 + a.y1) / 2 - ((b.y0 + b.y1) / 2) * k };
    this._apply();
  }

  _minimap() {
    const box = this.mini;
    if (!box) return;
    if (this.mapShown()) {
      box.hidden = true;
      return;
    }
    const v = this.viewSize();
    const { x, y, k } = this.t;
    const w = this.bounds.width;
    const h = this.bounds.height;
    const fits = w * k <= v.width + 1 && h * k <= v.height + 1 && x >= -1 && y >= -1 && x + w * k <= v.width + 1 && y + h * k <= v.height + 1;
    box.hidden = !w || fits;
    if (box.hidden) return;
    const W = 200;
    const H = 130;
    const s = Math.min((W - 8) / w, (H - 8) / h);
    const ox = (W - w * s) / 2;
    const oy = (H - h * s) / 2;
    this._miniScale = { s, ox, oy };
    if (this._miniScene !== this.scene) {
      this._miniScene = this.scene;
      box.replaceChildren();
      const svg = el("svg", { width: W, height: H, class: "minimap-svg" }, box);
      const g = el("g", { transform: `translate(${ox},${oy}) scale(${s})` }, svg);
      for (const item of this.scene.nodes) {
        const b = item.box;
        el("rect", { x: b.x, y: b.y, width: b.width, height: b.height, class: `mm-${item.root ? "root" : PROCESS.has(item.node?.type) ? "job" : "card"}` }, g);
      }
      this._miniView = el("rect", { class: "mm-view" }, svg);
    }
    const r = this._miniView;
    r.setAttribute("x", (ox + (-x / k) * s).toFixed(1));
    r.setAttribute("y", (oy + (-y / k) * s).toFixed(1));
    r.setAttribute("width", ((v.width / k) * s).toFixed(1));
    r.setAttribute("height", ((v.height / k) * s).toFixed(1));
  }

  zoomBy(factor, cx, cy) {
    if (this.mapShown() && factor > 1) {
      // zooming into the map opens the cluster under the pointer (or the graph around the root)
      const key = cx === undefined ? null : this.clusterAt(cx, cy);
      return key === null ? this.openRoot() : this.openCluster(key);
    }
    const r = this.viewSize();
    const px = cx ?? r.width / 2;
    const py = cy ?? r.height / 2;
    const k = Math.min(2.5, Math.max(0.08, this.t.k * factor));
    this.t.x = px - ((px - this.t.x) * k) / this.t.k;
    this.t.y = py - ((py - this.t.y) * k) / this.t.k;
    this.t.k = k;
    this._apply();
  }

  // The part of the canvas no overlay covers, in canvas pixels: right of the zoom buttons, above
  // the legend (the side panel is beside the canvas, never over it). Measured when asked (a fit).
  freeArea() {
    const v = this.viewSize();
    const s = this.svg.getBoundingClientRect();
    const area = { x0: 0, y0: 0, x1: v.width, y1: v.height };
    const zoom = this.svg.parentElement?.querySelector(".zoom")?.getBoundingClientRect();
    if (zoom?.width) area.x0 = Math.max(area.x0, zoom.right - s.left);
    const legend = this.svg.parentElement?.querySelector(".legend")?.getBoundingClientRect();
    if (legend?.height) area.y1 = Math.min(area.y1, legend.top - s.top);
    return area;
  }

  // Fit the whole graph into the free area, centred, at the largest zoom that fits (at most 1.2),
  // down to MIN_FIT_SCALE (where every card's label is still readable); a graph larger than that is
  // shown at MIN_FIT_SCALE around `focusId` (the root) and its neighbours, with the minimap.
  fit(focusId, anchor = 0.5) {
    if (this.map && (focusId === undefined || focusId === null)) {
      // the whole of a view too large to read: its map
      this.t.k = MAP_SCALE;
      this._apply();
      return;
    }
    const a = this.freeArea();
    const pad = 16;
    const fw = a.x1 - a.x0 - 2 * pad;
    const fh = a.y1 - a.y0 - 2 * pad;
    const w = Math.max(1, this.bounds.width);
    const h = Math.max(1, this.bounds.height);
    let k = Math.min(fw / w, fh / h, 1.2);
    // zoomed out, a card's name is drawn at a fixed screen size and may run past the card's right
    // edge (up to LOD_OVERHANG graph units): the last layer's names must fit too
    if (k < LOD_SCALE) k = Math.min(fw / (w + LOD_OVERHANG), fh / h);
    if (k >= MIN_FIT_SCALE) {
      const over = k < LOD_SCALE ? LOD_OVERHANG : 0;
      this.t = { k, x: a.x0 + pad + (fw - (w + over) * k) / 2, y: a.y0 + pad + (fh - h * k) / 2 };
      this._apply();
      return;
    }
    this.t.k = MIN_FIT_SCALE;
    if (focusId === undefined || focusId === null || !this.positions.has(focusId)) {
      this.t.x = a.x0 + pad;
      this.t.y = a.y0 + pad;
      this._apply();
      return;
    }
    this.centerOn(focusId, anchor);
  }

  // Bring a node into view; `anchor` is where across the canvas it goes (0.5: the middle).
  centerOn(id, anchor = 0.5) {
    const box = this.positions.get(id);
    if (!box) return;
    const r = this.viewSize();
    this.t.x = r.width * anchor - (box.x + box.width / 2) * this.t.k;
    this.t.y = r.height / 2 - (box.y + Math.min(box.height, 300) / 2) * this.t.k;
    this._apply();
  }

  _panning() {
    let drag = null;
    this.svg.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, tx: this.t.x, ty: this.t.y, moved: false, id: ev.pointerId };
    });
    this.svg.addEventListener("pointermove", (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) {
        drag.moved = true;
        this.svg.setPointerCapture(ev.pointerId);
        this.svg.classList.add("panning");
        this.h.onPanStart?.();
      }
      this.t.x = drag.tx + dx;
      this.t.y = drag.ty + dy;
      this._apply();
    });
    const end = (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      this.suppressClick = drag.moved;
      this.svg.classList.remove("panning");
      drag = null;
    };
    this.svg.addEventListener("pointerup", end);
    this.svg.addEventListener("pointercancel", end);
    this.svg.addEventListener(
      "wheel",
      (ev) => {
        ev.preventDefault();
        const r = this.svg.getBoundingClientRect();
        if (ev.ctrlKey || !ev.shiftKey) this.zoomBy(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
        else {
          this.t.x -= ev.deltaY;
          this._apply();
        }
      },
      { passive: false },
    );
  }

  _events() {
    const target = (ev) => ev.target.closest("[data-kind]");
    this.svg.addEventListener("click", (ev) => {
      if (this.suppressClick) {
        this.suppressClick = false;
        return;
      }
      const t = target(ev);
      if (!t) return this.h.onBackground?.();
      const id = t.dataset.id;
      switch (t.dataset.kind) {
        case "toggle":
          return this.h.onToggle?.(Number(id));
        case "field":
          return this.h.onField?.(Number(id), Number(t.dataset.dataset));
        case "node":
          return this.h.onNode?.(Number(id));
        case "stub":
          return this.h.onStub?.(id);
        case "group":
          return this.h.onGroup?.(id);
        case "morecols":
          return this.h.onMoreColumns?.(Number(id));
        case "cluster":
          return this.openCluster(id);
        case "cedge":
        case "edge":
          return this.h.onEdgeClick?.(t, ev);
        default:
      }
    });
    this.svg.addEventListener("dblclick", (ev) => {
      const t = target(ev);
      if (t && t.dataset.kind === "node") this.h.onNodeOpen?.(Number(t.dataset.id));
    });
    this.svg.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter" && ev.key !== " ") return;
      const t = target(ev);
      if (!t) return;
      ev.preventDefault();
      t.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    });
    this.svg.addEventListener("pointerover", (ev) => {
      const t = ev.target.closest("[data-kind=edge], [data-kind=cedge]");
      if (t && ev.target.classList.contains("hit")) this.h.onEdgeEnter?.(t, ev);
    });
    this.svg.addEventListener("pointerout", (ev) => {
      const t = ev.target.closest("[data-kind=edge], [data-kind=cedge]");
      if (t && ev.target.classList.contains("hit")) this.h.onEdgeLeave?.(t, ev);
    });
  }
}

// A path through points with horizontal tangents at every point.
export function smooth(points) {
  let d = `M${r(points[0].x)},${r(points[0].y)}`;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (Math.abs(a.y - b.y) < 0.5) {
      d += ` L${r(b.x)},${r(b.y)}`;
      continue;
    }
    const dx = Math.max(20, Math.abs(b.x - a.x) / 2);
    d += ` C${r(a.x + dx)},${r(a.y)} ${r(b.x - dx)},${r(b.y)} ${r(b.x)},${r(b.y)}`;
  }
  return d;
}

function curve(a, b) {
  const dx = Math.max(40, Math.abs(b.x - a.x) / 2);
  return `M${r(a.x)},${r(a.y)} C${r(a.x + dx)},${r(a.y)} ${r(b.x - dx)},${r(b.y)} ${r(b.x)},${r(b.y)}`;
}

const r = (v) => Math.round(v * 10) / 10;
