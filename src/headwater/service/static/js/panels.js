// Side panels, the legend, the edge tooltip and the statement dialog.

import { DIRECT_SUBTYPES, INDIRECT_SUBTYPES, SUBTYPE_COLOURS, TYPE_COLOURS, colourOf, displayName } from "./graph.js";
import { badge, dotted, fill, fmtTime, h } from "./dom.js";
import { exportList } from "./export.js";

const SEVERITY_CLASS = { LOW: "sev-low", MEDIUM: "sev-medium", HIGH: "sev-high", CRITICAL: "sev-critical" };

export function sevBadge(sev) {
  return h("span", { class: `sev ${SEVERITY_CLASS[sev] || ""}`, "data-severity": sev }, sev);
}

export function renderLegend(box, nodeTypes) {
  const line = (colour, dashed) => svgLine(colour, dashed);
  fill(box, 
    h("details", {
      open: localStorage.getItem("headwater.legend") === "open",
      ontoggle: (ev) => localStorage.setItem("headwater.legend", ev.target.open ? "open" : "closed"),
    },
      h("summary", {}, "legend"),
      h("div", { class: "legend-grid" },
        h("div", { class: "legend-head" }, "DIRECT (value flows)"),
        ...DIRECT_SUBTYPES.map((s) => h("div", { class: "legend-item" }, line(SUBTYPE_COLOURS[s], false), s)),
        h("div", { class: "legend-head" }, "INDIRECT (affects rows)"),
        ...INDIRECT_SUBTYPES.map((s) => h("div", { class: "legend-item" }, line(SUBTYPE_COLOURS[s], true), s)),
        h("div", { class: "legend-head" }, "nodes"),
        ...nodeTypes.map((t) =>
          h("div", { class: "legend-item" }, h("span", { class: "dot", style: `background:${TYPE_COLOURS[t]}` }), t),
        ),
        h("div", { class: "legend-item" }, line("#94a3b8", false), "dataset flow (READ / WRITE)"),
        h("div", { class: "legend-item" }, h("span", { class: "dot ring" }), "highlighted path"),
      ),
    ),
  );
}

function svgLine(colour, dashed) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "swatch");
  svg.setAttribute("width", 30);
  svg.setAttribute("height", 10);
  svg.setAttribute("aria-hidden", "true");
  const l = document.createElementNS(ns, "line");
  svg.appendChild(l);
  l.setAttribute("x1", 1);
  l.setAttribute("x2", 29);
  l.setAttribute("y1", 5);
  l.setAttribute("y2", 5);
  l.setAttribute("stroke", colour);
  l.setAttribute("stroke-width", 2.5);
  if (dashed) l.setAttribute("stroke-dasharray", "6 4");
  return svg;
}

const nodeLink = (node, onJump, label) =>
  h("a", { href: "#", class: "jump", "data-node": node.id, onclick: (ev) => (ev.preventDefault(), onJump(node)) },
    label || dotted(node.short, Infinity, node.name));

// ---------------------------------------------------------------- details of a node

// properties the store keeps for itself: a job's statement (shown in its own block) and the id of
// the event of a table's recorded DDL (StoreCatalog's pointer, meaningless to a reader)
const INTERNAL_PROPERTIES = new Set(["sql", "ddl_event"]);

export function renderNodeDetails(box, { node, summary, job, isRoot, drawn, actions }) {
  const rows = [];
  if (job) {
    const latest = job.statements[0];
    const ctx = latest?.context?.external_catalog_properties || {};
    const file = ctx["headwater.job.file"];
    rows.push(
      ["source", file ? `${file}${ctx["headwater.job.line"] ? `:${ctx["headwater.job.line"]}` : ""}` : "—"],
      ["last run", latest ? fmtTime(latest.event_time) : "—"],
      ["statements", job.total_statements],
      ["columns read", job.columns_read],
      ["columns written", job.columns_written],
    );
  } else if (summary) {
    rows.push(
      ["upstream", summary.upstream_count],
      ["downstream", summary.downstream_count],
      ["columns", summary.field_count],
      ["pipelines / jobs", summary.pipeline_count],
      ["last updated", fmtTime(summary.last_updated)],
    );
  }
  const props = Object.entries(node.properties || {}).filter(([k]) => !INTERNAL_PROPERTIES.has(k));
  fill(box, 
    h("div", { class: "panel-head" }, badge(node.type, TYPE_COLOURS[node.type]), h("h2", {}, displayName(node))),
    h("div", { class: "fullname" }, dotted(node.name)),
    h("div", { class: "actions" },
      !isRoot && h("button", { type: "button", onclick: () => actions.open(node) }, "open as centre"),
      drawn && actions.expand && h("button", { type: "button", onclick: () => actions.expand(node) }, "show columns"),
      h("button", { type: "button", onclick: () => actions.impact(node) }, "analyze impact"),
    ),
    rows.length ? h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])) : null,
    props.length ? h("dl", { class: "facts" }, props.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])) : null,
    job ? renderJobSummary(job, actions) : null,
    summary && summary.truncated ? h("p", { class: "warn" }, "These counts are partial: a cap was hit.") : null,
  );
}

