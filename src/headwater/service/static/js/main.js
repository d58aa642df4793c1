// The explorer: URL state, fetching, and wiring the graph, search and panels together.
//
// Everything a view shows is in the URL hash, so a view can be shared and Back works:
//   #/node/<id>?dir=BOTH&depth=3&asof=<ISO>&exp=<dataset ids>&sel=<field id>&hide=<types>&ind=0&stmt=e<edge>|j<job>
//   (&limit=<n>: the page size of the lineage answer, 2000 by default;
//    &group=none|catalog|p:<property>: how cards are grouped, by database by default)

import { ApiError, api, setToken, setUnauthorizedHandler } from "./api.js";
import { badge, fill, fmtTime, h } from "./dom.js";
import { GraphView, HEADER, ROW_FONT_PX, ROW_MIN_PX, TYPE_COLOURS, displayName, expandable, nodeSize } from "./graph.js";
import { layeredLayout } from "./layout.js";
import { clusterMap } from "./map.js";
import { FAN_OUT, NODE_TYPES, buildView, columnEdges } from "./model.js";
import {
  renderEdgeStatement,
  renderFieldDetails,
  renderImpact,
  renderJobStatements,
  renderLegend,
  renderNodeDetails,
  tooltipContent,
} from "./panels.js";
import { initSearch } from "./search.js";
import { exportPng, exportSvg } from "./export.js";
import { initDiff, paintDiff } from "./diff.js";
import { buildIndex, samePaths, walkPaths } from "./paths.js";

const $ = (id) => document.getElementById(id);
const LINEAGE_LIMIT = 2000;
const ALL_DEPTH = 100;
const ROW_LIMIT = 50;

// ---------------------------------------------------------------- state

const route = {};
const data = {
  lineageKey: null,
  lineage: null,
  columnsAsOf: undefined,
  columns: new Map(), // datasetId -> {dataset, fields}
  columnsTruncated: false,
  fieldEdges: new Map(), // edgeId -> edge
  fieldParent: new Map(), // fieldId -> datasetId
  columnLoads: 0, // answers of /explorer/columns taken in (the drawn column edges depend on them)
  pathsKey: null,
  paths: null, // the store's /field-paths answer (the side panel's truth)
  drawnPath: null, // what the graph shows: the page's own walk (paths.js) or the store's answer
  localPath: null, // the page's walk at the click (complete or not), kept to compare
  pathVersion: 0, // bumped when the store's answer replaced a drawn walk that differed
  indexKey: null, // the view (lineage key) the column index was asked for
  index: null, // paths.js buildIndex of /explorer/column-index for that view
  origin: null,
  impact: null,
  edgeDetails: new Map(),
};
const ui = {
  shown: new Map(), // "id:up|down" -> neighbours shown
  pinned: new Set(), // neighbours picked from a "more" list
  unfolded: new Set(), // tables whose many writers are drawn one by one
  allRows: new Set(), // datasets showing every column
  selectedNode: null,
  sceneKey: null,
  scene: null,
  fitPending: true,
  rowsCheck: false, // after "expand all": say when the rows are too small to read
  centerPending: null,
};

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?");
  const p = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean);
  const ids = (s) => (s ? s.split(",").map(Number).filter(Number.isFinite) : []);
  return {
    view: parts[0] === "node" && parts[1] ? "node" : "home",
    id: parts[0] === "node" ? Number(parts[1]) : null,
    dir: ["UPSTREAM", "DOWNSTREAM", "BOTH"].includes(p.get("dir")) ? p.get("dir") : "BOTH",
    depth: p.get("depth") === "all" ? "all" : Math.min(5, Math.max(1, Number(p.get("depth")) || 3)),
    asof: p.get("asof") || null,
    exp: new Set(ids(p.get("exp"))),
    sel: p.get("sel") ? Number(p.get("sel")) : null,
    hide: new Set((p.get("hide") || "").split(",").filter(Boolean)),
    ind: p.get("ind") !== "0",
    path: p.get("path") === "1",
    // which mappings a column's paths follow (the store's levels): the indirect box means all / direct
    level: ["direct", "field", "all"].includes(p.get("level")) ? p.get("level") : p.get("ind") !== "0" ? "all" : "direct",
    stmt: p.get("stmt") || null,
    limit: Math.min(10000, Math.max(1, Number(p.get("limit")) || LINEAGE_LIMIT)),
    group: p.get("group") || "db",
  };
}

function hashOf(r) {
  if (r.view !== "node") return "#/";
  const p = new URLSearchParams();
  if (r.dir !== "BOTH") p.set("dir", r.dir);
  if (r.depth !== 3) p.set("depth", String(r.depth));
  if (r.asof) p.set("asof", r.asof);
  if (r.exp.size) p.set("exp", [...r.exp].sort((a, b) => a - b).join(","));
  if (r.sel !== null) p.set("sel", String(r.sel));
  if (r.hide.size) p.set("hide", [...r.hide].sort().join(","));
  if (!r.ind) p.set("ind", "0");
  if (r.path) p.set("path", "1");
  if (r.level !== (r.ind ? "all" : "direct")) p.set("level", r.level);
  if (r.stmt) p.set("stmt", r.stmt);
  if (r.limit !== LINEAGE_LIMIT) p.set("limit", String(r.limit));
  if (r.group !== "db") p.set("group", r.group);
  const q = p.toString().replace(/%2C/g, ",").replace(/%3A/g, ":");
  return `#/node/${r.id}${q ? `?${q}` : ""}`;
}

function go(changes, replace = false) {
  const next = { ...route, ...changes };
  const hash = hashOf(next);
  if (hash === location.hash) return sync();
  // pushState fires no hashchange: sync now, so that `settled()` covers this change.
  if (replace) history.replaceState(null, "", hash);
  else history.pushState(null, "", hash);
  return sync();
}

// ---------------------------------------------------------------- notices and status

function status(text) {
  $("status").textContent = text || "";
}

// Every notice of a view in one line (the most serious kind colours it), so that caps and
// fan-outs never stack banners over the graph.
function notices(list) {
  if (!list.length) return fill($("notices"));
  const rank = { error: 3, warn: 2, info: 1 };
  const kind = list.reduce((a, [k]) => (rank[k] > rank[a] ? k : a), "info");
  const parts = [];
  list.forEach(([k, text, ...extra], i) => {
    if (i) parts.push(h("span", { class: "sep" }, " · "));
    parts.push(h("span", { "data-notice": k }, text), ...extra);
  });
  fill($("notices"), h("div", { class: `banner ${kind} merged` }, ...parts));
}
// ---------------------------------------------------------------- syncing the page with the URL

