/**
 * When the split-brain self-check probes which owned address (beyond MetalLB, whose operators find two nodes
 * answering for one IP only by running arping by hand and seeing replies from several MACs). Pure: a reducer over
 * the owned (IP, interface) pairs with injected time and randomness; the SelfChecker shell sends the probes it
 * hands out.
 *
 * Every owned pair is probed every SELF_CHECK_INTERVAL_MS (with jitter), and soon after anything that can make
 * two owners: a new ownership (we just took the IP: did the old owner let go?), a membership change (a partition
 * healing, a node back: does someone else now think it owns ours?), and a conflict seen (to follow it until it
 * ends). At most SELF_CHECK_MAX_IN_FLIGHT probes run at once; the rest wait their turn, in due order.
 */
import { formatIP, type IP } from '../../ip';

/**
 * The regular period. A split brain lasts as long as the partition behind it, minutes rather than seconds, so
 * half a minute finds it while it matters; it is also the order of a switch's or router's ARP cache refresh,
 * and costs one broadcast frame per owned IP per half minute, less than the clients' own ARP traffic.
 */
export const SELF_CHECK_INTERVAL_MS = 30_000;
/** ±10 % of the period, drawn per probe, so IPs taken together (a restart, a failover) do not probe in bursts. */
export const SELF_CHECK_JITTER = 0.1;
/**
 * "Soon" after a new ownership or a membership change. Gossip spreads a change through a LAN cluster in well
 * under a second (memberlist's gossip interval is 200 ms) and the previous owner withdraws as soon as it hears,
 * so an owner still answering a second later is worth reporting; sooner would report ordinary handovers.
 */
export const SELF_CHECK_SOON_MS = 1_000;
/** While a conflict is seen, probe its IP this often: its last-seen time stays fresh and its end shows quickly. */
export const SELF_CHECK_CONFLICT_RECHECK_MS = 5_000;
/**
 * Probes at once. Each holds a packet socket for about half a second (probe-once.ts), so 8 make 16 probes a
 * second: a node owning up to ~480 IPs keeps the 30 s period; above that the checks come later, never in a burst.
 */
export const SELF_CHECK_MAX_IN_FLIGHT = 8;

export type ProbeReason = 'newOwnership' | 'membershipChanged' | 'periodic' | 'conflictRecheck' | 'conflictObserved';

export const PROBE_REASON_TEXT: Readonly<Record<ProbeReason, string>> = {
  newOwnership: 'this node just took the address: checking the previous owner let go',
  membershipChanged: 'cluster membership changed: checking no other node now claims the address',
  periodic: 'the regular check',
  conflictRecheck: 'another MAC answered last time: following the conflict',
  conflictObserved: 'another MAC announced the address: checking who answers',
};

export interface SelfCheckTiming {
  readonly intervalMs: number;
  readonly jitter: number;
  readonly soonMs: number;
  readonly conflictRecheckMs: number;
  readonly maxInFlight: number;
}

export const DEFAULT_SELF_CHECK_TIMING: SelfCheckTiming = {
  intervalMs: SELF_CHECK_INTERVAL_MS,
  jitter: SELF_CHECK_JITTER,
  soonMs: SELF_CHECK_SOON_MS,
  conflictRecheckMs: SELF_CHECK_CONFLICT_RECHECK_MS,
  maxInFlight: SELF_CHECK_MAX_IN_FLIGHT,
};

export interface OwnedAddress {
  readonly ip: IP;
  /** The interface the address is announced on; an IP announced on two interfaces is checked on each. */
  readonly interface: string;
}

export interface ScheduledProbe extends OwnedAddress {
  /** ip%interface. */
  readonly key: string;
  readonly dueAt: number;
  readonly reason: ProbeReason;
  readonly inFlight: boolean;
  /** Something happened while the probe was in flight (it may have gone out before): check again soon after. */
  readonly again?: ProbeReason;
  /** No longer owned, kept only until its probe in flight finishes (it still counts against the limit). */
  readonly released?: boolean;
}

export interface SelfCheckSchedule {
  readonly timing: SelfCheckTiming;
  /** By key, in the order the addresses were first owned. */
  readonly probes: ReadonlyMap<string, ScheduledProbe>;
}

export const ownedKey = (a: OwnedAddress): string => `${formatIP(a.ip)}%${a.interface}`;

export function emptySchedule(timing: Partial<SelfCheckTiming> = {}): SelfCheckSchedule {
  return { timing: { ...DEFAULT_SELF_CHECK_TIMING, ...timing }, probes: new Map() };
}

/**
 * The owned set, whole: new pairs are due soon, kept ones keep their turn, dropped ones are forgotten (once their
 * probe in flight, if any, has finished).
 */
