// The search box: prefix and substring matches from /explorer/search, keyboard first
// (/ focuses, arrows move, Enter opens, Escape closes), node type shown on every hit.

import { api } from "./api.js";
import { TYPE_COLOURS } from "./graph.js";

export function initSearch({ input, typeSelect, list, box, onOpen }) {
  let hits = [];
  let active = -1;
  let timer = null;
  let inflight = null;
  let lastQuery = null;

  const close = () => {
    list.hidden = true;
    box.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };

  const setActive = (k) => {
    const items = list.querySelectorAll("[role=option]");
    if (!items.length) return;
    active = (k + items.length) % items.length;
    items.forEach((li, i) => li.setAttribute("aria-selected", i === active ? "true" : "false"));
    input.setAttribute("aria-activedescendant", items[active].id);
    items[active].scrollIntoView({ block: "nearest" });
  };

  const render = (q, result) => {
    list.replaceChildren();
    hits = result.hits;
    hits.forEach((h, k) => {
      const li = document.createElement("li");
      li.id = `search-opt-${k}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.dataset.id = h.node.id;
      li.dataset.type = h.node.type;
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = h.node.type;
      badge.style.setProperty("--c", TYPE_COLOURS[h.node.type] || "#64748b");
      const name = document.createElement("span");
      name.className = "hit-name";
      name.append(...marked(h.node.short, q));
      const full = document.createElement("span");
      full.className = "hit-full";
      full.textContent = h.node.name;
      li.append(badge, name, full);
      li.title = `${h.node.type} ${h.node.name} (${h.match} match)`;
      li.addEventListener("mousedown", (ev) => {
        ev.preventDefault();
        open(k);
      });
      list.appendChild(li);
    });
    if (!hits.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = `nothing named like “${q}”`;
      list.appendChild(li);
    } else if (result.truncated) {
      const li = document.createElement("li");
      li.className = "more";
      li.textContent = `more matches than shown — keep typing`;
      list.appendChild(li);
    }
    list.hidden = false;
    box.setAttribute("aria-expanded", "true");
    active = -1;
    if (hits.length) setActive(0);
  };

  const run = async () => {
    const q = input.value.trim();
    const types = typeSelect.value ? [typeSelect.value] : null;
    const key = `${q}|${typeSelect.value}`;
    if (!q) {
      close();
      lastQuery = null;
      return;
    }
    if (key === lastQuery && !list.hidden) return;
    lastQuery = key;
    if (inflight) inflight.abort();
    inflight = new AbortController();
    try {
      const result = await api.search(q, types, 20, inflight.signal);
      if (input.value.trim() === q) render(q, result);
    } catch (err) {
      if (err.name !== "AbortError") {
        list.replaceChildren(Object.assign(document.createElement("li"), { className: "empty", textContent: err.message }));
        list.hidden = false;
      }
    }
  };

  const open = (k) => {
    const h = hits[k];
    if (!h) return;
    close();
    input.blur();
    onOpen(h.node);
  };

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(run, 90);
  });
  typeSelect.addEventListener("change", () => {
    lastQuery = null;
    run();
  });
  input.addEventListener("focus", () => {
    if (input.value.trim()) run();
  });
  input.addEventListener("blur", () => setTimeout(close, 120));
  input.addEventListener("keydown", async (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (list.hidden) await run();
      setActive(active + (ev.key === "ArrowDown" ? 1 : -1));
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      clearTimeout(timer);
      const q = input.value.trim();
      if (`${q}|${typeSelect.value}` !== lastQuery || list.hidden) await run();
      open(active >= 0 ? active : 0);
    } else if (ev.key === "Escape") {
      close();
      input.blur();
    }
  });
  document.addEventListener("keydown", (ev) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName);
    if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey) {
      ev.preventDefault();
      input.focus();
      input.select();
    }
  });
}

// The text with each occurrence of q wrapped in <mark>.
function marked(text, q) {
  const out = [];
  const low = text.toLowerCase();
  const needle = q.toLowerCase();
  let at = 0;
  if (needle) {
    for (let i = low.indexOf(needle); i >= 0; i = low.indexOf(needle, at)) {
      if (i > at) out.push(document.createTextNode(text.slice(at, i)));
      const m = document.createElement("mark");
      m.textContent = text.slice(i, i + needle.length);
      out.push(m);
      at = i + needle.length;
    }
  }
  out.push(document.createTextNode(text.slice(at)));
  return out;
}
