// Diff mode: the column edges that changed between "diff from" and the graph's time (as of, or now),
// from GET /api/v1/diff — added green, changed amber, removed red and dashed (drawn when both of its
// columns are on screen). main.js calls paintDiff after each render; initDiff wires the input.

import { get } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";
export const DIFF_COLOURS = { added: "#1a9850", changed: "#e08b00", removed: "#d73027" };
const state = { from: null, to: null, answer: null, byEnds: new Map(), removed: [], pending: null };

const STYLE = `
.cedge.diff-added .line { stroke: ${DIFF_COLOURS.added}; stroke-width: 3px; }
.cedge.diff-changed .line { stroke: ${DIFF_COLOURS.changed}; stroke-width: 3px; }
.cedge.diff-removed .line { stroke: ${DIFF_COLOURS.removed}; stroke-width: 3px; stroke-dasharray: 7 4; fill: none; }
.diff-legend { position: absolute; right: 10px; top: 10px; background: #fff; border: 1px solid #ccc;
  border-radius: 6px; padding: 6px 10px; font: 12px system-ui, sans-serif; box-shadow: 0 1px 4px #0002; }
.diff-legend b { margin-right: 6px; }
.diff-legend span { display: inline-flex; align-items: center; margin-right: 10px; }
.diff-legend i { display: inline-block; width: 18px; height: 3px; margin-right: 4px; }
.diff-legend .verdict-BREAKING { color: ${DIFF_COLOURS.removed}; }
.diff-legend .verdict-POSSIBLY_BREAKING { color: ${DIFF_COLOURS.changed}; }
.diff-legend .verdict-SAFE { color: ${DIFF_COLOURS.added}; }
`;

function legend(canvas) {
  let box = canvas.querySelector(".diff-legend");
  if (!state.answer) {
    if (box) box.remove();
    return;
  }
  if (!box) {
    box = document.createElement("div");
    box.className = "diff-legend";
    box.id = "diff-legend";
    canvas.append(box);
  }
  const a = state.answer;
  const n = { added: 0, changed: 0, removed: 0 };
  for (const e of a.edges) n[e.status] += 1;
  box.replaceChildren();
  const head = document.createElement("b");
  head.textContent = `diff ${new Date(state.from).toLocaleString()} → ${state.to ? new Date(state.to).toLocaleString() : "now"}:`;
  const verdict = document.createElement("b");
  verdict.className = `verdict-${a.verdict}`;
  verdict.textContent = a.verdict;
  box.append(head, verdict);
  for (const status of ["added", "changed", "removed"]) {
    const s = document.createElement("span");
    const i = document.createElement("i");
    i.style.background = DIFF_COLOURS[status];
    s.append(i, `${n[status]} ${status}`);
    box.append(s);
  }
}

async function load(from, to) {
  state.from = from;
  state.to = to;
  state.byEnds.clear();
  state.removed = [];
  state.answer = null;
  if (!from) return;
  const answer = await get("diff", { from, to: to || undefined });
  for (const e of answer.edges) {
    if (e.source_id === null || e.target_id === null) continue;
    if (e.status === "removed") state.removed.push(e);
    else {
      const key = `${e.source_id}>${e.target_id}`;
      if (state.byEnds.get(key) !== "changed") state.byEnds.set(key, e.status);
    }
  }
  state.answer = answer;
}

function curve(a, b) {
  const dx = Math.max(40, (b.x - a.x) / 2);
  return `M${a.x},${a.y} C${a.x + dx},${a.y} ${b.x - dx},${b.y} ${b.x},${b.y}`;
}

// Colour the drawn column edges of `scene` that changed; draw the removed ones between drawn columns
// (the INDIRECT ones only when `indirect`, as the graph's own).
export function paintDiff(graph, scene, fieldParent, indirect = true) {
  const canvas = graph.svg.parentElement;
  legend(canvas);
  if (!scene || !state.answer) return;
  for (const item of scene.columnEdges) {
    const status = state.byEnds.get(`${item.edge.source}>${item.edge.target}`);
    const g = graph.elements.get(`cedge:${item.edge.id}`);
    if (g && status) g.classList.add(`diff-${status}`);
  }
  const layer = graph.viewport.querySelector("g.cedges");
  for (const e of state.removed) {
    if (!indirect && e.dependency === "INDIRECT") continue;
    const from = { dataset: fieldParent.get(e.source_id), field: e.source_id };
    const to = { dataset: fieldParent.get(e.target_id), field: e.target_id };
    if (from.dataset === undefined || to.dataset === undefined) continue;
    const a = graph.portOf(from, true);
    const b = graph.portOf(to, false);
    if (!a || !b || a.card || b.card) continue;
    const g = document.createElementNS(SVG, "g");
    g.setAttribute("class", "cedge diff-removed");
    g.dataset.kind = "diff-removed";
    g.dataset.source = String(e.source_id);
    g.dataset.target = String(e.target_id);
    const title = document.createElementNS(SVG, "title");
    title.textContent = `removed: ${e.source} → ${e.target} (${e.subtype} ${e.expression})`;
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("class", "line");
    path.setAttribute("d", curve(a, b));
    g.append(title, path);
    layer?.append(g);
  }
}

// input: the "diff from" datetime-local; asOf(): the graph's time (ISO or null); repaint(): paint again.
export function initDiff({ input, asOf, repaint }) {
  const style = document.createElement("style");
  style.textContent = STYLE;
  document.head.append(style);
  const run = async () => {
    const from = input.value ? new Date(input.value).toISOString() : null;
    try {
      await load(from, asOf());
    } catch (err) {
      state.answer = null;
      input.setCustomValidity(String(err.message || err));
      input.reportValidity();
      return;
    }
    input.setCustomValidity("");
    repaint();
  };
  input.addEventListener("change", () => {
    state.pending = run();
  });
  window.addEventListener("hashchange", () => {
    if (state.from && (asOf() || null) !== (state.to || null)) state.pending = run(); // follow the graph's time
  });
  return { reload: () => (state.from ? (state.pending = run()) : null), settled: () => state.pending };
}