export function setOwned(schedule: SelfCheckSchedule, owned: readonly OwnedAddress[], now: number): SelfCheckSchedule {
  const probes = new Map<string, ScheduledProbe>();
  for (const a of owned) {
    const key = ownedKey(a);
    if (probes.has(key)) continue;
    const kept = schedule.probes.get(key);
    if (kept && !kept.released) probes.set(key, kept);
    else if (kept) probes.set(key, { ...kept, released: false, again: 'newOwnership' });
    else probes.set(key, { key, ip: a.ip, interface: a.interface, dueAt: now + schedule.timing.soonMs, reason: 'newOwnership', inFlight: false });
  }
  for (const [key, p] of schedule.probes) if (p.inFlight && !probes.has(key)) probes.set(key, { ...p, released: true });
  return { ...schedule, probes };
}

/** Brings the matching probes forward to now + soon (never later than they were due). */
function soon(schedule: SelfCheckSchedule, now: number, reason: ProbeReason, matches: (p: ScheduledProbe) => boolean): SelfCheckSchedule {
  const at = now + schedule.timing.soonMs;
  const probes = new Map<string, ScheduledProbe>();
  for (const [key, p] of schedule.probes) {
    if (p.released || !matches(p)) probes.set(key, p);
    else if (p.inFlight) probes.set(key, { ...p, again: reason });
    else probes.set(key, p.dueAt <= at ? p : { ...p, dueAt: at, reason });
  }
  return { ...schedule, probes };
}

export function membershipChanged(schedule: SelfCheckSchedule, now: number): SelfCheckSchedule {
  return soon(schedule, now, 'membershipChanged', () => true);
}

/** Another MAC claimed `ip` (a gratuitous ARP or an unsolicited NA): probe it soon on every interface it is owned on. */
export function conflictObserved(schedule: SelfCheckSchedule, ip: IP, now: number): SelfCheckSchedule {
  return soon(schedule, now, 'conflictObserved', (p) => p.ip.family === ip.family && p.ip.value === ip.value);
}

/** Hands out the due probes, earliest first, up to the in-flight limit, and marks them in flight. */
export function takeDue(schedule: SelfCheckSchedule, now: number): { schedule: SelfCheckSchedule; due: ScheduledProbe[] } {
  const all = [...schedule.probes.values()];
  const room = schedule.timing.maxInFlight - all.filter((p) => p.inFlight).length;
  if (room <= 0) return { schedule, due: [] };
  const due = all.filter((p) => !p.inFlight && p.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt).slice(0, room);
  if (due.length === 0) return { schedule, due: [] };
  const probes = new Map(schedule.probes);
  for (const p of due) probes.set(p.key, { ...p, inFlight: true });
  return { schedule: { ...schedule, probes }, due };
}

/**
 * A probe finished: next due at the regular period (jittered by `random` in [0, 1)), or at the recheck period
 * when another MAC answered, or soon when something happened meanwhile. A key no longer owned is dropped.
 */
export function probeDone(
  schedule: SelfCheckSchedule, key: string, now: number, outcome: { readonly conflict: boolean }, random: () => number,
): SelfCheckSchedule {
  const p = schedule.probes.get(key);
  if (!p) return schedule;
  if (p.released) {
    const probes = new Map(schedule.probes);
    probes.delete(key);
    return { ...schedule, probes };
  }
  const { intervalMs, jitter, soonMs, conflictRecheckMs } = schedule.timing;
  let next: Pick<ScheduledProbe, 'dueAt' | 'reason'>;
  if (p.again) next = { dueAt: now + soonMs, reason: p.again };
  else if (outcome.conflict) next = { dueAt: now + conflictRecheckMs, reason: 'conflictRecheck' };
  else next = { dueAt: now + Math.round(intervalMs * (1 + jitter * (2 * random() - 1))), reason: 'periodic' };
  const probes = new Map(schedule.probes);
  probes.set(key, { key, ip: p.ip, interface: p.interface, inFlight: false, ...next });
  return { ...schedule, probes };
}

/** When the next probe not in flight is due; undefined when there is none. */
export function nextDueAt(schedule: SelfCheckSchedule): number | undefined {
  let next: number | undefined;
  for (const p of schedule.probes.values()) if (!p.inFlight && (next === undefined || p.dueAt < next)) next = p.dueAt;
  return next;
}

export function isOwned(schedule: SelfCheckSchedule, ip: IP): boolean {
  for (const p of schedule.probes.values()) if (!p.released && p.ip.family === ip.family && p.ip.value === ip.value) return true;
  return false;
}

/** Whether the pair behind `key` is still owned (a probe's result for a released pair is stale). */
export function isOwnedKey(schedule: SelfCheckSchedule, key: string): boolean {
  const p = schedule.probes.get(key);
  return p !== undefined && !p.released;
}
