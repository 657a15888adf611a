/**
 * The control API's routes as data, and the pure decision from (method, request target) to what the server does.
 * The server only executes the decision, so every answer to a wrong path, method or query is testable without a
 * socket. `GET /v1/events` is the one streaming route: the server keeps its answer open (event-stream.ts).
 */
import { ControlErrorCode } from './control-errors';
import { parseExplainFilter, type ExplainFilter } from './explain-filter';
import { parseSnapshotPage, type SnapshotPage } from './snapshot-page';

export const ControlPath = {
  snapshot: '/v1/snapshot',
  /** The snapshot as `mlb status --once` prints it, in one answer (control-snapshot.ts ControlStatus). */
  status: '/v1/status',
  explain: '/v1/explain',
  drain: '/v1/drain',
  undrain: '/v1/undrain',
  /** `mlb warmup end`: this node's flap-damping warm-up ends now. */
  endWarmUp: '/v1/warmup/end',
  events: '/v1/events',
} as const;

/** What the server does with a request. */
export type Route =
  /** page: only these services (snapshot-page.ts); absent: the whole snapshot. */
  | { readonly kind: 'snapshot'; readonly page?: SnapshotPage }
  | { readonly kind: 'status' }
  | { readonly kind: 'explain'; readonly filter: ExplainFilter }
  /** node: another member to ask through gossip (`mlb drain NODE`); absent: this node. */
  | { readonly kind: 'drain'; readonly node?: string }
  | { readonly kind: 'undrain'; readonly node?: string }
  | { readonly kind: 'endWarmUp' }
  /** The events after sequence number `after` still held, then live ones, as NDJSON kept open. */
  | { readonly kind: 'events'; readonly after: number }
  | RouteError;

export interface RouteError {
  readonly kind: 'error';
  readonly status: 400 | 404 | 405;
  readonly code: ControlErrorCode;
  readonly message: string;
  /** 405 only: the methods the path accepts (the Allow header, RFC 9110 section 15.5.6). */
  readonly allow?: readonly string[];
}

interface RouteRow {
  readonly method: 'GET' | 'POST';
  /** Query parameters the route accepts; any other is a 400, so a typo is not silently ignored. */
  readonly params: readonly string[];
  readonly decide: (query: URLSearchParams) => Route;
}

const ROUTES: Readonly<Record<string, RouteRow>> = {
  [ControlPath.snapshot]: { method: 'GET', params: ['offset', 'limit'], decide: decideSnapshot },
  [ControlPath.status]: { method: 'GET', params: [], decide: () => ({ kind: 'status' }) },
  [ControlPath.explain]: { method: 'GET', params: ['service', 'ip'], decide: decideExplain },
  [ControlPath.drain]: { method: 'POST', params: ['node'], decide: (q) => decideDrain('drain', q) },
  [ControlPath.undrain]: { method: 'POST', params: ['node'], decide: (q) => decideDrain('undrain', q) },
  [ControlPath.endWarmUp]: { method: 'POST', params: [], decide: () => ({ kind: 'endWarmUp' }) },
  [ControlPath.events]: { method: 'GET', params: ['after'], decide: decideEvents },
};

/** Any host will do: the request target of a unix socket request is a path; URL only needs a base to parse it. */
const URL_BASE = 'http://mlb.invalid';

/** The route for a request; never throws, whatever the method or target. */
export function routeRequest(method: string, target: string): Route {
  let url: URL;
  try {
    url = new URL(target, URL_BASE);
  } catch {
    return routeError(400, ControlErrorCode.badRequest, `cannot parse the request target ${JSON.stringify(target)}`);
  }
  // An absolute-form target naming another host is not a path on this socket.
  if (!target.startsWith('/')) return routeError(400, ControlErrorCode.badRequest, 'the request target must be a path, e.g. /v1/snapshot');
  const row = Object.hasOwn(ROUTES, url.pathname) ? ROUTES[url.pathname] : undefined;
  if (!row) {
    return routeError(404, ControlErrorCode.notFound, `no route ${url.pathname}; the routes are ${Object.keys(ROUTES).join(', ')}`);
  }
  if (method !== row.method) {
    return {
      ...routeError(405, ControlErrorCode.methodNotAllowed, `${url.pathname} takes ${row.method}, not ${method}`),
      allow: [row.method],
    };
  }
  const unknown = [...new Set(url.searchParams.keys())].filter((k) => !row.params.includes(k));
  if (unknown.length > 0) {
    const accepted = row.params.length > 0 ? `it accepts ${row.params.join(', ')}` : 'it accepts none';
    return routeError(400, ControlErrorCode.badRequest, `${url.pathname}: unknown query parameter ${unknown.join(', ')}; ${accepted}`);
  }
  return row.decide(url.searchParams);
}

function decideSnapshot(query: URLSearchParams): Route {
  const parsed = parseSnapshotPage(query);
  if (!parsed.ok) return routeError(400, ControlErrorCode.badRequest, `${ControlPath.snapshot}: ${parsed.problem}`);
  return parsed.page ? { kind: 'snapshot', page: parsed.page } : { kind: 'snapshot' };
}

function decideExplain(query: URLSearchParams): Route {
  const parsed = parseExplainFilter(query.getAll('service'), query.getAll('ip'));
  if (!parsed.ok) return routeError(400, ControlErrorCode.badRequest, `${ControlPath.explain}: ${parsed.problem}`);
  return { kind: 'explain', filter: parsed.filter };
}

/** `node`, once, non-empty: the member to ask; absent: this node. */
function decideDrain(kind: 'drain' | 'undrain', query: URLSearchParams): Route {
  const nodes = query.getAll('node');
  if (nodes.length === 0) return { kind };
  if (nodes.length > 1 || nodes[0] === '') {
    return routeError(400, ControlErrorCode.badRequest, `/v1/${kind}: node=${JSON.stringify(nodes.join(','))} is not one node name`);
  }
  return { kind, node: nodes[0] as string };
}

/** `after` is a sequence number the client saw (0 or absent: everything held); digits only, so "1e3" is refused. */
function decideEvents(query: URLSearchParams): Route {
  const values = query.getAll('after');
  if (values.length === 0) return { kind: 'events', after: 0 };
  const text = values[0] as string;
  const after = Number(text);
  if (values.length > 1 || !/^\d+$/.test(text) || !Number.isSafeInteger(after)) {
    return routeError(
      400,
      ControlErrorCode.badRequest,
      `${ControlPath.events}: after=${JSON.stringify(values.join(','))} is not one sequence number (0, 1, 2 ...)`,
    );
  }
  return { kind: 'events', after };
}

function routeError(status: RouteError['status'], code: ControlErrorCode, message: string): RouteError {
  return { kind: 'error', status, code, message };
}
