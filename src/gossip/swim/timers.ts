import type { Draft } from './draft';
import { gossipRound, pushPullRound } from './gossip';
import { checkLeave } from './join-leave';
import { relayExpired } from './ping-handlers';
import { probeExpired, probeIndirect, startProbe } from './probe';
import type { SwimState } from './state';
import { streamExpired } from './streams';
import { suspicionExpired } from './suspect-dead';

/**
 * Time in the reducer: no timers are scheduled anywhere. Every deadline is a field of the state, the driver
 * asks nextDeadline(state) and calls step(state, tick, now) at (or after) that moment, and every step first
 * fires, in time order, whatever is due at `now`. A driver that ticks late only makes things late.
 */
type Due =
  | { readonly at: number; readonly kind: 'probeIndirect' | 'probeExpired' | 'probeStart' | 'gossip' | 'pushPull' | 'leave' }
  | { readonly at: number; readonly kind: 'suspicion'; readonly node: string }
  | { readonly at: number; readonly kind: 'relay' | 'stream'; readonly id: number };

/** One step never fires more timers than this (each firing removes or moves its deadline: a safety net). */
const MAX_TIMERS_PER_STEP = 100_000;

/**
 * The earliest deadline, ties broken by the order the candidates are looked at (the probe first: its verdict
 * precedes stream expiry). Asked two or three times per step by every node: a plain walk that builds one Due at
 * the end, not one object per candidate.
 */
function earliest(s: SwimState | Draft): Due | undefined {
  let at = Number.POSITIVE_INFINITY;
  let kind: Due['kind'] | undefined;
  let node = '';
  let id = 0;
  const probe = s.probe;
  // Alone in the table (no peer, not even a dead one to reap): a probe or gossip tick would find no one, so the
  // node sleeps until a packet, a stream or a command arrives. Both deadlines stay on their grid and fire once,
  // late, when a member appears; memberlist's tickers would have found no one either (a lone host's idle CPU).
  const alone = s.members.size <= 1;
  if (probe) {
    if (!probe.indirectSent) {
      at = probe.indirectAt;
      kind = 'probeIndirect';
    }
    if (kind === undefined || probe.deadline < at) {
      at = probe.deadline;
      kind = 'probeExpired';
    }
  } else if (!alone) {
    at = s.nextProbeAt;
    kind = 'probeStart';
  }
  if (!alone && s.config.gossipInterval > 0 && s.config.gossipNodes > 0 && s.nextGossipAt < at) {
    at = s.nextGossipAt;
    kind = 'gossip';
  }
  if (s.config.pushPullInterval > 0 && s.nextPushPullAt < at) {
    at = s.nextPushPullAt;
    kind = 'pushPull';
  }
  for (const [name, suspicion] of s.suspicions) {
    if (suspicion.deadline < at) {
      at = suspicion.deadline;
      kind = 'suspicion';
      node = name;
    }
  }
  for (const [key, relay] of s.relays) {
    if (relay.expiresAt < at) {
      at = relay.expiresAt;
      kind = 'relay';
      id = key;
    }
  }
  for (const [key, stream] of s.streams) {
    if (stream.deadline < at) {
      at = stream.deadline;
      kind = 'stream';
      id = key;
    }
  }
  if (s.leaveDeadline !== undefined && s.leaveDeadline < at) {
    at = s.leaveDeadline;
    kind = 'leave';
  }
  if (kind === undefined) return undefined;
  if (kind === 'suspicion') return { at, kind, node };
  if (kind === 'relay' || kind === 'stream') return { at, kind, id };
  return { at, kind };
}

/** When the node next needs a tick (Infinity: never, until something arrives). */
export function nextDeadline(s: SwimState): number {
  return earliest(s)?.at ?? Number.POSITIVE_INFINITY;
}

/** The first grid point `start + i x interval` strictly after `now` (memberlist's tickers drop missed ticks). */
function nextOnGrid(start: number, interval: number, now: number): number {
  if (start > now) return start;
  return start + (Math.floor((now - start) / interval) + 1) * interval;
}

function fire(d: Draft, due: Due): void {
  switch (due.kind) {
    case 'probeIndirect':
      return probeIndirect(d);
    case 'probeExpired':
      return probeExpired(d);
    case 'probeStart':
      d.nextProbeAt = nextOnGrid(d.nextProbeAt, d.config.probeInterval, d.now);
      return startProbe(d);
    case 'gossip':
      d.nextGossipAt = nextOnGrid(d.nextGossipAt, d.config.gossipInterval, d.now);
      return gossipRound(d);
    case 'pushPull':
      return pushPullRound(d);
    case 'suspicion':
      return suspicionExpired(d, due.node);
    case 'relay':
      return relayExpired(d, due.id);
    case 'stream':
      return streamExpired(d, due.id);
    case 'leave':
      return checkLeave(d);
  }
}

/** Fires everything due at d.now, earliest first. */
export function runDueTimers(d: Draft): void {
  for (let i = 0; i < MAX_TIMERS_PER_STEP; i++) {
    const due = earliest(d);
    if (!due || due.at > d.now) return;
    fire(d, due);
  }
}
