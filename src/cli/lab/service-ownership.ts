/**
 * Pure readers for what the lab learns from outside: a daemon's snapshot (who owns a service) and the client's
 * neighbour table (which MAC the client sends a VIP's traffic to). Both inputs are text from another program, so
 * nothing here trusts a field it did not check, and nothing throws.
 */

export interface ServiceOwnership {
  readonly service: string;
  readonly ips: readonly string[];
  /** The elected node (layer 2), null when nobody holds it. */
  readonly owner: string | null;
  /** Nodes whose mlb.io/health-check of the service passes, as gossip tells this daemon (empty without a check). */
  readonly passing: readonly string[];
}

/** The `services` entry of a /v1/snapshot body for `service`, or undefined. */
export function parseServiceOwnership(json: string, service: string): ServiceOwnership | undefined {
  const body = parseJSON(json);
  const services = (body as { services?: unknown } | null)?.services;
  if (!Array.isArray(services)) return undefined;
  for (const entry of services as unknown[]) {
    const e = entry as { service?: unknown; ips?: unknown; owner?: unknown; health?: { passing?: unknown } } | null;
    if (typeof e !== 'object' || e === null || e.service !== service) continue;
    return { service, ips: strings(e.ips), owner: typeof e.owner === 'string' ? e.owner : null, passing: strings(e.health?.passing) };
  }
  return undefined;
}

/** What a daemon says of itself (the `node` of its snapshot). */
export interface NodeStatus {
  readonly name: string;
  readonly draining: boolean;
  /** Just (re)started: the others do not elect it yet. */
  readonly warmingUp: boolean;
  /** When the warm-up ends (epoch ms), undefined when not warming up or not said. */
  readonly warmUpUntil: number | undefined;
}

export function parseNodeStatus(json: string): NodeStatus | undefined {
  const node = (parseJSON(json) as { node?: unknown } | null | undefined)?.node as
    { name?: unknown; draining?: unknown; warmingUp?: unknown; warmUpUntil?: unknown } | null | undefined;
  if (typeof node !== 'object' || node === null || typeof node.name !== 'string') return undefined;
  const until = typeof node.warmUpUntil === 'string' ? Date.parse(node.warmUpUntil) : Number.NaN;
  return {
    name: node.name,
    draining: node.draining === true,
    warmingUp: node.warmingUp === true,
    warmUpUntil: Number.isFinite(until) ? until : undefined,
  };
}

export interface NeighbourEntry {
  readonly ip: string;
  /** Lowercase; undefined while the kernel has none (INCOMPLETE, FAILED). */
  readonly mac: string | undefined;
  /** The kernel's NUD states, e.g. ["REACHABLE"], ["STALE"]. */
  readonly state: readonly string[];
}

/** The entry for `ip` in `ip -j neigh show` output, or undefined. */
export function parseNeighbourJSON(json: string, ip: string): NeighbourEntry | undefined {
  const rows = parseJSON(json);
  if (!Array.isArray(rows)) return undefined;
  for (const row of rows as unknown[]) {
    const r = row as { dst?: unknown; lladdr?: unknown; state?: unknown } | null;
    if (typeof r !== 'object' || r === null || r.dst !== ip) continue;
    return { ip, mac: typeof r.lladdr === 'string' ? r.lladdr.toLowerCase() : undefined, state: strings(r.state) };
  }
  return undefined;
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
