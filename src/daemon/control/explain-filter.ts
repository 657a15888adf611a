/**
 * `GET /v1/explain?service=ns/name&ip=...`: which explanations a client asked for. Pure: the route parses the
 * query into a filter, the server applies it to the provider's explanations. Targets are spelt as in
 * `mlb explain`: an IP in any spelling (compared in Go's canonical text) or namespace/name, a bare name meaning
 * the default namespace as kubectl does.
 */
import { formatIP, parseIP } from '../../ip';
import type { Explanation } from '../../election';

/** Empty lists ask for everything; otherwise an explanation matching any entry is kept. */
export interface ExplainFilter {
  /** "namespace/name" texts. */
  readonly services: readonly string[];
  /** Canonical IP texts. */
  readonly ips: readonly string[];
}

export const EVERY_EXPLANATION: ExplainFilter = { services: [], ips: [] };

/** The namespace a bare service name lives in, as kubectl assumes. */
const DEFAULT_NAMESPACE = 'default';

export type ExplainFilterResult = { ok: true; filter: ExplainFilter } | { ok: false; problem: string };

/** Builds a filter from the query's `service` and `ip` values (each may repeat). */
export function parseExplainFilter(services: readonly string[], ips: readonly string[]): ExplainFilterResult {
  const canonicalIPs: string[] = [];
  for (const text of ips) {
    const ip = parseIP(text);
    if (!ip) return { ok: false, problem: `ip=${JSON.stringify(text)} is not an IP address` };
    canonicalIPs.push(formatIP(ip));
  }
  const names: string[] = [];
  for (const text of services) {
    const parts = text.split('/');
    if (text === '' || parts.length > 2 || parts.some((p) => p === '')) {
      return { ok: false, problem: `service=${JSON.stringify(text)} is not namespace/name` };
    }
    names.push(parts.length === 1 ? `${DEFAULT_NAMESPACE}/${text}` : text);
  }
  return { ok: true, filter: { services: [...new Set(names)], ips: [...new Set(canonicalIPs)] } };
}

/** The explanations the filter keeps, in the daemon's order. */
export function filterExplanations(all: readonly Explanation[], filter: ExplainFilter): Explanation[] {
  if (filter.services.length === 0 && filter.ips.length === 0) return [...all];
  const services = new Set(filter.services);
  const ips = new Set(filter.ips);
  return all.filter((e) => services.has(e.service) || ips.has(e.ip));
}

/** The query string that asks for a filter (the client's side of parseExplainFilter). */
export function explainQuery(filter: ExplainFilter): string {
  const params = new URLSearchParams();
  for (const s of filter.services) params.append('service', s);
  for (const ip of filter.ips) params.append('ip', ip);
  const text = params.toString();
  return text ? `?${text}` : '';
}
