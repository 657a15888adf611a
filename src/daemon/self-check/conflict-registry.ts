/**
 * The split-brain conflicts this node knows of: another MAC answering (self-check probes) or announcing (the L2
 * announcer's ObservedConflict: a gratuitous ARP, an ARP packet or a Neighbor Advertisement naming our address)
 * an IP this node owns. Keyed by (IP, MAC): two other MACs on one IP are two conflicts. Pure: sightings and the
 * clock come in, the entries and the ones to forget come out; the shell logs, emits and serves status.
 *
 * A conflict is forgotten CONFLICT_FORGET_MS after it was last seen, or as soon as the IP is no longer ours (the
 * other node owning it is then right).
 */
import { formatIP, type IP } from '../../ip';
import type { ObservedConflict } from '../../announce/l2/l2-interface';

/**
 * A minute without a sighting. While a conflict lasts its IP is probed every 5 s (self-check-schedule.ts), so a
 * minute is a dozen missed answers, and two regular periods: a lost frame never clears a live conflict, and one
 * that ended leaves the status within a minute.
 */
export const CONFLICT_FORGET_MS = 60_000;

/** probeReply: it answered our probe; the others are the L2 announcer's passive evidence. */
export type ConflictEvidence = 'probeReply' | ObservedConflict['evidence'];

export interface ConflictSighting {
  readonly ip: IP;
  /** Lowercase, colon-separated. */
  readonly mac: string;
  readonly interface: string;
  readonly evidence: ConflictEvidence;
  /** Epoch ms. */
  readonly at: number;
}

export interface ConflictEntry {
  readonly key: string;
  readonly ip: IP;
  readonly mac: string;
  /** Where it was last seen. */
  readonly interface: string;
  readonly evidence: ConflictEvidence;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly sightings: number;
}

/** What logs, events, status and metrics carry. */
export interface Conflict {
  readonly ip: string;
  readonly mac: string;
  /** The node behind the MAC when gossip says (node facts), else null: a host outside the cluster, or unknown. */
  readonly node: string | null;
  readonly interface: string;
  readonly evidence: ConflictEvidence;
  /** ISO 8601. */
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly sightings: number;
}

export type ForgetReason = 'notSeen' | 'notOwned';

export type ConflictRegistry = ReadonlyMap<string, ConflictEntry>;

export const EMPTY_CONFLICT_REGISTRY: ConflictRegistry = new Map();

const conflictKey = (ip: IP, mac: string): string => `${formatIP(ip)}|${mac}`;

/** Adds a sighting; `isNew` when this (IP, MAC) was not known (the moment to warn and emit). */
export function recordSighting(registry: ConflictRegistry, s: ConflictSighting): { registry: ConflictRegistry; entry: ConflictEntry; isNew: boolean } {
  const key = conflictKey(s.ip, s.mac);
  const known = registry.get(key);
  const entry: ConflictEntry = known
    ? { ...known, interface: s.interface, evidence: s.evidence, lastSeen: Math.max(known.lastSeen, s.at), sightings: known.sightings + 1 }
    : { key, ip: s.ip, mac: s.mac, interface: s.interface, evidence: s.evidence, firstSeen: s.at, lastSeen: s.at, sightings: 1 };
  const next = new Map(registry);
  next.set(key, entry);
  return { registry: next, entry, isNew: !known };
}

/** Drops the conflicts not seen for forgetMs and those on IPs no longer owned, saying why for each. */
export function forget(
  registry: ConflictRegistry, now: number, isOwned: (ip: IP) => boolean, forgetMs = CONFLICT_FORGET_MS,
): { registry: ConflictRegistry; forgotten: { entry: ConflictEntry; reason: ForgetReason }[] } {
  const forgotten: { entry: ConflictEntry; reason: ForgetReason }[] = [];
  for (const entry of registry.values()) {
    if (!isOwned(entry.ip)) forgotten.push({ entry, reason: 'notOwned' });
    else if (now - entry.lastSeen >= forgetMs) forgotten.push({ entry, reason: 'notSeen' });
  }
  if (forgotten.length === 0) return { registry, forgotten };
  const next = new Map(registry);
  for (const f of forgotten) next.delete(f.entry.key);
  return { registry: next, forgotten };
}

/** When the next conflict is due to be forgotten for not being seen; undefined when there is none. */
export function nextForgetAt(registry: ConflictRegistry, forgetMs = CONFLICT_FORGET_MS): number | undefined {
  let next: number | undefined;
  for (const e of registry.values()) if (next === undefined || e.lastSeen + forgetMs < next) next = e.lastSeen + forgetMs;
  return next;
}

export function conflictView(entry: ConflictEntry, nodeOf: (mac: string) => string | undefined): Conflict {
  return {
    ip: formatIP(entry.ip),
    mac: entry.mac,
    node: nodeOf(entry.mac) ?? null,
    interface: entry.interface,
    evidence: entry.evidence,
    firstSeen: new Date(entry.firstSeen).toISOString(),
    lastSeen: new Date(entry.lastSeen).toISOString(),
    sightings: entry.sightings,
  };
}

/** Every conflict, by IP (numerically, IPv4 first) then MAC. */
export function listConflicts(registry: ConflictRegistry, nodeOf: (mac: string) => string | undefined): Conflict[] {
  return [...registry.values()]
    .sort((a, b) => a.ip.family - b.ip.family || (a.ip.value < b.ip.value ? -1 : a.ip.value > b.ip.value ? 1 : 0) || (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : 0))
    .map((e) => conflictView(e, nodeOf));
}

/** "10.213.0.100 on eth0 is also answered by 02:13:00:00:00:02 (node b)": the log line and status text. */
export function conflictText(c: Conflict): string {
  const who = c.node === null ? c.mac : `${c.mac} (node ${c.node})`;
  const how = c.evidence === 'probeReply' ? 'also answered by' : 'also claimed by';
  return (
    `${c.ip} on ${c.interface} is ${how} ${who}: two nodes each think they own it (split brain: is gossip between ` +
    'them cut?), or the address is configured on another machine'
  );
}
