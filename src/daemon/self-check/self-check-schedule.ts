/**
 * When the split-brain self-check probes which owned address (beyond MetalLB, whose operators find two nodes
 * answering for one IP only by running arping by hand and seeing replies from several MACs). Pure: a reducer over
 * the owned (IP, interface) pairs with injected time and randomness; the SelfChecker shell sends the probes it
 * hands out.
 *
 * Every owned pair is probed every SELF_CHECK_INTERVAL_MS (with jitter; longer when the node owns more pairs than
 * SELF_CHECK_MAX_PROBES_PER_SECOND allows in that time), and soon after anything that can make
 * two owners: a new ownership (we just took the IP: did the old owner let go?), a membership change (a partition
 * healing, a node back: does someone else now think it owns ours?), and a conflict seen (to follow it until it
 * ends). At most SELF_CHECK_MAX_IN_FLIGHT probes run at once; the rest wait their turn, in due order.
 */
import { formatIP, type IP } from '../../ip';
import { ProbeDueQueue } from './probe-due-queue';

/**
 * The regular period. A conflict must show on every node within 10 s: a probe at most 3.3 s (with jitter) after
 * it starts, the 0.5 s reply window (probe-once.ts), a confirming recheck a second later where the answer needs
 * one, and a gossip broadcast (~0.2 s, a second on a loaded host) leave a few seconds of margin. It costs one
 * broadcast ARP request or Neighbor Solicitation per owned IP every 3 s; SELF_CHECK_MAX_PROBES_PER_SECOND
 * stretches the period for nodes owning many IPs.
 */
export const SELF_CHECK_INTERVAL_MS = 3_000;
/** ±10 % of the period, drawn per probe, so IPs taken together (a restart, a failover) do not probe in bursts. */
export const SELF_CHECK_JITTER = 0.1;
/**
 * "Soon" after a new ownership or a membership change. Gossip spreads a change through a LAN cluster in well
 * under a second (memberlist's gossip interval is 200 ms); an answer from another MAC then is judged against
 * the owner history and the election (expected-answer.ts), so a handover in progress is not reported.
 */
export const SELF_CHECK_SOON_MS = 1_000;
/**
 * While another MAC answers (a conflict, or an answer expected for a while), probe its IP this often: a conflict's
 * last-seen time stays fresh, its end shows quickly, and an expected answer that outlasts its window is reported
 * within a second of the window's end.
 */
export const SELF_CHECK_CONFLICT_RECHECK_MS = 1_000;
/**
 * Probes at once. Each holds a packet socket for about half a second (probe-once.ts), so 32 allow 64 probes a
 * second, above SELF_CHECK_MAX_PROBES_PER_SECOND: the rate limit paces the checks, not the sockets.
 */
export const SELF_CHECK_MAX_IN_FLIGHT = 32;
/**
 * Every probe is a broadcast frame each host on the segment must look at. 50 a second keep a node owning up to
 * 150 IPs at the 3 s period; beyond that the period stretches to owned / 50 s (10,000 IPs: one probe each every
 * 200 s) instead of flooding the segment. 50 small frames a second are far below what switches' broadcast storm
 * control acts on (commonly 1 % of a 1 Gbit/s link, ~15,000 frames a second).
 */
export const SELF_CHECK_MAX_PROBES_PER_SECOND = 50;
/**
 * Probes that may start together beyond the rate (the token bucket's size): a handful of new ownerships (a
 * failover) are all checked a second later, while the thousands of a cold start keep to the rate. At the full
 * rate it is also what one pass of the SelfChecker takes (self-checker.ts SELF_CHECK_PASS_SPACING_MS: 50 a
 * second gather 10 in the 200 ms between passes); ten small broadcast frames back to back are nothing to a switch.
 */
export const SELF_CHECK_BURST = 10;

export type ProbeReason = 'newOwnership' | 'membershipChanged' | 'periodic' | 'conflictRecheck' | 'conflictObserved';

export const PROBE_REASON_TEXT: Readonly<Record<ProbeReason, string>> = {
  newOwnership: 'this node just took the address: checking the previous owner let go',
  membershipChanged: 'cluster membership changed: checking no other node now claims the address',
  periodic: 'the regular check',
  conflictRecheck: 'another MAC answered last time: following it',
  conflictObserved: 'another MAC announced the address: checking who answers',
};

export interface SelfCheckTiming {
  readonly intervalMs: number;
  readonly jitter: number;
  readonly soonMs: number;
  readonly conflictRecheckMs: number;
  readonly maxInFlight: number;
  readonly maxProbesPerSecond: number;
  readonly burst: number;
}