function renderJobSummary(job, actions) {
  return h("section", { class: "job" },
    h("h3", {}, "Statements"),
    job.statements.length
      ? h("ul", { class: "plain" }, job.statements.map((s) =>
          h("li", {},
            h("span", { class: "muted" }, fmtTime(s.event_time)), " ",
            h("code", { class: "sql-line" }, (s.sql || "(no SQL recorded)").split("\n")[0].slice(0, 80)),
          )))
      : h("p", { class: "muted" }, "no statement recorded"),
    job.total_statements > job.statements.length ? h("p", { class: "muted" }, `${job.total_statements} in all`) : null,
    h("button", { type: "button", onclick: () => actions.jobStatements(job.job) }, "full SQL and query context"),
    h("h3", {}, "Reads"),
    h("ul", { class: "plain" }, job.inputs.map((n) => h("li", {}, nodeLink(n, actions.jump)))),
    h("h3", {}, "Writes"),
    h("ul", { class: "plain" }, job.outputs.map((n) => h("li", {}, nodeLink(n, actions.jump)))),
  );
}

// ---------------------------------------------------------------- details of a column

export function renderFieldDetails(box, { field, origin, impact, paths, drawn, includeIndirect, level, actions }) {
  const parentsOnPath = new Map(paths.datasets.map((d) => [d.id, d]));
  const outside = [...parentsOnPath.values()].filter((d) => !drawn.has(d.id));
  // origin and impact come after the paths (null until then)
  const originList = origin ? origin.origins.filter((o) => o.depth > 0) : [];
  const tracing = (id) => h("p", { class: "muted tracing", id }, "tracing…");
  fill(box, 
    h("div", { class: "panel-head" }, badge("FIELD", TYPE_COLOURS.FIELD), h("h2", {}, dotted(field.short))),
    h("div", { class: "fullname" }, dotted(field.name)),
    h("div", { class: "actions" },
      h("button", { type: "button", onclick: () => actions.expandPath() }, "expand datasets on path"),
      h("button", { type: "button", onclick: () => actions.impact(field) }, "analyze impact"),
      h("button", { type: "button", onclick: () => actions.clear() }, "clear"),
    ),
    h("p", { class: "muted" },
      `${paths.upstream.nodes.length} upstream and ${paths.downstream.nodes.length} downstream columns`,
      { direct: " (DIRECT only)", field: " (DIRECT, and its own CASE and window inputs)", all: " (DIRECT and INDIRECT)" }[level] ?? (includeIndirect ? " (DIRECT and INDIRECT)" : " (DIRECT only)"), "."),
    h("h3", { class: "up" }, "Comes from ", h("span", { class: "muted" }, `(origin, level ${level})`),
      listExports(originList, `${field.short}.origin`, "origin")),
    origin ? byDependency(originList, "origin-list", actions.jump, "no upstream column: this is an origin", COMES_FROM) : tracing("origin-pending"),
    origin?.truncated ? h("p", { class: "warn" }, `Partial: ${origin.total} origins, a cap was hit.`) : null,
    h("h3", { class: "down" }, "Feeds ", h("span", { class: "muted" }, "(impact)"),
      impact ? listExports(impact.impacted, `${field.short}.impact`, "impact") : null),
    impact ? byDependency(impact.impacted, "impact-list", actions.jump, "nothing downstream", FEEDS) : tracing("impact-pending"),
    impact && impact.total > impact.impacted.length ? h("p", { class: "muted" }, `${impact.total} in all`) : null,
    impact?.truncated ? h("p", { class: "warn" }, "Partial: a cap was hit.") : null,
    outside.length
      ? h("section", {},
          h("h3", {}, "Outside this view"),
          h("ul", { class: "plain" }, outside.map((d) => h("li", {}, nodeLink(d, actions.open)))),
        )
      : null,
    paths.upstream.truncated || paths.downstream.truncated
      ? h("p", { class: "warn" }, "The highlighted path is partial: a cap was hit.")
      : null,
  );
}