let syncing = Promise.resolve();
function sync() {
  syncing = syncing.then(doSync).catch((err) => {
    status("");
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return; // the token form is up
    console.error(err);
    notices([["error", err.message || String(err)]]);
  });
  return syncing;
}

async function doSync() {
  Object.assign(route, parseHash());
  $("asof").value = route.asof ? toLocalInput(route.asof) : "";
  if (route.view === "home") {
    $("view").hidden = true;
    $("home").hidden = false;
    await showHome();
    return;
  }
  $("home").hidden = true;
  $("view").hidden = false;
  controlsFromRoute();

  const key = `${route.id}|${route.dir}|${route.depth}|${route.asof}|${route.limit}`;
  if (key !== data.lineageKey) {
    status("loading lineage…");
    const depth = route.depth === "all" ? ALL_DEPTH : route.depth;
    data.lineage = await api.lineage(`#${route.id}`, route.dir, depth, route.asof, route.limit);
    data.lineageKey = key;
    ui.shown.clear();
    ui.pinned.clear();
    ui.unfolded.clear();
    ui.fitPending = true;
    ui.selectedNode = null;
  }
  if (data.columnsAsOf !== route.asof) {
    data.columns.clear();
    data.fieldEdges.clear();
    data.fieldParent.clear();
    data.columnsTruncated = false;
    data.columnsAsOf = route.asof;
  }
  const drawnIds = new Set(data.lineage.nodes.map((n) => n.id));
  drawnIds.add(data.lineage.root.id);
  const missing = [...route.exp].filter((id) => drawnIds.has(id) && !data.columns.has(id));
  if (missing.length) {
    status("loading columns…");
    const r = await api.columns(missing, route.asof);
    for (const dc of r.datasets) {
      data.columns.set(dc.dataset.id, dc);
      for (const f of dc.fields) data.fieldParent.set(f.id, dc.dataset.id);
    }
    for (const p of r.peers) if (p.parent_id !== null) data.fieldParent.set(p.id, p.parent_id);
    for (const e of r.edges) data.fieldEdges.set(e.id, e);
    data.columnsTruncated = data.columnsTruncated || r.truncated;
    data.columnLoads++;
  }
  const pathsKey = route.sel === null ? null : `${route.sel}|${route.level}|${route.asof}`;
  if (pathsKey !== data.pathsKey) {
    data.paths = data.origin = data.impact = data.drawnPath = data.localPath = null;
    data.pathsKey = pathsKey;
    $("graph").dataset.pathFrom = $("graph").dataset.pathAgrees = "";
    if (pathsKey) {
      status("tracing the column…");
      preselect(route.sel);
      // drawn at once from the view's column index when the walk stays inside it
      const local = localPaths(route.sel, route.level);
      if (local?.complete) {
        data.drawnPath = local;
        $("graph").dataset.pathFrom = "page";
        draw();
        performance.mark("headwater:local-path");
      }
      const field = `#${route.sel}`;
      // all three asked at once; the paths are drawn when they come, the lists of the side panel
      // (the slower answers) are filled in after
      const lists = Promise.all([
        api.fieldOrigin(field, route.level, route.asof),
        api.fieldImpact(field, route.level, route.asof),
      ]);
      lists.catch(() => {}); // a failure is shown by columnLists, once the paths are drawn
      const paths = await api.fieldPaths(field, route.level, route.asof);
      data.paths = paths;
      for (const side of [paths.upstream, paths.downstream]) {
        for (const n of side.nodes) if (n.parent_id !== null) data.fieldParent.set(n.id, n.parent_id);
      }
      if (paths.field.parent_id !== null) data.fieldParent.set(paths.field.id, paths.field.parent_id);
      // the store's answer stays the truth: it replaces a drawn walk that differs from it
      const agrees = data.drawnPath !== null && samePaths(data.drawnPath, paths);
      $("graph").dataset.pathAgrees = data.localPath ? String(samePaths(data.localPath, paths)) : "";
      if (!agrees) {
        if (data.drawnPath) data.pathVersion++;
        data.drawnPath = paths;
        $("graph").dataset.pathFrom = "store";
      }
      track(columnLists(pathsKey, lists));
    }
  }
  status("");
  draw();
  loadIndex();
  await details();
  await statementDialog();
}

function controlsFromRoute() {
  for (const b of $("direction").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", b.dataset.dir === route.dir ? "true" : "false");
  }
  $("depth").value = String(route.depth);
  $("indirect").checked = route.ind;
  $("level").value = route.level;
  $("path-only").checked = route.path;
}

// The group a card is drawn in: its catalog, its catalog.database, or a property's value (a dbt
// folder, a layer); jobs and groups of jobs are in none.
function groupOf(node, by) {
  if (!expandable(node) || by === "none") return null;
  if (by.startsWith("p:")) {
    const v = node.properties?.[by.slice(2)];
    return v === undefined || v === null || v === "" ? null : String(v);
  }
  const parts = node.name.split(".");
  if (parts.length < 2) return null;
  return by === "catalog" ? (parts.length > 2 ? parts[0] : null) : parts.slice(0, -1).join(".");
}

// The first dotted parts all of `names` share ("internal." of internal.tpcds and internal.rpt).
function commonPrefix(names) {
  if (names.length < 2) return "";
  let parts = names[0].split(".").slice(0, -1);
  for (const n of names) {
    const p = n.split(".");
    let k = 0;
    while (k < parts.length && k < p.length - 1 && parts[k] === p[k]) k++;
    parts = parts.slice(0, k);
  }
  return parts.length ? `${parts.join(".")}.` : "";
}

// The "group" control: none, catalog, database, and every property the drawn datasets carry.
function groupControl(L) {
  const keys = new Set();
  for (const n of L.nodes) if (expandable(n)) for (const k of Object.keys(n.properties || {})) keys.add(k);
  if (route.group.startsWith("p:")) keys.add(route.group.slice(2));
  const options = [["none", "none"], ["catalog", "catalog"], ["db", "database"], ...[...keys].sort().map((k) => [`p:${k}`, k])];
  const sel = $("group-by");
  const want = options.map(([v]) => v).join("|");
  if (sel.dataset.options !== want) {
    fill(sel, ...options.map(([v, label]) => h("option", { value: v }, label)));
    sel.dataset.options = want;
  }
  sel.value = route.group;
}