const DEFAULT_SELF_CHECK_TIMING: SelfCheckTiming = {
  intervalMs: SELF_CHECK_INTERVAL_MS,
  jitter: SELF_CHECK_JITTER,
  soonMs: SELF_CHECK_SOON_MS,
  conflictRecheckMs: SELF_CHECK_CONFLICT_RECHECK_MS,
  maxInFlight: SELF_CHECK_MAX_IN_FLIGHT,
  maxProbesPerSecond: SELF_CHECK_MAX_PROBES_PER_SECOND,
  burst: SELF_CHECK_BURST,
};

/** The regular period for a node owning `pairs` (IP, interface) pairs: the interval, stretched by the rate limit. */
export function regularPeriodMs(timing: SelfCheckTiming, pairs: number): number {
  return Math.max(timing.intervalMs, Math.ceil((pairs * 1000) / timing.maxProbesPerSecond));
}

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
  /**
   * Probes that may start now (a token bucket refilled at maxProbesPerSecond, holding at most burst), as of
   * `at`; undefined: full. Even a burst of new ownerships (a cold start with 10,000 IPs) keeps to the rate.
   */
  readonly budget?: { readonly tokens: number; readonly at: number };
  /**
   * The waiting probes by due time and the count in flight, over `probes` (probe-due-queue.ts): built with each
   * new map of probes, and kept up to date with it where takeDue and probeDone change it in place.
   */
  readonly queue: ProbeDueQueue;
  /**
   * The keys of each owned IP's pairs (one per interface it is announced on), by ipKey: whether an IP is owned and
   * which probes a sighting brings forward are looked up, not found by walking every pair. During a handover of
   * thousands of IPs each of the other side's gratuitous ARPs asks both, and walks made it quadratic: seconds of
   * a held event loop at 10,000 owned IPs.
   */
  readonly byIp: ReadonlyMap<string, readonly string[]>;
}

const ownedKey = (a: OwnedAddress): string => `${formatIP(a.ip)}%${a.interface}`;
/** An IP as a map key (cheaper than its text). */
const ipKey = (ip: IP): string => `${ip.family}:${ip.value}`;

/** The byIp index of a map of probes (released pairs included: isOwned reads their flag). */
function indexByIp(probes: ReadonlyMap<string, ScheduledProbe>): Map<string, string[]> {
  const byIp = new Map<string, string[]>();
  for (const p of probes.values()) {
    const k = ipKey(p.ip);
    const keys = byIp.get(k);
    if (keys) keys.push(p.key);
    else byIp.set(k, [p.key]);
  }
  return byIp;
}

export function emptySchedule(timing: Partial<SelfCheckTiming> = {}): SelfCheckSchedule {
  const probes = new Map<string, ScheduledProbe>();
  return { timing: { ...DEFAULT_SELF_CHECK_TIMING, ...timing }, probes, queue: new ProbeDueQueue(probes), byIp: new Map() };
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
    else
      probes.set(key, {
        key,
        ip: a.ip,
        interface: a.interface,
        dueAt: now + schedule.timing.soonMs,
        reason: 'newOwnership',
        inFlight: false,
      });
  }
  for (const [key, p] of schedule.probes) if (p.inFlight && !probes.has(key)) probes.set(key, { ...p, released: true });
  return { ...schedule, probes, queue: new ProbeDueQueue(probes), byIp: indexByIp(probes) };
}

/** `p` brought forward to `at` for `reason` (never later than it was due); undefined when it stays as it is. */
function broughtForward(p: ScheduledProbe, at: number, reason: ProbeReason): ScheduledProbe | undefined {
  if (p.released) return undefined;
  if (p.inFlight) return { ...p, again: reason };
  return p.dueAt <= at ? undefined : { ...p, dueAt: at, reason };
}

/** Every owned pair probed soon: now + soon, never later than it was due. */
export function membershipChanged(schedule: SelfCheckSchedule, now: number): SelfCheckSchedule {
  const at = now + schedule.timing.soonMs;
  const probes = new Map<string, ScheduledProbe>();
  for (const [key, p] of schedule.probes) probes.set(key, broughtForward(p, at, 'membershipChanged') ?? p);
  return { ...schedule, probes, queue: new ProbeDueQueue(probes) };
}

/**
 * Another MAC claimed `ip` (a gratuitous ARP or an unsolicited NA): probe it soon on every interface it is owned on.
 * Changes the schedule's probes and queue in place, as takeDue does: a handover of thousands of IPs brings
 * thousands of such claims, and a copy of every pair per claim made it quadratic.
 */
export function conflictObserved(schedule: SelfCheckSchedule, ip: IP, now: number): SelfCheckSchedule {
  const at = now + schedule.timing.soonMs;
  const probes = schedule.probes as Map<string, ScheduledProbe>;
  let changed = false;
  for (const key of schedule.byIp.get(ipKey(ip)) ?? []) {
    const p = probes.get(key);
    const next = p && broughtForward(p, at, 'conflictObserved');
    if (!next) continue;
    probes.set(key, next);
    if (!next.inFlight) schedule.queue.push(key, next.dueAt);
    changed = true;
  }
  return changed ? { ...schedule, probes } : schedule;
}

