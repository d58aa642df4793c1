// Exports: the current graph as SVG or PNG, and origin / impact lists as CSV or JSON.
//
// The SVG carries the explorer's own style rules, so it looks the same opened on its own; it is
// drawn at scale 1 around the whole graph, whatever the zoom on screen.

const PAD = 20;

export function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

function graphRules() {
  const out = [];
  for (const sheet of document.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // another origin's sheet
    }
    for (const r of rules) if (r.selectorText?.includes("#graph") || /^\.(node|edge|cedge|field|stub|toggle|lodname|groupbox|dot)/.test(r.selectorText || "")) out.push(r.cssText);
  }
  const root = getComputedStyle(document.documentElement);
  const vars = ["--ink", "--muted", "--accent", "--root", "--line", "--bg", "--up", "--down"]
    .map((v) => `${v}: ${root.getPropertyValue(v)};`)
    .join(" ");
  return `svg { ${vars} font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }\n${out.join("\n")}`;
}

// The graph as a standalone SVG document (text).
export function graphSvg(svg, bounds) {
  const w = Math.ceil(bounds.width + 2 * PAD);
  const h = Math.ceil(bounds.height + 2 * PAD);
  const copy = svg.cloneNode(true);
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("width", w);
  copy.setAttribute("height", h);
  copy.setAttribute("viewBox", `0 0 ${w} ${h}`);
  copy.classList.remove("lod", "norows", "far", "map-on", "panning"); // the graph at scale 1, whole
  copy.querySelector(".map")?.remove();
  const vp = copy.querySelector(".viewport");
  if (vp) {
    vp.setAttribute("transform", `translate(${PAD},${PAD})`);
    vp.style.removeProperty("--lod-font");
  }
  const style = document.createElementNS("http://www.w3.org/2000/svg", "style");
  style.textContent = graphRules();
  copy.insertBefore(style, copy.firstChild);
  const bg = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  bg.setAttribute("width", w);
  bg.setAttribute("height", h);
  bg.setAttribute("fill", "#ffffff");
  copy.insertBefore(bg, style.nextSibling);
  return { text: new XMLSerializer().serializeToString(copy), width: w, height: h };
}

export function exportSvg(svg, bounds, name) {
  const { text } = graphSvg(svg, bounds);
  download(`${name}.svg`, new Blob([text], { type: "image/svg+xml" }));
}

export async function exportPng(svg, bounds, name, scale = 2) {
  const { text, width, height } = graphSvg(svg, bounds);
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  await img.decode();
  const canvas = document.createElement("canvas");
  const k = Math.min(scale, 16000 / Math.max(width, height));
  canvas.width = Math.round(width * k);
  canvas.height = Math.round(height * k);
  const ctx = canvas.getContext("2d");
  ctx.scale(k, k);
  ctx.drawImage(img, 0, 0);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  download(`${name}.png`, blob);
}

// Rows of an origin (get_field_origin) or impact (get_field_impact) list.
export function pathRows(list) {
  return list.map((p) => ({
    column: p.field.name,
    dependency: p.dependency,
    depth: Math.abs(p.depth ?? 0),
    types: (p.types || []).join(" > "),
    via: (p.path || []).map((e) => e.expression || e.subtype || e.type).filter(Boolean).join(" | "),
  }));
}

const csvCell = (v) => {
  const s = String(v ?? "");
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function toCsv(rows) {
  if (!rows.length) return "column,dependency,depth,types,via\n";
  const keys = Object.keys(rows[0]);
  return `${[keys.join(","), ...rows.map((r) => keys.map((k) => csvCell(r[k])).join(","))].join("\n")}\n`;
}

export function exportList(list, name, format) {
  const rows = pathRows(list);
  if (format === "csv") download(`${name}.csv`, new Blob([toCsv(rows)], { type: "text/csv" }));
  else download(`${name}.json`, new Blob([`${JSON.stringify(rows, null, 2)}\n`], { type: "application/json" }));
}