// ---------------------------------------------------------------- drawing

const graph = new GraphView($("graph"), {
  onToggle: (id) => toggleExpand(id),
  onField: (fieldId) => {
    ui.selectedNode = null;
    go({ sel: route.sel === fieldId ? null : fieldId, stmt: null });
  },
  onNode: (id) => {
    ui.selectedNode = ui.selectedNode === id ? null : id;
    if (route.sel !== null) go({ sel: null });
    else {
      applyHighlight();
      details();
    }
  },
  onNodeOpen: (id) => openNode(id),
  onStub: (id) => openStub(id),
  onGroup: (id) => unfold(id),
  onMoreColumns: (id) => {
    ui.allRows.add(id);
    draw();
  },
  onBackground: () => {
    hideTooltip(true);
    if (ui.selectedNode !== null) {
      ui.selectedNode = null;
      applyHighlight();
      details();
    }
  },
  onEdgeEnter: (g, ev) => showTooltip(g, ev),
  onEdgeLeave: () => hideTooltip(false),
  onEdgeClick: (g, ev) => showTooltip(g, ev, true),
  onPanStart: () => hideTooltip(true),
});

// A "more" node: up to FAN_OUT hidden neighbours are drawn at once; behind more of them it opens a
// searchable list to pick from.
function openStub(id) {
  const stub = ui.scene.stubs.find((s) => s.id === id);
  if (!stub) return;
  if (stub.hidden <= FAN_OUT) return showMore(id);
  const anchor = ui.scene.view.nodes.find((n) => n.id === stub.anchor) || data.lineage.root;
  openMoreList(stub, `${stub.hidden} more ${stub.side === "up" ? "inputs" : "outputs"} of ${anchor.short}`);
}

function openMoreList(stub, title) {
  const dlg = $("more-list");
  const input = $("more-filter");
  $("more-title").textContent = title;
  const pick = (n) => {
    dlg.close();
    ui.pinned.add(n.id);
    draw();
    graph.centerOn(n.id);
  };
  const paint = () => {
    const q = input.value.trim().toLowerCase();
    const hits = stub.rest.filter((n) => !q || displayName(n).toLowerCase().includes(q) || n.name.toLowerCase().includes(q));
    fill($("more-items"),
      ...hits.slice(0, 200).map((n) =>
        h("li", {}, h("button", { type: "button", class: "more-item", "data-id": n.id, onclick: () => pick(n) },
          badge(n.type, TYPE_COLOURS[n.type]), " ", displayName(n)))),
      hits.length > 200 ? h("li", { class: "muted" }, `… ${hits.length - 200} more: type to narrow`) : null,
      hits.length ? null : h("li", { class: "muted" }, "no match"),
    );
    $("more-count").textContent = `${hits.length} of ${stub.rest.length}`;
  };
  input.value = "";
  input.oninput = paint;
  $("more-next").textContent = `draw the next ${Math.min(FAN_OUT, stub.hidden)}`;
  $("more-next").onclick = () => {
    dlg.close();
    showMore(stub.id);
  };
  paint();
  if (!dlg.open) dlg.showModal();
  input.focus();
}

// Unfold a group of writers: its jobs are drawn one by one (FAN_OUT at a time, as any neighbours).
function unfold(groupId) {
  const g = ui.scene.view.nodes.find((n) => n.id === groupId);
  if (!g) return;
  ui.unfolded.add(g.anchor);
  draw();
  graph.centerOn(g.anchor);
}

// Show the next FAN_OUT neighbours behind a "more" node, and keep that node (or the last one shown) in view.
function showMore(id) {
  const stub = ui.scene.stubs.find((s) => s.id === id);
  if (!stub) return;
  ui.shown.set(stub.key, (ui.shown.get(stub.key) ?? FAN_OUT) + FAN_OUT);
  draw();
  graph.centerOn(ui.scene.stubs.some((s) => s.id === id) ? id : stub.anchor);
}

function rowsOf(datasetId) {
  if (!route.exp.has(datasetId)) return null;
  const dc = data.columns.get(datasetId);
  if (!dc) return [];
  return ui.allRows.has(datasetId) ? dc.fields : dc.fields.slice(0, ROW_LIMIT);
}