function listExports(list, name, what) {
  if (!list.length) return null;
  const button = (format) =>
    h("button", { type: "button", class: "mini", id: `${what}-${format}`, title: `the ${what} list as ${format.toUpperCase()}`, onclick: () => exportList(list, name, format) }, format.toUpperCase());
  return h("span", { class: "list-exports" }, button("csv"), button("json"));
}

// A list of origins or impacted columns: DIRECT ones (the value flows) first, then INDIRECT ones
// (they decide which rows), each group in the store's order (nearest first).
// Origin and impact say which way the value goes: it comes from its origins, it feeds its impact.
const COMES_FROM = ["DIRECT — the value comes from them", "INDIRECT — they decide which rows"];
const FEEDS = ["DIRECT — the value feeds them", "INDIRECT — it decides which of their rows"];

function byDependency(list, id, onJump, empty, [directTitle, indirectTitle]) {
  if (!list.length) return h("p", { class: "muted", id }, empty);
  const direct = list.filter((p) => p.dependency === "DIRECT");
  const indirect = list.filter((p) => p.dependency !== "DIRECT");
  const group = (items, title) =>
    items.length
      ? [h("h4", { class: "dep-head" }, `${title} (${items.length})`), h("ul", { class: "paths" }, items.map((p) => pathItem(p, onJump)))]
      : [];
  return h("div", { id, class: "dep-groups" },
    ...group(direct, directTitle),
    ...group(indirect, indirectTitle),
  );
}

function pathItem(p, onJump) {
  const types = p.types.map((t, k) =>
    h("span", { class: `ptype ${p.path[k] && p.path[k].dependency === "INDIRECT" ? "indirect" : ""}`, style: `--c:${SUBTYPE_COLOURS[t] || "#64748b"}` }, t));
  return h("li", { "data-field": p.field.id },
    nodeLink(p.field, onJump),
    h("span", { class: `dep ${p.dependency.toLowerCase()}` }, p.dependency),
    h("div", { class: "ptypes" }, types),
  );
}

// ---------------------------------------------------------------- impact analysis

export function renderImpact(box, result, onJump) {
  fill(box, 
    h("div", { class: "impact-head" },
      h("div", {}, "overall ", sevBadge(result.overall_severity)),
      h("div", {}, "risk ", h("b", { id: "impact-risk" }, result.risk_level)),
      h("div", {}, h("b", { id: "impact-total" }, String(result.total_affected_count)), " affected"),
    ),
    h("p", { class: "muted" },
      `${result.change_type} of ${result.target.short}`,
      result.details.operation ? ` (${result.details.operation})` : "",
      result.details.rules ? ` — rules: ${result.details.rules}` : ""),
    result.truncated ? h("p", { class: "warn" }, "Partial answer: a cap was hit while walking downstream.") : null,
    result.groups.length === 0 ? h("p", {}, "Nothing downstream is affected.") : null,
    h("div", { class: "groups" }, result.groups.map((g) =>
      h("section", { class: "group", "data-type": g.type },
        h("div", { class: "group-head" },
          badge(g.type, TYPE_COLOURS[g.type]), h("b", {}, ` ${g.count}`), " ", sevBadge(g.severity)),
        h("ul", { class: "plain samples" }, g.sample_node_ids.map((name) =>
          h("li", {},
            h("a", {
              href: "#",
              class: "jump",
              "data-name": name,
              onclick: (ev) => (ev.preventDefault(), onJump({ type: g.type, name })),
            }, dotted(name)),
          ))),
        g.count > g.sample_node_ids.length ? h("div", { class: "muted" }, `+${g.count - g.sample_node_ids.length} more`) : null,
      ))),
  );
}

// ---------------------------------------------------------------- tooltip

