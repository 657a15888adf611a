/**
 * The split-brain conflicts this node knows of: another MAC answering (self-check probes) or announcing (the L2
 * announcer's ObservedConflict: a gratuitous ARP, an ARP packet or a Neighbor Advertisement naming our address)
 * an IP this node owns. Keyed by (IP, MAC): two other MACs on one IP are two conflicts. Pure: sightings and the
 * clock come in, the entries and the ones to forget come out; the shell logs, emits and serves status.
 *
 * A conflict is forgotten CONFLICT_FORGET_MS after it was last seen, or as soon as the IP is no longer ours (the
 * other node owning it is then right).
 *
 * Bounded: anyone on the segment can send ARP replies for our IP from random MACs (20,000 of them once made
 * 11,000 entries and a 1.4 MB status). Per IP the first CONFLICT_FIRST_MACS_PER_IP MACs stay listed and the last
 * CONFLICT_LAST_MACS_PER_IP rotate; a MAC pushed out, or arriving once CONFLICT_LISTED_MAX entries are listed, is
 * folded into its IP's `unlisted` summary (how many MACs, how many replies), so the counts stay exact while the
 * list stays small.
 */
import { formatIP, type IP } from '../../ip';
import type { ObservedConflict } from '../../announce/l2/l2-interface';
import { ANSWER_REASON_TEXT, type ConflictReason } from './expected-answer';

/**
 * A minute without a sighting. While a conflict lasts its IP is probed every second, and every few seconds once
 * it is silent (self-check-schedule.ts), so a minute is a dozen missed answers or more: a lost frame never clears
 * a live conflict, and one that ended leaves the status within a minute.
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
  /** Why it is a conflict (expected-answer.ts); notMember when the caller cannot tell. */
  readonly reason?: ConflictReason;
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
  readonly reason: ConflictReason;
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
  /** Why it is a conflict: notMember, noReason or windowOver (expected-answer.ts). */
  readonly reason: ConflictReason;
  /** ISO 8601. */
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly sightings: number;
}

export type ForgetReason = 'notSeen' | 'notOwned';

/**
 * The first MACs seen on one IP stay listed: in a real split brain the other node is among them, and a flood of
 * spoofed replies that follows cannot push it out of `mlb status`.
 */
export const CONFLICT_FIRST_MACS_PER_IP = 4;
/** The most recent other MACs listed per IP (the oldest of them makes room for a new one). */
export const CONFLICT_LAST_MACS_PER_IP = 4;
/**
 * Listed (IP, MAC) entries across all IPs: 32 IPs at the per-IP cap, a few kilobytes of status. A cluster with
 * more IPs in conflict at once has a problem no longer list would explain better.
 */
export const CONFLICT_LISTED_MAX = 32 * (CONFLICT_FIRST_MACS_PER_IP + CONFLICT_LAST_MACS_PER_IP);

/** What was folded out of the list for one IP: exact counts of MACs and of their replies. */
export interface UnlistedConflicts {
  readonly ip: IP;
  /** MACs pushed out of the IP's list (one that comes back and is pushed out again counts again). */
  readonly macs: number;
  /** Replies and observations from MACs not listed: those pushed out, and any once the registry is full. */
  readonly sightings: number;
  readonly lastSeen: number;
}

export interface ConflictRegistry {
  /** Listed conflicts, by `ip|mac`. */
  readonly entries: ReadonlyMap<string, ConflictEntry>;
  /** Per IP (its text), what is not listed. */
  readonly unlisted: ReadonlyMap<string, UnlistedConflicts>;
}

export const EMPTY_CONFLICT_REGISTRY: ConflictRegistry = { entries: new Map(), unlisted: new Map() };

const conflictKey = (ip: IP, mac: string): string => `${formatIP(ip)}|${mac}`;

/** Active conflicts: every listed one plus every MAC folded into an IP's summary. */
export function activeConflicts(registry: ConflictRegistry): number {
  let n = registry.entries.size;
  for (const u of registry.unlisted.values()) n += u.macs;
  return n;
}

/** Why a sighting of a MAC not yet listed ended where it did. */
export type SightingOutcome = 'listed' | 'listedDisplacing' | 'unlistedIpFull' | 'unlistedRegistryFull';

/**
 * Adds a sighting; `isNew` when this (IP, MAC) was not known (the moment to warn and emit). A new MAC on an IP
 * that already lists CONFLICT_FIRST + CONFLICT_LAST MACs displaces the least recently seen of the last ones; once
 * CONFLICT_LISTED_MAX entries are listed, a new one is only counted (`outcome` says which).
 */
