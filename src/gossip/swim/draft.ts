import { COMPOUND_HEADER_OVERHEAD, COMPOUND_MAX_PARTS, COMPOUND_PART_OVERHEAD, USER_MESSAGE_OVERHEAD } from '../codec/limits';
import type { GossipMessage } from '../messages';
import type { PeerAddress } from './address';
import { QueueDraft, type BroadcastNotify, type BroadcastQueue } from './broadcast-queue';
import { retransmitLimit } from './config';
import type { LogLevel, LogReason, SendReason, StreamPurpose, SwimEffect, SwimOutEvent } from './effects';
import { LayeredMap } from './layered-map';
import { encodedSize } from './message-size';
import { protocolMax, type Member } from './member-table';
import { Random } from './random';
import type { PendingStream, SwimState, SwimStats } from './state';

/**
 * The working copy of one reducer step: SwimState with its collections copied and writable, the clock, a PRNG
 * cursor and the effects produced so far. Handlers take a Draft and change it; the caller's state is untouched.
 */
type Writable<T> =
  T extends ReadonlyMap<infer K, infer V>
    ? LayeredMap<K, V>
    : T extends BroadcastQueue
      ? QueueDraft
      : T extends readonly (infer E)[]
        ? E[]
        : T;
export type Draft = { -readonly [K in Exclude<keyof SwimState, 'rng' | 'probeOrder'>]: Writable<SwimState[K]> } & {
  /** Read here; written through writableProbeOrder (copied on the first write of a step, not on every step). */
  probeOrder: readonly string[];
  probeOrderOwned: boolean;
  readonly now: number;
  readonly random: Random;
  readonly effects: SwimEffect[];
};

// Both copies name every field: with a rest pattern ({ rng, ...rest }) and a spread, opening and closing a draft
// of a thousand-member state cost ~100 us (V8's generic copy, and objects it could not keep fast) against ~2 us
// here, and every node opens and closes one on every packet and tick. The compiler checks no field is missed.
export function openDraft(state: SwimState, now: number): Draft {
  return {
    config: state.config,
    self: state.self,
    // Layered maps: a step copies only what it writes (layered-map.ts), not every member on every packet.
    members: LayeredMap.over(state.members),
    probeOrder: state.probeOrder,
    probeOrderOwned: false,
    probeIndex: state.probeIndex,
    incarnation: state.incarnation,
    seqNo: state.seqNo,
    health: state.health,
    suspicions: LayeredMap.over(state.suspicions),
    probe: state.probe,
    relays: LayeredMap.over(state.relays),
    memberQueue: QueueDraft.over(state.memberQueue),
    userQueue: QueueDraft.over(state.userQueue),
    streams: LayeredMap.over(state.streams),
    nextStreamId: state.nextStreamId,
    joins: LayeredMap.over(state.joins),
    recentRtt: LayeredMap.over(state.recentRtt),
    lastHeard: LayeredMap.over(state.lastHeard),
    nextJoinId: state.nextJoinId,
    leaving: state.leaving,
    leaveDeadline: state.leaveDeadline,
    nextProbeAt: state.nextProbeAt,
    nextGossipAt: state.nextGossipAt,
    nextPushPullAt: state.nextPushPullAt,
    localUserState: state.localUserState,
    stats: state.stats,
    now,
    random: new Random(state.rng),
    effects: [],
  };
}

export function closeDraft(d: Draft): SwimState {
  return {
    config: d.config,
    self: d.self,
    members: d.members,
    probeOrder: d.probeOrder,
    probeIndex: d.probeIndex,
    incarnation: d.incarnation,
    seqNo: d.seqNo,
    health: d.health,
    suspicions: d.suspicions,
    probe: d.probe,
    relays: d.relays,
    memberQueue: d.memberQueue.value(),
    userQueue: d.userQueue.value(),
    streams: d.streams,
    nextStreamId: d.nextStreamId,
    joins: d.joins,
    recentRtt: d.recentRtt,
    lastHeard: d.lastHeard,
    nextJoinId: d.nextJoinId,
    leaving: d.leaving,
    leaveDeadline: d.leaveDeadline,
    nextProbeAt: d.nextProbeAt,
    nextGossipAt: d.nextGossipAt,
    nextPushPullAt: d.nextPushPullAt,
    localUserState: d.localUserState,
    rng: d.random.state,
    stats: d.stats,
  };
}

