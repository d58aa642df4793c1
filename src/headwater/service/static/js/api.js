// The REST API under /api/v1, with the bearer token (if the server wants one) from sessionStorage.

const BASE = new URL("api/v1/", document.baseURI);
const TOKEN_KEY = "headwater.token";

export class ApiError extends Error {
  constructor(status, field, message, candidates) {
    super(message);
    this.status = status;
    this.field = field;
    this.candidates = candidates || null;
  }
}

let onUnauthorized = () => {};

export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function url(path, params) {
  const u = new URL(path, BASE);
  for (const [k, v] of Object.entries(params || {})) {
    if (v === null || v === undefined || v === "") continue;
    if (Array.isArray(v)) v.forEach((x) => u.searchParams.append(k, x));
    else u.searchParams.set(k, v);
  }
  return u;
}

async function call(method, path, params, body, signal) {
  const headers = { Accept: "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(url(path, params), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    if (res.status === 401 || res.status === 403) onUnauthorized(err.message || res.statusText);
    throw new ApiError(res.status, err.field || "", err.message || `${res.status} ${res.statusText}`, err.candidates);
  }
  return data;
}

export const get = (path, params, signal) => call("GET", path, params, undefined, signal);
export const post = (path, body, signal) => call("POST", path, undefined, body, signal);

// One function per endpoint the explorer uses.
export const api = {
  stats: (asOf) => get("stats", { as_of: asOf }),
  overview: (asOf) => get("explorer/overview", { as_of: asOf }),
  search: (q, types, limit, signal) => get("explorer/search", { q, types, limit }, signal),
  resolve: (node) => get("nodes/resolve", { node }),
  lineage: (node, direction, depth, asOf, limit) =>
    get("lineage", { node, direction, max_depth: depth, as_of: asOf, limit }),
  summary: (node, asOf) => get("summary", { node, as_of: asOf }),
  columns: (datasets, asOf) => post("explorer/columns", { datasets, as_of: asOf || null }),
  columnIndex: (datasets, asOf) => post("explorer/column-index", { datasets, as_of: asOf || null }),
  children: (id, types, asOf) => get(`explorer/nodes/${id}/children`, { types, as_of: asOf }),
  // the "indirect" box: level all (every mapping) or direct (value flows); one level for all three
  // level: direct, field or all (the store's origin levels)
  fieldPaths: (field, level, asOf) => get("explorer/field-paths", { field, level, as_of: asOf }),
  fieldOrigin: (field, level, asOf) => get("field-origin", { field, level, as_of: asOf, limit: 200 }),
  fieldImpact: (field, level, asOf) => get("field-impact", { field, level, as_of: asOf, limit: 200 }),
  edge: (id) => get(`explorer/edges/${id}`),
  job: (id, asOf) => get(`explorer/jobs/${id}`, { as_of: asOf }),
  analyzeImpact: (body) => post("analyze-impact", body),
};
