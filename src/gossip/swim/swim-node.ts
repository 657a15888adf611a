import { DEFAULT_VSN, VSN_LENGTH, type GossipMessage } from '../messages';
import type { PeerAddress } from './address';
import { aliveNode, checkVsn } from './alive';
import { EMPTY_BROADCAST_QUEUE } from './broadcast-queue';
import { LAN_CONFIG, validateConfig, type SwimConfig } from './config';
import { closeDraft, emit, log, openDraft, type Draft } from './draft';
import type { SwimEffect } from './effects';
import { SwimConfigError, SwimConfigErrorCode } from './errors';
import type { SwimEvent } from './events';
import { checkLeave, checkMeta, setMeta, startJoin, startLeave } from './join-leave';
import { handleAck, handleIndirectPing, handleNack, handlePing } from './ping-handlers';
import { MapIndex } from './layered-map';
import type { Member } from './member-table';
import { seedRng } from './random';
import { ZERO_STATS, type SwimState } from './state';
import { handleInboundStream, handleStreamFailed, handleStreamReply } from './streams';
import { deadNode, suspectNode } from './suspect-dead';
import { nextDeadline, runDueTimers } from './timers';

/**
 * The SWIM node as a reducer: step(state, event, now) -> { state, effects, nextDeadline }. Pure: no I/O, no
 * clock, no Math.random; the PRNG state travels in SwimState. The driver performs the effects in order and
 * calls step again with the next event, or with a tick at nextDeadline.
 */
export interface StepResult {
  readonly state: SwimState;
  readonly effects: readonly SwimEffect[];
  /** When to tick next if nothing arrives before (Infinity: no timer pending). */
  readonly nextDeadline: number;
}

/** At most this many user broadcasts wait in the queue; beyond it the most transmitted are dropped. */
const MAX_QUEUED_USER_BROADCASTS = 1024;

export interface SwimNodeOptions {
  readonly name: string;
  /** The address we advertise, byte for byte as peers must see it (4 bytes for a specific IPv4 bind). */
  readonly addr: Uint8Array;
  readonly port: number;
  readonly meta?: Uint8Array;
  readonly config?: SwimConfig;
  readonly vsn?: Uint8Array;
  readonly userState?: Uint8Array;
  /** Seed of the node's PRNG (probe order, offsets, gossip targets, staggers). */
  readonly seed: number;
  readonly now: number;
}

function checkIdentity(options: SwimNodeOptions, vsn: Uint8Array): void {
  const bad = (why: string): never => {
    throw new SwimConfigError(SwimConfigErrorCode.invalidIdentity, `invalid local node: ${why}`);
  };
  if (options.name === '') bad('empty name');
  if (options.addr.length !== 4 && options.addr.length !== 16) bad(`address of ${options.addr.length} bytes`);
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) bad(`port ${options.port}`);
  const vsnProblem = vsn.length === VSN_LENGTH ? checkVsn(vsn) : `Vsn has ${vsn.length} bytes`;
  if (vsnProblem) throw new SwimConfigError(SwimConfigErrorCode.invalidVsn, vsnProblem);
  checkMeta(options.meta);
}

/**
 * A node that has just started (memberlist Create + setAlive): itself alive at incarnation 1, its alive
 * message queued for broadcast, timers at a random phase within their first interval so nodes started
 * together do not probe and gossip in lockstep. Throws SwimConfigError for an unusable configuration.
 */
