// A tiny element builder: h("a", {href: "#", class: "x", onclick: fn}, "text", child, …).

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "style") e.style.cssText = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function fmtTime(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function badge(type, colour) {
  return h("span", { class: "badge", style: `--c:${colour || "#64748b"}` }, type);
}

// Replace an element's children, skipping null / false / undefined (replaceChildren would print "null").
export function fill(box, ...children) {
  box.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return box;
}

// A dotted name (db.table.column) that wraps only at its dots, never inside a part; longer than
// `max` characters, its first parts give way to "…" (its last parts stay whole). The full name is
// its title (or `title`), shown on hover.
export function dotted(name, max = Infinity, title = name) {
  const parts = String(name).split(".");
  let first = 0;
  if (name.length > max) {
    first = parts.length - 1;
    while (first > 0 && parts.slice(first - 1).join(".").length + 1 <= max) first -= 1;
  }
  const span = h("span", { class: "dotted", title });
  if (first > 0) span.append("…");
  parts.slice(first).forEach((p, k) => {
    if (k) span.append(".", document.createElement("wbr"));
    span.append(p);
  });
  return span;
}