function draw() {
  const L = data.lineage;
  const key = JSON.stringify([
    data.lineageKey, [...route.hide].sort(), [...ui.shown], [...ui.pinned], [...ui.unfolded], [...route.exp].sort(), [...ui.allRows].sort(),
    [...route.exp].filter((id) => data.columns.has(id)).length, data.fieldEdges.size, data.columnLoads, route.ind,
    route.path && data.drawnPath ? [data.drawnPath.field.id, data.pathVersion] : null, route.group,
  ]);
  if (key === ui.sceneKey && ui.scene) {
    applyHighlight();
    centerIfPending();
    return;
  }
  ui.sceneKey = key;
  const started = performance.now();
  const view = pathOnly(buildView(L, route.hide, ui.shown, { pinned: ui.pinned, unfolded: ui.unfolded }));
  const rowIndex = new Map();
  const items = [];
  for (const n of view.nodes) {
    const rows = expandable(n) ? rowsOf(n.id) : null;
    const total = rows ? data.columns.get(n.id)?.fields.length ?? 0 : 0;
    const extra = rows && total > rows.length ? total - rows.length : 0;
    if (rows) rows.forEach((f, k) => rowIndex.set(f.id, k));
    items.push({
      id: n.id,
      node: n,
      kind: "node",
      rows,
      extraRow: extra,
      expanded: !!rows,
      loading: rows && !data.columns.has(n.id),
      root: n.id === view.rootId,
      ...nodeSize(n, rows, extra),
    });
  }
  for (const s of view.stubs) items.push({ id: s.id, kind: "stub", stub: s, ...nodeSize({ kind: "stub" }) });
  const edges = [...view.edges];
  for (const s of view.stubs) {
    edges.push(s.side === "up"
      ? { id: `${s.id}:e`, source: s.id, target: s.anchor, type: "MORE", ids: [] }
      : { id: `${s.id}:e`, source: s.anchor, target: s.id, type: "MORE", ids: [] });
  }
  const groups = new Map(items.map((it) => [it.id, it.node ? groupOf(it.node, route.group) : null]));
  const distinct = new Set([...groups.values()].filter((g) => g !== null));
  // a catalog every group shares is not repeated on every box (internal.tpcds -> tpcds)
  const shared = commonPrefix([...distinct]);
  if (shared) for (const [id, g] of groups) if (g !== null) groups.set(id, g.slice(shared.length));
  const lay = layeredLayout({
    // grouping shows when there are two groups or more
    nodes: items.map((it) => ({ id: it.id, width: it.width, height: it.height, group: distinct.size > 1 ? groups.get(it.id) : null })),
    edges: edges.map((e) => ({ id: e.id, source: e.source, target: e.target })),
  });
  for (const it of items) it.box = lay.nodes.get(it.id);
  // Dataset-level edges meet an expanded card at its header, not halfway down its columns.
  const boxes = new Map(items.map((it) => [it.id, it]));
  const attach = (id, p) => {
    const it = boxes.get(id);
    return it && it.expanded ? { x: p.x, y: it.box.y + HEADER / 2 } : p;
  };
  const routeOf = (e) => {
    const pts = lay.edges.get(e.id);
    if (!pts) return pts;
    const out = pts.slice();
    out[0] = attach(e.source, out[0]);
    out[out.length - 1] = attach(e.target, out[out.length - 1]);
    return out;
  };
  const drawn = new Set(view.nodes.map((n) => n.id));
  const shownRows = new Map();
  const rowsShown = (ds) => {
    if (!shownRows.has(ds)) shownRows.set(ds, new Set((rowsOf(ds) || []).map((f) => f.id)));
    return shownRows.get(ds);
  };
  const cols = columnEdges(data.fieldEdges, data.fieldParent, drawn, rowsShown, route.ind);
  const scene = {
    view,
    nodes: items,
    edges: edges.map((e) => ({ edge: e, points: routeOf(e) })),
    stubs: view.stubs,
    columnEdges: cols.edges,
    rowIndex: (_ds, fieldId) => rowIndex.get(fieldId) ?? 0,
    width: lay.width,
    height: lay.height,
    drawn,
    edgeByEnds: new Map(view.edges.map((e) => [`${e.source}>${e.target}`, e])),
    crossings: lay.crossings,
    groups: lay.groups,
    map: mapOf(items, edges, groups),
  };
  ui.scene = scene;
  graph.render(scene);
  paintDiff(graph, scene, data.fieldParent, route.ind);
  $("graph").dataset.nodes = String(view.nodes.length);
  $("graph").dataset.crossings = String(lay.crossings);
  $("graph").dataset.drawMs = String(Math.round(performance.now() - started));
  performance.mark("headwater:drawn");
  applyHighlight();

  const root = L.root;
  fill($("root-type"), badge(root.type, TYPE_COLOURS[root.type]));
  $("root-name").textContent = root.name;
  $("root-name").title = root.name;
  document.title = `${root.short} · headwater`;
  typeFilter(L);
  groupControl(L);

  const list = [];
  if (L.truncated && (!L.cut_by || L.cut_by.includes("max_nodes"))) { // a depth cut is said below
    list.push(["warn", `Partial graph: the store stopped walking at its node cap — ${L.total_nodes} nodes found so far. Lower the depth or pick a narrower node.`]);
  }
  if (L.total_nodes > L.nodes.length) {
    list.push(["warn", `Truncated answer: showing the first ${L.nodes.length} of ${L.total_nodes} nodes (page limit ${route.limit}).`]);
  }
  const hiddenBehind = view.stubs.reduce((a, s) => a + s.hidden, 0);
  if (hiddenBehind) {
    const more = view.stubs.slice(0, 3).map((st) =>
      h("button", { type: "button", class: "more", "data-stub": st.id, onclick: () => openStub(st.id) },
        `${st.hidden > FAN_OUT ? "search" : "show"} ${st.hidden} more ${st.side === "up" ? "inputs" : "outputs"} of ${view.nodes.find((n) => n.id === st.anchor)?.short ?? st.anchor}`));
    list.push(["info", `Large fan-out: ${hiddenBehind} neighbours are folded behind “more” nodes (first ${FAN_OUT} shown). `, ...more]);
  }
  if (L.more_at_depth > 0 && route.depth !== "all") {
    // the depth cut nodes off: say how many, and offer the depth that reaches them (issue 36 item 1)
    const need = L.depth_needed && L.depth_needed <= 5 ? L.depth_needed : "all";
    const more = `${L.more_at_depth >= 1000 ? "1,000+" : L.more_at_depth} more node${L.more_at_depth === 1 ? "" : "s"}`;
    list.push(["info", `${more} beyond depth ${route.depth}. `,
      h("button", { type: "button", class: "more deeper", onclick: () => { ui.fitPending = true; go({ depth: need }); } },
        need === "all" ? "show every depth" : `show depth ${need}`)]);
  }
  if (data.columnsTruncated) list.push(["warn", "Column edges truncated: the answer hit its cap; some column edges are missing."]);
  if (cols.offscreen && route.exp.size) {
    list.push(["info", `${cols.offscreen} column edges lead to datasets outside this view.`]);
  }
  if (route.asof) list.push(["info", `Showing the graph as it was at ${new Date(route.asof).toLocaleString()}.`]);

  if (ui.fitPending) {
    ui.fitPending = false;
    graph.fit(view.rootId, { UPSTREAM: 0.8, DOWNSTREAM: 0.2 }[route.dir] ?? 0.5);
  }
  if (ui.rowsCheck) {
    ui.rowsCheck = false;
    const tooSmall = rowsTooSmall(view.rootId);
    if (tooSmall) list.push(tooSmall);
  }
  notices(list);
  centerIfPending();
}

// The view's map (drawn zoomed out when the view is too large to read whole): its cards by the
// grouping picked, by database when none is.
function mapOf(items, edges, groups) {
  let by = groups;
  if (route.group === "none") {
    by = new Map(items.map((it) => [it.id, it.node ? groupOf(it.node, "db") : null]));
    const shared = commonPrefix([...new Set([...by.values()].filter((g) => g !== null))]);
    if (shared) for (const [id, g] of by) if (g !== null) by.set(id, g.slice(shared.length));
  }
  const map = clusterMap(items, edges, (it) => by.get(it.id) ?? null, expandable);
  const label = { none: "database", db: "database", catalog: "catalog" }[route.group] ?? route.group.slice(2);
  map.title = `${map.title} by ${label}, zoomed out: click a group or zoom into it to open it`;
  return map;
}