export function tooltipContent(edge, detail, ends, statementHref, parallel = []) {
  const kids = [];
  if (edge.type === "MAPS_TO") {
    kids.push(h("div", { class: "tt-head" },
      h("span", { class: "ptype", style: `--c:${colourOf(edge)}` }, edge.subtype || "MAPS_TO"),
      " ", h("span", { class: `dep ${String(edge.dependency).toLowerCase()}` }, edge.dependency),
      edge.masking ? h("span", { class: "dep masking" }, "masking") : null));
  } else {
    kids.push(h("div", { class: "tt-head" }, h("b", {}, edge.type)));
  }
  if (ends) kids.push(h("div", { class: "tt-ends" }, `${ends[0]} → ${ends[1]}`));
  if (edge.expression) kids.push(h("pre", { class: "tt-expr" }, edge.expression));
  if (edge.labels && edge.labels.length) kids.push(h("div", { class: "muted" }, `labels: ${edge.labels.join(", ")}`));
  if (parallel.length) {
    kids.push(h("div", { class: "tt-parallel" },
      h("div", { class: "muted" }, `also between these two columns (${parallel.length}):`),
      h("ul", { class: "plain" }, parallel.map((p) => h("li", { "data-edge": p.id },
        h("span", { class: `ptype ${p.dependency === "INDIRECT" ? "indirect" : ""}`, style: `--c:${colourOf(p)}` }, p.subtype),
        " ", h("code", {}, p.expression || ""))))));
  }
  if (detail === undefined) kids.push(h("div", { class: "muted" }, "loading statement…"));
  else if (detail) {
    if (detail.job) kids.push(h("div", { class: "tt-job" }, "job ", h("b", {}, detail.job.short)));
    const s = detail.statement;
    if (s) {
      kids.push(h("div", { class: "muted" }, `${s.kind} event · ${fmtTime(s.event_time)}`));
      if (s.sql) kids.push(h("pre", { class: "tt-sql" }, s.sql.split("\n").slice(0, 4).join("\n") + (s.sql.split("\n").length > 4 ? "\n…" : "")));
    }
    kids.push(h("a", { href: statementHref, class: "tt-link" }, "full SQL and query context →"));
  }
  kids.push(h("div", { class: "muted small" }, `valid from ${fmtTime(edge.valid_from)}${edge.valid_to ? ` to ${fmtTime(edge.valid_to)}` : ""}`));
  return kids;
}

// ---------------------------------------------------------------- statement dialog

export function renderEdgeStatement(box, detail, onJump) {
  const e = detail.edge;
  fill(box, 
    h("p", { class: "stmt-edge" },
      nodeLink(detail.source, onJump, detail.source.short), " → ", nodeLink(detail.target, onJump, detail.target.short),
      "  ", h("span", { class: "ptype", style: `--c:${colourOf(e)}` }, e.subtype || e.type),
      e.dependency ? h("span", { class: `dep ${e.dependency.toLowerCase()}` }, e.dependency) : null),
    e.expression ? h("pre", { class: "tt-expr" }, e.expression) : null,
    detail.job
      ? h("p", {}, "made by job ", nodeLink(detail.job, onJump, detail.job.short), h("span", { class: "muted" }, ` (${detail.job.name})`))
      : null,
    detail.statement ? statementBlock(detail.statement) : h("p", { class: "muted" }, "No recorded event for this edge."),
  );
}

export function renderJobStatements(box, job, onJump) {
  fill(box, 
    h("p", {}, "job ", nodeLink(job.job, onJump, job.job.short), h("span", { class: "muted" }, ` (${job.job.name})`)),
    job.statements.length ? job.statements.map(statementBlock) : h("p", { class: "muted" }, "No recorded statement."),
    job.total_statements > job.statements.length
      ? h("p", { class: "muted" }, `latest ${job.statements.length} of ${job.total_statements}`)
      : null,
  );
}

function statementBlock(s) {
  const ctx = Object.entries(s.context || {});
  return h("section", { class: "stmt" },
    h("dl", { class: "facts" },
      h("dt", {}, "event"), h("dd", {}, h("code", {}, s.event_id)),
      h("dt", {}, "kind"), h("dd", {}, s.kind),
      h("dt", {}, "status"), h("dd", {}, s.status || "—"),
      h("dt", {}, "event time"), h("dd", {}, fmtTime(s.event_time)),
      h("dt", {}, "recorded"), h("dd", {}, fmtTime(s.recorded_time)),
      s.deleted ? [h("dt", {}, "deleted"), h("dd", {}, "yes")] : null,
    ),
    h("h3", {}, "SQL"),
    s.sql ? h("pre", { class: "sql" }, numbered(s.sql)) : h("p", { class: "muted" }, "The producer sent no SQL."),
    h("h3", {}, "Query context"),
    ctx.length
      ? h("dl", { class: "facts context" }, ctx.map(([k, v]) => [
          h("dt", {}, k),
          h("dd", {}, typeof v === "object" ? h("pre", {}, JSON.stringify(v, null, 2)) : String(v)),
        ]))
      : h("p", { class: "muted" }, "none"),
  );
}

function numbered(sql) {
  return sql.split("\n").map((line, k) => h("span", { class: "ln" }, h("i", {}, String(k + 1)), line, "\n"));
}