export function createSwimNode(options: SwimNodeOptions): StepResult {
  const config = validateConfig(options.config ?? LAN_CONFIG);
  const vsn = options.vsn ?? Uint8Array.from(DEFAULT_VSN);
  checkIdentity(options, vsn);
  const initial: SwimState = {
    config,
    self: { name: options.name, addr: options.addr, port: options.port, vsn },
    members: new Map(),
    probeOrder: [],
    probeIndex: 0,
    incarnation: 0,
    seqNo: 0,
    health: 0,
    suspicions: new Map(),
    probe: undefined,
    relays: new Map(),
    memberQueue: EMPTY_BROADCAST_QUEUE,
    userQueue: EMPTY_BROADCAST_QUEUE,
    streams: new Map(),
    nextStreamId: 1,
    joins: new Map(),
    recentRtt: new Map(),
    lastHeard: new Map(),
    nextJoinId: 1,
    leaving: false,
    leaveDeadline: undefined,
    nextProbeAt: options.now,
    nextGossipAt: options.now,
    nextPushPullAt: options.now,
    localUserState: options.userState ?? new Uint8Array(0),
    rng: seedRng(options.seed),
    stats: ZERO_STATS,
  };
  const d = openDraft(initial, options.now);
  d.nextProbeAt = options.now + d.random.stagger(config.probeInterval);
  d.nextGossipAt = options.now + d.random.stagger(Math.max(1, config.gossipInterval));
  d.nextPushPullAt = options.now + d.random.stagger(Math.max(1, config.pushPullInterval)) + config.pushPullInterval;
  d.incarnation = 1;
  aliveNode(
    d,
    {
      type: 'alive',
      incarnation: 1,
      node: options.name,
      addr: options.addr,
      port: options.port,
      ...(options.meta === undefined ? {} : { meta: options.meta }),
      vsn,
    },
    true,
  );
  log(d, 'info', 'started', `node ${options.name} started`, { incarnation: 1 });
  return finish(d);
}

function finish(d: Draft): StepResult {
  checkLeave(d);
  const state = closeDraft(d);
  return { state, effects: d.effects, nextDeadline: nextDeadline(state) };
}

/** One message of a UDP packet. Receive paths never throw: anything unexpected is logged and dropped. */
function handleMessage(d: Draft, message: GossipMessage, from: PeerAddress): void {
  switch (message.type) {
    case 'ping':
      return handlePing(d, message, from);
    case 'indirectPing':
      return handleIndirectPing(d, message, from);
    case 'ack':
      return handleAck(d, message);
    case 'nack':
      return handleNack(d, message);
    case 'suspect':
      return suspectNode(d, message);
    case 'alive':
      return aliveNode(d, message, false);
    case 'dead':
      return deadNode(d, message);
    case 'user':
      return emit(d, { type: 'userMessage', payload: message.payload, from });
    case 'pushPull':
    case 'err':
      d.stats = { ...d.stats, messagesDropped: d.stats.messagesDropped + 1 };
      return log(d, 'debug', 'unexpectedMessage', `dropping ${message.type} received as a packet`);
  }
}

/**
 * Remembers when the member at `from` last sent us anything: extendWhenHeard judges a late ack by it, and the
 * daemon measures how long a crashed owner's IPs went unanswered from it (one pass over the members per packet).
 */
function noteHeard(d: Draft, from: PeerAddress): void {
  const name = d.members.findBy(MEMBER_BY_ADDRESS, addressKey(from.addr, from.port));
  if (name !== undefined) d.lastHeard.set(name, d.now);
}

/** Members by where they are: a packet names no sender, only its source address. */
const MEMBER_BY_ADDRESS = new MapIndex<Member>((m) => addressKey(m.addr, m.port));

function addressKey(addr: Uint8Array, port: number): string {
  return `${addr.join('.')}:${port}`;
}

function handleEvent(d: Draft, event: SwimEvent): void {
  switch (event.type) {
    case 'tick':
      return;
    case 'packet':
      noteHeard(d, event.from);
      for (const message of event.messages) handleMessage(d, message, event.from);
      return;
    case 'inboundStream':
      return handleInboundStream(d, event.stream, event.from, event.message);
    case 'streamReply':
      return handleStreamReply(d, event.stream, event.message);
    case 'streamFailed':
      return handleStreamFailed(d, event.stream, event.error);
    case 'join':
      return startJoin(d, event.targets);
    case 'leave':
      return startLeave(d, event.timeout);
    case 'setMeta':
      return setMeta(d, event.meta);
    case 'broadcast': {
      d.userQueue.enqueue({
        ...(event.key === undefined ? {} : { key: event.key }),
        message: { type: 'user', payload: event.payload },
        size: event.payload.length,
      });
      d.userQueue.prune(MAX_QUEUED_USER_BROADCASTS);
      return;
    }
    case 'setLocalState':
      d.localUserState = event.userState;
      return;
  }
}

/**
 * The reducer. Fires the timers due at `now`, handles the event, fires what the event made due (a confirmed
 * suspicion can be overdue at once), and reports the next deadline. `now` must not go backwards.
 */
export function step(state: SwimState, event: SwimEvent, now: number): StepResult {
  const d = openDraft(state, now);
  runDueTimers(d);
  handleEvent(d, event);
  runDueTimers(d);
  return finish(d);
}