// After "expand all": columns drawn below ROW_MIN_PX on screen cannot be read. Say so, and offer
// a zoom at which they can (around the root) and the path-only view of a selected column.
function rowsTooSmall(rootId) {
  const px = ROW_FONT_PX * graph.t.k;
  if (!route.exp.size || px >= ROW_MIN_PX) return null;
  const zoom = h("button", { type: "button", id: "rows-zoom", onclick: () => {
    graph.t.k = ROW_MIN_PX / ROW_FONT_PX;
    graph.centerOn(rootId);
  } }, "zoom to read them");
  const path = route.sel !== null && !route.path
    ? h("button", { type: "button", id: "rows-path-only", onclick: () => {
      ui.fitPending = true;
      go({ path: true });
    } }, "path only")
    : h("span", {}, "or click a column and pick path only");
  const collapse = h("button", { type: "button", onclick: () => go({ exp: new Set() }, true) }, "collapse all");
  return ["warn", `Too large to read its columns: at the zoom that fits this view, they would be ${px.toFixed(1)} px (drawn as bars). `,
    zoom, " ", path, " ", collapse];
}

// "path only": with a column selected, the view keeps the datasets that hold a column of its paths
// and the jobs of those paths (the root always), and the edges between them.
function pathOnly(view) {
  const P = data.drawnPath;
  if (!route.path || !P) return view;
  const keep = new Set([view.rootId]);
  for (const f of [P.field.id, ...P.upstream.nodes.map((n) => n.id), ...P.downstream.nodes.map((n) => n.id)]) {
    const ds = data.fieldParent.get(f);
    if (ds !== undefined) keep.add(ds);
  }
  for (const e of [...P.upstream.edges, ...P.downstream.edges]) {
    if (e.job_id !== null && e.job_id !== undefined) keep.add(view.folded?.get(e.job_id) ?? e.job_id);
    for (const end of [e.source, e.target]) {
      const ds = data.fieldParent.get(end);
      if (ds !== undefined) keep.add(ds);
    }
  }
  return {
    ...view,
    nodes: view.nodes.filter((n) => keep.has(n.id)),
    edges: view.edges.filter((e) => keep.has(e.source) && keep.has(e.target)),
    stubs: [],
  };
}

// The view's column index, asked for once per view after its first draw (not awaited by it); a
// selection walks its paths over it (paths.js).
function loadIndex() {
  const key = data.lineageKey;
  if (data.indexKey === key) return;
  data.indexKey = key;
  data.index = null;
  const ids = new Set(data.lineage.nodes.filter(expandable).map((n) => n.id));
  if (expandable(data.lineage.root)) ids.add(data.lineage.root.id);
  if (!ids.size) return;
  $("graph").dataset.index = "";
  track(api.columnIndex([...ids], route.asof).then((r) => {
    if (data.indexKey !== key || r.truncated) return;
    data.index = buildIndex(r);
    $("graph").dataset.index = String(r.total_edges);
  }));
}

// The paths of a field walked over the view's index: null without one (not loaded yet, or of
// another view); the fields reached get their datasets.
function localPaths(fieldId, level) {
  if (!data.index || data.indexKey !== data.lineageKey || !ui.scene) return null;
  const P = walkPaths(data.index, fieldId, level);
  data.localPath = P;
  if (!P.complete) return P;
  for (const side of [P.upstream, P.downstream]) {
    for (const n of side.nodes) if (n.parent_id !== null) data.fieldParent.set(n.id, n.parent_id);
  }
  if (P.field.parent_id !== null) data.fieldParent.set(P.field.id, P.field.parent_id);
  return P;
}

// The origin and impact lists of the selected column, filled into the side panel when they come.
async function columnLists(pathsKey, lists) {
  let origin;
  let impact;
  try {
    [origin, impact] = await lists;
  } catch (err) {
    if (data.pathsKey === pathsKey) notices([["error", `origin and impact lists: ${err.message || err}`]]);
    return;
  }
  if (data.pathsKey !== pathsKey) return;
  Object.assign(data, { origin, impact });
  await details();
}

// At a click, before the store answers: the column's row and its drawn column edges are marked.
function preselect(fieldId) {
  if (!ui.scene) return;
  const drawn = new Set(ui.scene.columnEdges.map((c) => c.edge.id));
  const hl = { ...highlightSets(), root: fieldId };
  for (const e of data.fieldEdges.values()) {
    if (!drawn.has(e.id) || !route.ind && e.dependency === "INDIRECT") continue;
    if (e.target === fieldId) hl.edgesUp.add(e.id);
    if (e.source === fieldId) hl.edgesDown.add(e.id);
  }
  graph.highlight(hl);
  highlighted = null;
  performance.mark("headwater:preselect");
}

function centerIfPending() {
  if (ui.centerPending !== null) {
    graph.centerOn(ui.centerPending);
    ui.centerPending = null;
  }
}

function highlightSets() {
  const hl = {
    root: null,
    up: new Set(),
    down: new Set(),
    edgesUp: new Set(),
    edgesDown: new Set(),
    nodes: new Set(),
    flowEdges: new Set(),
    badges: new Map(),
    selectedNode: ui.selectedNode,
  };
  const P = data.drawnPath;
  const scene = ui.scene;
  if (!P || !scene) return hl;
  hl.root = P.field.id;
  P.upstream.nodes.forEach((n) => hl.up.add(n.id));
  P.downstream.nodes.forEach((n) => hl.down.add(n.id));
  const drawnCols = new Set(scene.columnEdges.map((c) => c.edge.id));
  const edgeSides = [[P.upstream.edges, hl.edgesUp], [P.downstream.edges, hl.edgesDown]];
  for (const [list, set] of edgeSides) for (const e of list) if (drawnCols.has(e.id)) set.add(e.id);
  const fieldsOnPath = [P.field.id, ...hl.up, ...hl.down];
  for (const f of fieldsOnPath) {
    const ds = data.fieldParent.get(f);
    if (ds === undefined || !scene.drawn.has(ds)) continue;
    hl.nodes.add(ds);
    if (!route.exp.has(ds) || !(rowsOf(ds) || []).some((r) => r.id === f)) {
      hl.badges.set(ds, (hl.badges.get(ds) || 0) + 1);
    }
  }
  for (const e of [...P.upstream.edges, ...P.downstream.edges]) {
    const ds = data.fieldParent.get(e.source);
    const dt = data.fieldParent.get(e.target);
    const j = scene.drawn.has(e.job_id) ? e.job_id : scene.view.folded?.get(e.job_id) ?? e.job_id;
    const viaJob = j !== null && scene.drawn.has(j);
    if (viaJob) {
      const a = scene.edgeByEnds.get(`${ds}>${j}`);
      const b = scene.edgeByEnds.get(`${j}>${dt}`);
      if (a && b && scene.drawn.has(ds) && scene.drawn.has(dt)) {
        hl.nodes.add(j);
        hl.flowEdges.add(a.id);
        hl.flowEdges.add(b.id);
      }
    }
    const direct = scene.edgeByEnds.get(`${ds}>${dt}`);
    if (direct) hl.flowEdges.add(direct.id);
  }
  return hl;
}

