/**
 * Replays ExaBGP 4.2's JSON API stream (one object a line, written by the receiver helper of exabgp.ts) into
 * what a test asks: the current table of received paths, each session's last state, every UPDATE in order with
 * ExaBGP's receive time, the OPENs and NOTIFICATIONs received. ExaBGP decodes the wire itself, so this is an
 * independent reading of exactly what mlb sent. Pure: text in, data out; unknown lines are kept, never fatal.
 */
import { ipVersionOfText, type Origin, type PeerSession, type RouterPath } from '../../../src/cli/lab/route-path';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface ExabgpUpdate {
  /** ExaBGP's receive time, seconds since the epoch. */
  readonly time: number;
  readonly peer: string;
  readonly announced: readonly RouterPath[];
  readonly withdrawn: readonly string[];
  /** End-of-RIB markers in this message, as "ipv4 unicast". */
  readonly endOfRib: readonly string[];
}

export interface ExabgpLog {
  /** Every JSON object of the stream, in order (for what the typed views leave out). */
  readonly events: readonly Json[];
  readonly updates: readonly ExabgpUpdate[];
  /** The paths held now: announcements minus later withdrawals, per peer and prefix. */
  readonly routes: readonly RouterPath[];
  /** The last state per peer (connected, up, down). */
  readonly sessions: readonly PeerSession[];
  /** Decoded OPEN messages received (version, asn, hold_time, router_id, capabilities), with the peer. */
  readonly opens: readonly (Json & { readonly peer: string })[];
  /** NOTIFICATIONs received, as ExaBGP decodes them (code, subcode, data), with the peer. */
  readonly notifications: readonly (Json & { readonly peer: string })[];
  /** Lines that were not JSON (a partly written last line, helper noise). */
  readonly unparsed: readonly string[];
}

function peerOf(event: Json): string | undefined {
  const neighbor = event.neighbor;
  if (!isObject(neighbor) || !isObject(neighbor.address)) return undefined;
  return typeof neighbor.address.peer === 'string' ? neighbor.address.peer : undefined;
}

function attributesOf(update: Json): Omit<RouterPath, 'prefix' | 'nextHop' | 'peer'> {
  const a = isObject(update.attribute) ? update.attribute : {};
  const origin = typeof a.origin === 'string' ? (a.origin.toLowerCase() as Origin) : undefined;
  const list = (value: unknown): unknown[][] => (Array.isArray(value) ? value.filter(Array.isArray) : []);
  return {
    asPath: Array.isArray(a['as-path']) ? a['as-path'].map(Number) : [],
    ...(origin ? { origin } : {}),
    communities: list(a.community).map((c) => c.join(':')),
    largeCommunities: list(a['large-community']).map((c) => c.join(':')),
    ...(typeof a['local-preference'] === 'number' ? { localPref: a['local-preference'] } : {}),
  };
}

function nlriText(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  return isObject(entry) && typeof entry.nlri === 'string' ? entry.nlri : undefined;
}

function readUpdate(event: Json, peer: string): ExabgpUpdate | undefined {
  const message = isObject(event.neighbor) && isObject(event.neighbor.message) ? event.neighbor.message : undefined;
  const update = message && isObject(message.update) ? message.update : undefined;
  if (!update) return undefined;
  const attributes = attributesOf(update);
  const announced: RouterPath[] = [];
  const endOfRib: string[] = [];
  // announce: { "ipv4 unicast": { "<next hop>": [ { "nlri": "<prefix>" } ] } }
  for (const byNextHop of Object.values(isObject(update.announce) ? update.announce : {})) {
    if (!isObject(byNextHop)) continue;
    for (const [nextHop, entries] of Object.entries(byNextHop)) {
      for (const entry of Array.isArray(entries) ? entries : []) {
        const prefix = nlriText(entry);
        if (prefix) announced.push({ prefix, nextHop, peer, ...attributes });
      }
    }
  }
  const withdrawn: string[] = [];
  for (const entries of Object.values(isObject(update.withdraw) ? update.withdraw : {})) {
    for (const entry of Array.isArray(entries) ? entries : []) {
      const prefix = nlriText(entry);
      if (prefix) withdrawn.push(prefix);
    }
  }
  if (isObject(update.eor)) endOfRib.push(`${String(update.eor.afi)} ${String(update.eor.safi)}`);
  return { time: Number(event.time), peer, announced, withdrawn, endOfRib };
}

export function parseExabgpLog(text: string): ExabgpLog {
  const events: Json[] = [];
  const unparsed: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value)) events.push(value);
      else unparsed.push(line);
    } catch {
      unparsed.push(line);
    }
  }
  const updates: ExabgpUpdate[] = [];
  const table = new Map<string, RouterPath>();
  const states = new Map<string, { state: string; remoteAs?: number }>();
  const opens: (Json & { peer: string })[] = [];
  const notifications: (Json & { peer: string })[] = [];
  for (const event of events) {
    const peer = peerOf(event);
    if (!peer) continue;
    const neighbor = event.neighbor as Json;
    if (event.type === 'state' && typeof neighbor.state === 'string') {
      const asn = isObject(neighbor.asn) && typeof neighbor.asn.peer === 'number' ? neighbor.asn.peer : undefined;
      states.set(peer, { state: neighbor.state, ...(asn !== undefined ? { remoteAs: asn } : {}) });
      // A session that went down takes its routes with it, as on any BGP speaker.
      if (neighbor.state === 'down') for (const key of [...table.keys()]) if (key.startsWith(`${peer} `)) table.delete(key);
    }
    const message = isObject(neighbor.message) ? neighbor.message : undefined;
    if (event.type === 'open' && message && isObject(message.open)) opens.push({ ...message.open, peer });
    if (event.type === 'notification' && message && isObject(message.notification)) notifications.push({ ...message.notification, peer });
    if (event.type !== 'update') continue;
    const update = readUpdate(event, peer);
    if (!update) continue;
    updates.push(update);
    for (const prefix of update.withdrawn) table.delete(`${peer} ${prefix}`);
    for (const path of update.announced) table.set(`${peer} ${path.prefix}`, path);
  }
  const routes = [...table.values()].sort((a, b) => a.prefix.localeCompare(b.prefix) || a.nextHop.localeCompare(b.nextHop));
  const sessions = [...states].map(([address, s]): PeerSession => ({
    address,
    ...(s.remoteAs !== undefined ? { remoteAs: s.remoteAs } : {}),
    state: s.state,
    established: s.state === 'up',
    prefixesReceived: routes.filter((r) => r.peer === address).length,
  }));
  return { events, updates, routes, sessions, opens, notifications, unparsed };
}

/** The held paths for one prefix (both spellings of a host route: ExaBGP prints /32 and /128 explicitly). */
export function exabgpRoutesFor(log: ExabgpLog, prefix: string): RouterPath[] {
  const hostLength = ipVersionOfText(prefix) === 6 ? 128 : 32;
  const wanted = prefix.includes('/') ? prefix : `${prefix}/${hostLength}`;
  return log.routes.filter((r) => r.prefix === wanted);
}