/**
 * Hands out the due probes, earliest first (ties in owned order), up to the in-flight limit, and marks them in
 * flight. Updates the given schedule's probes and queue in place (and returns a schedule sharing them): a copy of
 * every owned pair per probe, and later a walk over them all per pass, were most of an idle daemon's CPU with
 * 10,000 owned IPs. The schedule passed in is not to be used afterwards.
 */
export function takeDue(schedule: SelfCheckSchedule, now: number): { schedule: SelfCheckSchedule; due: ScheduledProbe[] } {
  const tokens = tokensAt(schedule, now);
  const { queue } = schedule;
  const room = Math.min(schedule.timing.maxInFlight - queue.inFlight, Math.floor(tokens));
  if (room <= 0) return { schedule, due: [] };
  const probes = schedule.probes as Map<string, ScheduledProbe>;
  const due: ScheduledProbe[] = [];
  for (let key = queue.takeDue(now); key !== undefined; key = due.length < room ? queue.takeDue(now) : undefined) {
    const p = probes.get(key) as ScheduledProbe;
    probes.set(key, { ...p, inFlight: true });
    queue.inFlight++;
    due.push(p);
  }
  if (due.length === 0) return { schedule, due: [] };
  return { schedule: { ...schedule, probes, budget: { tokens: tokens - due.length, at: now } }, due };
}

/** The token bucket's level at `now` (self-check rate limit). */
function tokensAt(schedule: SelfCheckSchedule, now: number): number {
  const { burst, maxProbesPerSecond } = schedule.timing;
  const b = schedule.budget;
  if (!b) return burst;
  return Math.min(burst, b.tokens + (Math.max(0, now - b.at) * maxProbesPerSecond) / 1000);
}

/**
 * A probe finished: next due at the regular period (regularPeriodMs, jittered by `random` in [0, 1)), or at the
 * recheck period when another MAC answered, or soon when something happened meanwhile. A key no longer owned is
 * dropped. Like takeDue, updates the given schedule's probes in place (one entry, not a copy of all).
 */
export function probeDone(
  schedule: SelfCheckSchedule,
  key: string,
  now: number,
  outcome: { readonly conflict: boolean },
  random: () => number,
): SelfCheckSchedule {
  const p = schedule.probes.get(key);
  if (!p) return schedule;
  const probes = schedule.probes as Map<string, ScheduledProbe>;
  const { queue } = schedule;
  if (p.inFlight) queue.inFlight--;
  if (p.released) {
    probes.delete(key);
    return { ...schedule, probes };
  }
  const { jitter, soonMs, conflictRecheckMs } = schedule.timing;
  // Released pairs still listed are few (only those with a probe in flight): the size is close enough.
  const periodMs = regularPeriodMs(schedule.timing, schedule.probes.size);
  let next: Pick<ScheduledProbe, 'dueAt' | 'reason'>;
  if (p.again) next = { dueAt: now + soonMs, reason: p.again };
  else if (outcome.conflict) next = { dueAt: now + conflictRecheckMs, reason: 'conflictRecheck' };
  else next = { dueAt: now + Math.round(periodMs * (1 + jitter * (2 * random() - 1))), reason: 'periodic' };
  // Fields in setOwned's order: one object shape for every waiting probe keeps the passes' reads monomorphic.
  probes.set(key, { key, ip: p.ip, interface: p.interface, dueAt: next.dueAt, reason: next.reason, inFlight: false });
  queue.push(key, next.dueAt);
  return { ...schedule, probes };
}

/** When the next probe not in flight is due (and the rate limit lets it start); undefined when there is none. */
export function nextDueAt(schedule: SelfCheckSchedule): number | undefined {
  // Every slot taken: nothing can start before a probe ends, and its end (probeDone) is the next wake-up. A due
  // time here would be in the past and wake the shell at once, again and again, until a slot frees.
  if (schedule.queue.inFlight >= schedule.timing.maxInFlight) return undefined;
  const next = schedule.queue.nextDueAt();
  const b = schedule.budget;
  if (next === undefined || !b || b.tokens >= 1) return next;
  // The rate limit is spent: not before the bucket holds a whole token again.
  return Math.max(next, b.at + Math.ceil(((1 - b.tokens) * 1000) / schedule.timing.maxProbesPerSecond));
}

export function isOwned(schedule: SelfCheckSchedule, ip: IP): boolean {
  return (schedule.byIp.get(ipKey(ip)) ?? []).some((key) => isOwnedKey(schedule, key));
}

/** Whether the pair behind `key` is still owned (a probe's result for a released pair is stale). */
export function isOwnedKey(schedule: SelfCheckSchedule, key: string): boolean {
  const p = schedule.probes.get(key);
  return p !== undefined && !p.released;
}