// What the last highlight was drawn for: the same scene, path and selection are not marked again
// (the store's answer agreeing with the page's walk changes nothing on screen).
let highlighted = null;
function applyHighlight() {
  const what = [ui.scene, data.drawnPath, ui.selectedNode, route.sel];
  if (!highlighted || what.some((x, k) => x !== highlighted[k])) {
    highlighted = what;
    graph.highlight(highlightSets());
    if (data.drawnPath) performance.mark("headwater:highlight");
  }
  $("graph").dataset.selected = route.sel === null ? "" : String(route.sel);
}

function toggleExpand(id) {
  const exp = new Set(route.exp);
  if (exp.has(id)) exp.delete(id);
  else exp.add(id);
  go({ exp }, true);
}

function openNode(id) {
  go({ view: "node", id, exp: new Set(), sel: null, stmt: null });
}

// Work started outside `sync` (a jump resolves a name first) joins the chain `settled()` waits for.
function track(promise) {
  syncing = Promise.all([syncing, promise.catch(() => {})]).then(() => undefined);
  return promise;
}

// Jump to a node from a list: stay in this view when it is drawn, else centre the view on it.
function jumpTo(target) {
  return track(jumpToNow(target));
}

async function jumpToNow(target) {
  let node = target;
  if (node.id === undefined) {
    try {
      node = await api.resolve(`${target.type}:${target.name}`);
    } catch (err) {
      notices([["error", `cannot open ${target.name}: ${err.message}`]]);
      return;
    }
  }
  const drawn = ui.scene ? ui.scene.drawn : new Set();
  if (node.type === "FIELD") {
    const ds = node.parent_id;
    if (drawn.has(ds)) {
      ui.centerPending = ds;
      go({ exp: new Set([...route.exp, ds]), sel: node.id, stmt: null });
    } else {
      go({ view: "node", id: ds, exp: new Set([ds]), sel: node.id, stmt: null });
    }
    return;
  }
  if (drawn.has(node.id)) {
    ui.selectedNode = node.id;
    graph.centerOn(node.id);
    if (route.sel !== null || route.stmt) go({ sel: null, stmt: null });
    else {
      applyHighlight();
      details();
    }
    return;
  }
  openNode(node.id);
}

function typeFilter(L) {
  const counts = new Map();
  for (const n of L.nodes) counts.set(n.type, (counts.get(n.type) || 0) + 1);
  const box = $("type-filter");
  fill(box, 
    ...NODE_TYPES.filter((t) => counts.has(t) || route.hide.has(t)).map((t) =>
      h("label", { class: "chip" },
        h("input", {
          type: "checkbox",
          value: t,
          checked: !route.hide.has(t),
          onchange: (ev) => {
            const hide = new Set(route.hide);
            if (ev.target.checked) hide.delete(t);
            else hide.add(t);
            ui.fitPending = true;
            go({ hide });
          },
        }),
        h("span", { class: "dot", style: `background:${TYPE_COLOURS[t]}` }),
        ` ${t} (${counts.get(t) || 0})`,
      ),
    ),
  );
  const hidden = route.hide.size ? ` · ${route.hide.size} hidden` : "";
  $("types").querySelector("summary").textContent = `node types${hidden}`;
}

// ---------------------------------------------------------------- side panel

let detailsToken = 0;
async function details() {
  const box = $("tab-details");
  const token = ++detailsToken;
  const drawn = ui.scene ? ui.scene.drawn : new Set();
  const actions = {
    open: (n) => openNode(n.id),
    jump: (n) => jumpTo(n),
    expand: (n) => {
      if (!route.exp.has(n.id)) toggleExpand(n.id);
    },
    impact: (n) => openImpact(n),
    clear: () => go({ sel: null }),
    expandPath: () => {
      const exp = new Set(route.exp);
      for (const d of data.paths.datasets) if (drawn.has(d.id)) exp.add(d.id);
      go({ exp });
    },
    jobStatements: (job) => go({ stmt: `j${job.id}` }),
  };
  if (data.paths) {
    renderFieldDetails(box, {
      field: data.paths.field,
      origin: data.origin,
      impact: data.impact,
      paths: data.paths,
      drawn,
      includeIndirect: route.ind,
      level: route.level,
      actions,
    });
    setImpactTarget(data.paths.field);
    return;
  }
  const id = ui.selectedNode ?? data.lineage.root.id;
  const node = data.lineage.nodes.find((n) => n.id === id) || data.lineage.root;
  const [summary, job] = await Promise.all([
    api.summary(`#${id}`, route.asof).catch(() => null),
    ["JOB", "PIPELINE", "PIPELINE_STEP"].includes(node.type) ? api.job(id, route.asof).catch(() => null) : null,
  ]);
  if (token !== detailsToken) return;
  renderNodeDetails(box, {
    node,
    summary,
    job,
    isRoot: id === data.lineage.root.id,
    drawn: drawn.has(id) && expandable(node) && !route.exp.has(id),
    actions,
  });
  setImpactTarget(node);
}

let impactTargetEdited = false;
function setImpactTarget(node) {
  if (impactTargetEdited) return;
  $("impact-target").value = node.name.includes(":") ? `#${node.id}` : node.name;
  $("impact-cols-label").hidden = node.type === "FIELD";
}

function openImpact(node) {
  impactTargetEdited = false;
  setImpactTarget(node);
  selectTab("impact");
  $("impact-run").focus();
}

