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

/** Candidate deadlines, in the order ties are broken (the probe first: its verdict precedes stream expiry). */
function* deadlines(s: SwimState | Draft): Generator<Due> {
  const probe = s.probe;
  if (probe) {
    if (!probe.indirectSent) yield { at: probe.indirectAt, kind: 'probeIndirect' };
    yield { at: probe.deadline, kind: 'probeExpired' };
  } else {
    yield { at: s.nextProbeAt, kind: 'probeStart' };
  }
  if (s.config.gossipInterval > 0 && s.config.gossipNodes > 0) yield { at: s.nextGossipAt, kind: 'gossip' };
  if (s.config.pushPullInterval > 0) yield { at: s.nextPushPullAt, kind: 'pushPull' };
  for (const [node, suspicion] of s.suspicions) yield { at: suspicion.deadline, kind: 'suspicion', node };
  for (const [id, relay] of s.relays) yield { at: relay.expiresAt, kind: 'relay', id };
  for (const [id, stream] of s.streams) yield { at: stream.deadline, kind: 'stream', id };
  if (s.leaveDeadline !== undefined) yield { at: s.leaveDeadline, kind: 'leave' };
}

function earliest(s: SwimState | Draft): Due | undefined {
  let best: Due | undefined;
  for (const due of deadlines(s)) if (!best || due.at < best.at) best = due;
  return best;
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