/** The probe order, ours to change in this step: a step that only reads it (nearly all) copies nothing. */
export function writableProbeOrder(d: Draft): string[] {
  if (!d.probeOrderOwned) {
    d.probeOrder = [...d.probeOrder];
    d.probeOrderOwned = true;
  }
  return d.probeOrder as string[];
}

export function log(
  d: Draft,
  level: LogLevel,
  reason: LogReason,
  message: string,
  fields?: Record<string, string | number | boolean>,
): void {
  d.effects.push({ type: 'log', level, reason, message, ...(fields ? { fields } : {}) });
}

export function emit(d: Draft, event: SwimOutEvent): void {
  d.effects.push({ type: 'emit', event });
}

export function bump(d: Draft, stat: keyof SwimStats, by = 1): void {
  d.stats = { ...d.stats, [stat]: d.stats[stat] + by };
}

/** memberlist estNumNodes: every member in the table, ourselves and the not yet reaped dead included. */
export function numNodes(d: Draft): number {
  return d.members.size;
}

export function nextSeqNo(d: Draft): number {
  d.seqNo = (d.seqNo + 1) >>> 0;
  return d.seqNo;
}

export function selfMember(d: Draft): Member | undefined {
  return d.members.get(d.self.name);
}

function recipientProtocol(d: Draft, to: PeerAddress): number | undefined {
  const member = to.name === undefined ? undefined : d.members.get(to.name);
  return member ? protocolMax(member) : undefined;
}

export function sendPacket(d: Draft, to: PeerAddress, messages: readonly GossipMessage[], reason: SendReason): void {
  const pmax = recipientProtocol(d, to);
  d.effects.push({ type: 'sendPacket', to, messages, reason, ...(pmax === undefined ? {} : { recipientProtocolMax: pmax }) });
  bump(d, 'packetsSent');
}

/** Bytes of a packet left for messages once the transport's own overhead is paid. */
function packetBudget(d: Draft): number {
  return d.config.udpBufferSize - d.config.packetOverhead - COMPOUND_HEADER_OVERHEAD;
}

/**
 * Takes pending broadcasts for `bytesAvailable` bytes: memberlist's own first, then user broadcasts in what is
 * left (memberlist getBroadcasts with the delegate's GetBroadcasts).
 */
function takePending(d: Draft, bytesAvailable: number, maxMessages: number): GossipMessage[] {
  const limit = retransmitLimit(d.config.retransmitMult, numNodes(d));
  // Finished broadcasts need no callback: leave() watches its broadcast leave the queue (join-leave.ts).
  const own = d.memberQueue.take(COMPOUND_PART_OVERHEAD, bytesAvailable, limit, maxMessages);
  const messages = [...own.messages];
  const avail = bytesAvailable - own.used;
  if (avail > COMPOUND_PART_OVERHEAD + USER_MESSAGE_OVERHEAD && messages.length < maxMessages) {
    const user = d.userQueue.take(COMPOUND_PART_OVERHEAD + USER_MESSAGE_OVERHEAD, avail, limit, maxMessages - messages.length);
    messages.push(...user.messages);
  }
  return messages;
}

/** A direct message with whatever broadcasts fit beside it (memberlist sendMsg). */
export function sendWithPiggyback(d: Draft, to: PeerAddress, message: GossipMessage, reason: SendReason): void {
  const extra = takePending(d, packetBudget(d) - encodedSize(message), COMPOUND_MAX_PARTS - 1);
  sendPacket(d, to, [message, ...extra], reason);
}

/** Broadcasts only, for a gossip round; empty when nothing is pending. */
export function takeGossip(d: Draft): GossipMessage[] {
  return takePending(d, packetBudget(d), COMPOUND_MAX_PARTS);
}

/** Queues a broadcast about node `key` (replacing older news about it). */
export function broadcast(d: Draft, key: string, message: GossipMessage, notify?: BroadcastNotify): void {
  d.memberQueue.enqueue({ key, message, size: encodedSize(message), ...(notify ? { notify } : {}) });
}

/** Starts a stream exchange and remembers what its reply is for. Returns the stream id. */
export function openStream(d: Draft, message: GossipMessage, pending: PendingStream): number {
  const stream = d.nextStreamId;
  d.nextStreamId = (d.nextStreamId + 1) % Number.MAX_SAFE_INTEGER;
  d.streams.set(stream, pending);
  const purpose: StreamPurpose = pending.purpose;
  d.effects.push({ type: 'openStream', stream, to: pending.to, message, deadline: pending.deadline, purpose });
  return stream;
}