function selectTab(name) {
  for (const b of document.querySelectorAll("[role=tab]")) b.setAttribute("aria-selected", b.dataset.tab === name ? "true" : "false");
  $("tab-details").hidden = name !== "details";
  $("tab-impact").hidden = name !== "impact";
}

async function runImpact(ev) {
  ev.preventDefault();
  const change = $("impact-change").value;
  const details = {};
  if (change === "SCHEMA_CHANGE") details.operation = $("impact-op").value;
  const cols = $("impact-cols").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (cols.length && !$("impact-cols-label").hidden) details.columns = cols;
  const out = $("impact-result");
  fill(out, h("p", { class: "muted" }, "analyzing…"));
  try {
    const result = await api.analyzeImpact({
      target: $("impact-target").value.trim(),
      change_type: change,
      details,
      as_of: route.asof,
      sample_size: 10,
    });
    renderImpact(out, result, (t) => jumpTo(t));
  } catch (err) {
    fill(out, 
      h("p", { class: "banner error" }, err.message),
      err.candidates ? h("ul", { class: "plain" }, err.candidates.map((c) => h("li", {}, c))) : null,
    );
  }
}

// ---------------------------------------------------------------- edge tooltip and statements

const tooltip = $("tooltip");
let tooltipTimer = null;
let tooltipPinned = false;
let tooltipFor = null;

function edgeOf(g) {
  if (g.dataset.kind === "cedge") {
    const find = (id) => data.fieldEdges.get(id) || findPathEdge(id);
    const e = find(Number(g.dataset.id));
    if (!e) return null;
    // Edges between the same two ports are drawn on top of each other: show them all.
    const others = (g.dataset.parallel || "").split(",").map(Number).filter((id) => id !== e.id).map(find);
    return { edge: e, detailId: e.id, ends: [nameOf(e.source), nameOf(e.target)], parallel: others.filter(Boolean) };
  }
  const ve = ui.scene.view.edges.find((e) => e.id === g.dataset.id);
  if (!ve) return null;
  const first = data.lineage.edges.find((e) => e.id === ve.ids[0]);
  if (!first) return null;
  const src = data.lineage.nodes.find((n) => n.id === ve.source);
  const dst = data.lineage.nodes.find((n) => n.id === ve.target);
  const ends = [src?.short ?? ve.source, dst?.short ?? ve.target];
  if (ve.type === "VIA") {
    const via = ve.via.map((id) => data.lineage.nodes.find((n) => n.id === id)?.short ?? id);
    return { edge: { ...first, type: `via ${via.join(", ")}`, expression: null }, detailId: first.id, ends };
  }
  return { edge: first, detailId: first.id, ends };
}

function findPathEdge(id) {
  const P = data.paths;
  if (!P) return null;
  return [...P.upstream.edges, ...P.downstream.edges].find((e) => e.id === id) || null;
}

function nameOf(fieldId) {
  for (const dc of data.columns.values()) {
    const f = dc.fields.find((x) => x.id === fieldId);
    if (f) return f.short;
  }
  return `#${fieldId}`;
}

async function showTooltip(g, ev, pin = false) {
  clearTimeout(tooltipTimer);
  const info = edgeOf(g);
  if (!info) return;
  tooltipPinned = pin || (tooltipPinned && tooltipFor === g.dataset.id);
  tooltipFor = g.dataset.id;
  const href = hashOf({ ...route, stmt: `e${info.detailId}` });
  const paint = (detail) => {
    fill(tooltip, ...tooltipContent(info.edge, detail, info.ends, href, info.parallel || []));
    tooltip.dataset.edge = String(info.detailId);
  };
  paint(data.edgeDetails.has(info.detailId) ? data.edgeDetails.get(info.detailId) : undefined);
  tooltip.hidden = false;
  const pad = 14;
  const w = tooltip.offsetWidth;
  const hgt = tooltip.offsetHeight;
  const x = Math.min(window.innerWidth - w - 8, ev.clientX + pad);
  const y = ev.clientY + pad + hgt > window.innerHeight ? Math.max(8, ev.clientY - hgt - pad) : ev.clientY + pad;
  tooltip.style.left = `${x}px`;
  tooltip.style.top = `${y}px`;
  if (!data.edgeDetails.has(info.detailId)) {
    try {
      data.edgeDetails.set(info.detailId, await api.edge(info.detailId));
    } catch {
      data.edgeDetails.set(info.detailId, null);
    }
    if (tooltipFor === g.dataset.id && !tooltip.hidden) paint(data.edgeDetails.get(info.detailId));
  }
}

function hideTooltip(now) {
  clearTimeout(tooltipTimer);
  if (now) {
    tooltip.hidden = true;
    tooltipPinned = false;
    tooltipFor = null;
    return;
  }
  if (tooltipPinned) return;
  tooltipTimer = setTimeout(() => {
    tooltip.hidden = true;
    tooltipFor = null;
  }, 350);
}

tooltip.addEventListener("pointerenter", () => clearTimeout(tooltipTimer));
tooltip.addEventListener("pointerleave", () => hideTooltip(false));
tooltip.addEventListener("click", (ev) => {
  if (ev.target.closest("a")) hideTooltip(true);
});

async function statementDialog() {
  const dlg = $("statement");
  if (!route.stmt) {
    if (dlg.open) dlg.close();
    return;
  }
  const body = $("statement-body");
  fill(body, h("p", { class: "muted" }, "loading…"));
  if (!dlg.open) dlg.showModal();
  const kind = route.stmt[0];
  const id = Number(route.stmt.slice(1));
  try {
    if (kind === "e") {
      $("statement-title").textContent = `Statement behind edge #${id}`;
      const detail = data.edgeDetails.get(id) || (await api.edge(id));
      data.edgeDetails.set(id, detail);
      renderEdgeStatement(body, detail, (n) => jumpFromDialog(n));
    } else {
      $("statement-title").textContent = "Statements of the job";
      renderJobStatements(body, await api.job(id, route.asof), (n) => jumpFromDialog(n));
    }
  } catch (err) {
    fill(body, h("p", { class: "banner error" }, err.message));
  }
}

function jumpFromDialog(node) {
  $("statement").close();
  route.stmt = null;
  jumpTo(node);
}

$("statement").addEventListener("close", () => {
  if (route.stmt) go({ stmt: null }, true);
});