export function recordSighting(
  registry: ConflictRegistry,
  s: ConflictSighting,
): { registry: ConflictRegistry; entry: ConflictEntry | undefined; isNew: boolean; outcome?: SightingOutcome } {
  const key = conflictKey(s.ip, s.mac);
  const known = registry.entries.get(key);
  if (known) {
    const entry = {
      ...known,
      interface: s.interface,
      evidence: s.evidence,
      lastSeen: Math.max(known.lastSeen, s.at),
      sightings: known.sightings + 1,
    };
    const entries = new Map(registry.entries);
    entries.set(key, entry);
    return { registry: { ...registry, entries }, entry, isNew: false };
  }
  const entry: ConflictEntry = {
    key,
    ip: s.ip,
    mac: s.mac,
    interface: s.interface,
    evidence: s.evidence,
    reason: defaultReason(s),
    firstSeen: s.at,
    lastSeen: s.at,
    sightings: 1,
  };
  const ipText = formatIP(s.ip);
  const onIp = [...registry.entries.values()].filter((e) => formatIP(e.ip) === ipText);
  if (onIp.length < CONFLICT_FIRST_MACS_PER_IP + CONFLICT_LAST_MACS_PER_IP) {
    if (registry.entries.size >= CONFLICT_LISTED_MAX) {
      // Replies beyond the registry's cap are counted, not told apart: remembering their MACs is what the cap avoids.
      return { registry: fold(registry, s.ip, 0, 1, s.at), entry: undefined, isNew: false, outcome: 'unlistedRegistryFull' };
    }
    const entries = new Map(registry.entries);
    entries.set(key, entry);
    return { registry: { ...registry, entries }, entry, isNew: true, outcome: 'listed' };
  }
  // The IP is full: keep its first MACs, and let the least recently seen of the later ones make room.
  const later = [...onIp].sort((a, b) => a.firstSeen - b.firstSeen || (a.key < b.key ? -1 : 1)).slice(CONFLICT_FIRST_MACS_PER_IP);
  const stalest = later.reduce((a, b) => (b.lastSeen < a.lastSeen ? b : a));
  const entries = new Map(registry.entries);
  entries.delete(stalest.key);
  entries.set(key, entry);
  return { registry: fold({ ...registry, entries }, s.ip, 1, stalest.sightings, s.at), entry, isNew: true, outcome: 'listedDisplacing' };
}

/** Without the caller's verdict the MAC is taken for a stranger's (the caller knows the members). */
function defaultReason(s: ConflictSighting): ConflictReason {
  return s.reason ?? 'notMember';
}

function fold(registry: ConflictRegistry, ip: IP, macs: number, sightings: number, at: number): ConflictRegistry {
  const ipText = formatIP(ip);
  const known = registry.unlisted.get(ipText);
  const unlisted = new Map(registry.unlisted);
  unlisted.set(
    ipText,
    known
      ? { ip, macs: known.macs + macs, sightings: known.sightings + sightings, lastSeen: Math.max(known.lastSeen, at) }
      : { ip, macs, sightings, lastSeen: at },
  );
  return { ...registry, unlisted };
}

/** Drops the conflicts not seen for forgetMs and those on IPs no longer owned, saying why for each. */
export function forget(
  registry: ConflictRegistry,
  now: number,
  isOwned: (ip: IP) => boolean,
  forgetMs = CONFLICT_FORGET_MS,
): { registry: ConflictRegistry; forgotten: { entry: ConflictEntry; reason: ForgetReason }[] } {
  const forgotten: { entry: ConflictEntry; reason: ForgetReason }[] = [];
  for (const entry of registry.entries.values()) {
    if (!isOwned(entry.ip)) forgotten.push({ entry, reason: 'notOwned' });
    else if (now - entry.lastSeen >= forgetMs) forgotten.push({ entry, reason: 'notSeen' });
  }
  const staleUnlisted = [...registry.unlisted].filter(([, u]) => !isOwned(u.ip) || now - u.lastSeen >= forgetMs);
  if (forgotten.length === 0 && staleUnlisted.length === 0) return { registry, forgotten };
  const entries = new Map(registry.entries);
  for (const f of forgotten) entries.delete(f.entry.key);
  const unlisted = new Map(registry.unlisted);
  for (const [ipText] of staleUnlisted) unlisted.delete(ipText);
  return { registry: { entries, unlisted }, forgotten };
}

/** When the next conflict is due to be forgotten for not being seen; undefined when there is none. */
export function nextForgetAt(registry: ConflictRegistry, forgetMs = CONFLICT_FORGET_MS): number | undefined {
  let next: number | undefined;
  for (const e of [...registry.entries.values(), ...registry.unlisted.values()]) {
    if (next === undefined || e.lastSeen + forgetMs < next) next = e.lastSeen + forgetMs;
  }
  return next;
}

export function conflictView(entry: ConflictEntry, nodeOf: (mac: string) => string | undefined): Conflict {
  return {
    ip: formatIP(entry.ip),
    mac: entry.mac,
    node: nodeOf(entry.mac) ?? null,
    interface: entry.interface,
    evidence: entry.evidence,
    reason: entry.reason,
    firstSeen: new Date(entry.firstSeen).toISOString(),
    lastSeen: new Date(entry.lastSeen).toISOString(),
    sightings: entry.sightings,
  };
}

/** Every conflict, by IP (numerically, IPv4 first) then MAC. */
export function listConflicts(registry: ConflictRegistry, nodeOf: (mac: string) => string | undefined): Conflict[] {
  return [...registry.entries.values()]
    .sort(
      (a, b) =>
        a.ip.family - b.ip.family ||
        (a.ip.value < b.ip.value ? -1 : a.ip.value > b.ip.value ? 1 : 0) ||
        (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : 0),
    )
    .map((e) => conflictView(e, nodeOf));
}

/** "10.213.0.100 on eth0 is also answered by 02:13:00:00:00:02 (node b): <why>": the log line and status text. */
export function conflictText(c: Conflict): string {
  const who = c.node === null ? c.mac : `${c.mac} (node ${c.node})`;
  const how = c.evidence === 'probeReply' ? 'also answered by' : 'also claimed by';
  return `${c.ip} on ${c.interface} is ${how} ${who}: ${ANSWER_REASON_TEXT[c.reason]}`;
}