// ---------------------------------------------------------------- home

async function showHome() {
  document.title = "headwater · lineage explorer";
  const [stats, ov] = await Promise.all([api.stats(route.asof), api.overview(route.asof)]);
  fill($("home-stats"),
    ...[
      ["datasets", stats.nodes_by_type.DATASET || 0],
      ["columns", stats.nodes_by_type.FIELD || 0],
      ["jobs", stats.nodes_by_type.JOB || 0],
      ["column edges", stats.total_field_mappings],
      ["events", stats.events_recorded],
    ].map(([k, v]) => h("div", { class: "stat" }, h("b", {}, String(v)), h("span", {}, k))),
  );
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  fill($("home-list"),
    ...ov.databases.map((g) =>
      h("section", { class: "db-group", "data-db": g.name },
        h("h2", {}, g.name, h("span", { class: "muted" }, ` ${plural(g.total, "table")}`)),
        h("ul", { class: "plain" },
          g.datasets.map((d) =>
            h("li", {},
              h("a", { href: `#/node/${d.node.id}` }, badge(d.node.type, TYPE_COLOURS[d.node.type]), " ", d.node.short),
              h("span", { class: "degree muted", title: "statements that read or write it" }, ` ${plural(d.degree, "link")}`),
            ))),
        g.total > g.datasets.length ? h("p", { class: "muted" }, `… and ${g.total - g.datasets.length} more: use the search`) : null,
      )),
    ov.truncated ? h("p", { class: "muted" }, "… and more databases: use the search") : null,
    ov.databases.length ? null : h("p", { class: "muted" }, "The store is empty: record some lineage first (headwater ingest …)."),
  );
  fill($("home-recent"),
    ...ov.recent.map((r) =>
      h("li", {},
        h("a", { href: `#/node/${r.job.id}` }, displayName(r.job)),
        h("span", { class: "muted" }, ` ${fmtTime(r.event_time)}${r.status && r.status !== "COMPLETE" ? ` · ${r.status}` : ""}`),
      )),
    ov.recent.length ? null : h("li", { class: "muted" }, "nothing recorded yet"),
  );
}

// ---------------------------------------------------------------- controls

function toLocalInput(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

$("direction").addEventListener("click", (ev) => {
  const b = ev.target.closest("button[data-dir]");
  if (b) go({ dir: b.dataset.dir });
});
$("depth").addEventListener("change", (ev) => go({ depth: ev.target.value === "all" ? "all" : Number(ev.target.value) }));
$("indirect").addEventListener("change", (ev) => go({ ind: ev.target.checked, level: ev.target.checked ? "all" : "direct" }));
$("level").addEventListener("change", (ev) => go({ level: ev.target.value, ind: ev.target.value !== "direct" }));
const exportName = () => (route.sel !== null ? nameOf(route.sel) : data.lineage?.root.short || "lineage").replace(/[^\w.-]+/g, "_");
$("export-svg").addEventListener("click", () => {
  $("export-menu").open = false;
  graph.whole(() => exportSvg($("graph"), graph.bounds, exportName())); // every card, also the culled
});
$("export-png").addEventListener("click", () => {
  $("export-menu").open = false;
  track(graph.whole(() => exportPng($("graph"), graph.bounds, exportName()))); // copied before its first await
});
$("group-by").addEventListener("change", (ev) => go({ group: ev.target.value }, true));
$("path-only").addEventListener("change", (ev) => {
  ui.fitPending = true;
  go({ path: ev.target.checked });
});
$("asof").addEventListener("change", (ev) => {
  const v = ev.target.value;
  const iso = v ? new Date(v).toISOString() : null;
  if (route.view === "node") go({ asof: iso });
  else {
    route.asof = iso;
    showHome();
  }
});
$("asof-form").addEventListener("submit", (ev) => ev.preventDefault());
$("asof-now").addEventListener("click", () => {
  $("asof").value = "";
  if (route.view === "node") go({ asof: null });
});
$("expand-all").addEventListener("click", () => {
  const exp = new Set(route.exp);
  for (const n of ui.scene.view.nodes) if (expandable(n)) exp.add(n.id);
  ui.fitPending = true; // the expanded view, whole; then say whether its rows can be read
  ui.rowsCheck = true;
  go({ exp }, true);
});
$("collapse-all").addEventListener("click", () => go({ exp: new Set() }, true));
$("zoom-in").addEventListener("click", () => graph.zoomBy(1.25));
$("zoom-out").addEventListener("click", () => graph.zoomBy(0.8));
$("zoom-fit").addEventListener("click", () => graph.fit());
for (const b of document.querySelectorAll("[role=tab]")) b.addEventListener("click", () => selectTab(b.dataset.tab));
$("impact-form").addEventListener("submit", runImpact);
$("impact-target").addEventListener("input", () => (impactTargetEdited = true));
$("impact-change").addEventListener("change", (ev) => ($("impact-op-label").hidden = ev.target.value !== "SCHEMA_CHANGE"));
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape" && !$("statement").open && document.activeElement === document.body) {
    hideTooltip(true);
    if (route.sel !== null) go({ sel: null });
  }
});

setUnauthorizedHandler(() => {
  $("auth").hidden = false;
  $("auth-token").focus();
});
$("auth-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  setToken($("auth-token").value.trim());
  $("auth").hidden = true;
  data.lineageKey = null;
  sync();
});

initSearch({
  input: $("search-input"),
  typeSelect: $("search-type"),
  list: $("search-list"),
  box: $("search"),
  onOpen: (node) => {
    if (node.type === "FIELD" && node.parent_id !== null) {
      go({ view: "node", id: node.parent_id, exp: new Set([node.parent_id]), sel: node.id, stmt: null });
    } else openNode(node.id);
  },
});

renderLegend($("legend"), ["DATASET", "JOB", "EXTERNAL", "ENTITY", "REPORT"]);
graph.attachMinimap($("minimap"));
window.addEventListener("hashchange", sync);
// For debugging and the browser tests: the state, and a promise that settles when the page has caught up.
async function settled() {
  for (let s = null; s !== syncing; ) {
    s = syncing;
    await s;
  }
}
const diffMode = initDiff({
  input: $("diff-from"),
  asOf: () => route.asof,
  repaint: () => ui.scene && ((ui.sceneKey = null), draw()),
});
window.headwater = { route, data, ui, graph, settled, diff: diffMode };
sync();

