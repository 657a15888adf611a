/**
 * A memberlist-compatible gossip node: the imperative shell around the pure SWIM reducer (swim/) and codecs
 * (codec/). Time, timers, randomness and sockets all come from the runtime it is given (src/runtime: real
 * sockets and the wall clock by default); the runtime's MachineDriver feeds the reducer packets, streams and a
 * tick at exactly its next deadline. It exposes the API the daemon uses: join, leave, members, events, meta,
 * broadcasts and push/pull user state.
 */
import { EventEmitter } from 'node:events';
import {
  decodePacket,
  encodePacket,
  encodeStream,
  INBOUND_STREAM_BUDGET_BYTES,
  INBOUND_STREAMS_MAX,
  Keyring,
  packetOverhead,
  StreamBudget,
  StreamReader,
} from './codec';
import type { GossipMessage } from './messages';
import {
  createSwimNode,
  LAN_CONFIG,
  confirmedSuspects,
  liveMembers,
  step,
  type LeaveOutcome,
  type LogLevel,
  type Member,
  type PeerAddress,
  type SwimConfig,
  type SwimEffect,
  type SwimEvent,
  type SwimOutEvent,
  type SwimState,
  type OpenStream,
  type StepResult,
} from './swim';
import { GossipTransport } from './transport/gossip-transport';
import { addressBytes, formatHostPort, hostFromBytes, type HostPort } from './transport/address';
import { countDrop, emptyCounters, type GossipCounters } from './gossip-stats';
import { isKeyMismatch, keyMismatchMessage, KeyMismatchLimiter, type KeyMismatchReason } from './key-mismatch';
import { readOneMessage, UndecodableReply } from './stream-reply';
import { CodedError } from '../errors/coded-error';
import { MachineDriver, REAL_RUNTIME, type ByteStream, type Runtime } from '../runtime';
import { SILENT_LOG, type Log } from '../runtime/log';

/** memberlist EnableCompression: on by default (LAN and WAN) and MetalLB keeps it. */
const DEFAULT_COMPRESSION = true;
const CLOSED_ERROR = 'the gossip node was closed';
/** Addresses that mean "every interface": peers cannot reach us there, so an advertised address is required. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
/** The reducer's PRNG seed is a non-negative 31-bit integer (swim/random.ts). */
const SEED_RANGE = 2 ** 31;

/**
 * The reducer packs broadcasts into UDPBufferSize minus what encodePacket adds around them (the encryption
 * overhead here), so an encrypted packet stays as small as Go's and fits the MTU UDPBufferSize was chosen for.
 */
function withPipelineOverhead(config: SwimConfig, keyring: Keyring | undefined): SwimConfig {
  const overhead = packetOverhead(keyring ? { keyring } : {});
  return overhead > config.packetOverhead ? { ...config, packetOverhead: overhead } : config;
}

export class GossipNodeError extends CodedError<'advertiseRequired'> {
  constructor(message: string) {
    super('advertiseRequired', message);
  }
}

export interface GossipNodeOptions {
  readonly name: string;
  /** Where to listen; port 0 picks a free one. */
  readonly bind: HostPort;
  /** The address peers reach us at (default: the bind host; required when binding 0.0.0.0 or ::). */
  readonly advertiseHost?: string;
  readonly config?: SwimConfig;
  /** Encrypts everything with the primary key; without one, traffic is plain. */
  readonly keyring?: Keyring;
  readonly meta?: Uint8Array;
  readonly compress?: boolean;
  /** Seed of the reducer's PRNG (default: one drawn from the runtime's randomness); tests fix it. */
  readonly seed?: number;
  /** Clock, timers, randomness and network (default REAL_RUNTIME); tests pass a skewed clock or an in-memory network. */
  readonly runtime?: Runtime;
  /**
   * Where the reducer's log lines and the shell's own problems (sockets, traffic a different gossip key made
   * unreadable) go, each as `{ event: 'gossip', reason, ...fields }` with its message; silent by default.
   */
  readonly log?: Log;
  /**
   * Called whenever what the node's accessors return may have changed: after every step of the reducer (a timer,
   * a packet, a stream, a command), and when traffic only moves a counter (a packet or stream dropped, refused). A view kept elsewhere (the
   * gossip thread's) refreshes on it instead of polling, so a node with nothing to do wakes no one.
   */
  readonly onActivity?: () => void;
}

export interface JoinResult {
  readonly joined: number;
  readonly errors: readonly { readonly to: string; readonly error: string }[];
}

export interface GossipNodeEvents {
  join: [Member];
  leave: [Member];
  update: [Member];
  /** A suspicion of the member became confirmed (true), or a confirmed one was refuted (false). */
  suspicion: [Member, boolean];
  conflict: [Extract<SwimOutEvent, { type: 'conflict' }>];
  userMessage: [Uint8Array, HostPort];
  remoteState: [Uint8Array, boolean];
}

/**
 * What the daemon uses of a gossip node: a GossipNode on the caller's runtime, or the daemon's mirror of one
 * running on a thread of its own (src/daemon/gossip-thread/threaded-gossip.ts).
 */
export interface Gossip {
  readonly localAddress: HostPort;
  readonly counters: GossipCounters;
  on<K extends keyof GossipNodeEvents>(event: K, listener: (...args: GossipNodeEvents[K]) => void): unknown;
  members(): Member[];
  liveMembers(): Member[];
  confirmedSuspects(): Map<string, number>;
  join(addresses: readonly HostPort[]): Promise<JoinResult>;
  leave(timeoutMs: number): Promise<LeaveOutcome>;
  setMeta(meta: Uint8Array): void;
  broadcast(payload: Uint8Array, key?: string): void;
  setLocalState(userState: Uint8Array): void;
  lastHeardFrom(name: string): number | undefined;
  healthScore(): number;
  close(): Promise<void>;
}

export class GossipNode extends EventEmitter<GossipNodeEvents> implements Gossip {
  readonly counters: GossipCounters = emptyCounters();
  private readonly driver: MachineDriver<SwimState, SwimEvent, SwimEffect, StepResult>;
  /** Inbound streams whose reply the reducer still owes, by stream id. */
  private readonly inbound = new Map<number, ByteStream>();
  /** Every inbound connection still open (replied to or not): what INBOUND_STREAMS_MAX caps. */
  private readonly openInbound = new Set<ByteStream>();
  /** What all inbound streams together may buffer before their messages are complete. */
  private readonly inboundBudget = new StreamBudget(INBOUND_STREAM_BUDGET_BYTES);
  private nextInboundId = 1;
  /**
   * The request id the reducer gives the next join event: it numbers joins in the order it steps them, and the
   * driver steps events in the order they were dispatched, so a join() called while another event is being
   * stepped (from an event handler) still waits for its own result.
   */
  private nextJoinRequest: number;
  private readonly joinWaiters = new Map<number, (r: JoinResult) => void>();
  private leaveWaiter: ((o: LeaveOutcome) => void) | undefined;
  private closed = false;
  private readonly runtime: Runtime;
  private readonly compress: boolean;
  private readonly keyMismatches = new KeyMismatchLimiter();

  private constructor(
    private readonly options: GossipNodeOptions,
    private readonly transport: GossipTransport,
    runtime: Runtime,
  ) {
    super();
    this.runtime = runtime;
    this.compress = options.compress ?? DEFAULT_COMPRESSION;
    const advertise = options.advertiseHost ?? options.bind.host;
    const created = createSwimNode({
      name: options.name,
      addr: addressBytes(advertise),
      port: transport.local.port,
      ...(options.meta ? { meta: options.meta } : {}),
      config: withPipelineOverhead(options.config ?? LAN_CONFIG, options.keyring),
      seed: options.seed ?? runtime.randomInt(SEED_RANGE),
      now: runtime.now(),
    });
    this.nextJoinRequest = created.state.nextJoinId;
    this.driver = new MachineDriver<SwimState, SwimEvent, SwimEffect, StepResult>(
      {
        runtime,
        step,
        perform: (effect) => this.perform(effect),
        deadline: { of: (r) => r.nextDeadline, event: { type: 'tick' } },
        ...(options.onActivity ? { afterStep: options.onActivity } : {}),
      },
      created.state,
    );
    this.driver.start(created);
  }

  /** Binds the sockets and starts the node alive at incarnation 1 (memberlist Create). */
  static async create(options: GossipNodeOptions): Promise<GossipNode> {
    if (WILDCARD_HOSTS.has(options.advertiseHost ?? options.bind.host)) {
      throw new GossipNodeError(`bound to ${options.bind.host}: peers need a concrete address (advertiseHost) to reach this node`);
    }
    const runtime = options.runtime ?? REAL_RUNTIME;
    let node: GossipNode | undefined;
    const transport = await GossipTransport.listen(runtime.net, options.bind, {
      onPacket: (bytes, from) => node?.receivePacket(bytes, from),
      onStream: (stream) => (node ? node.acceptStream(stream) : stream.destroy()),
      onError: (what, error) => node?.shellLog('debug', 'socketError', `${what}: ${error.message}`),
    });
    node = new GossipNode(options, transport, runtime);
    return node;
  }

  private get state(): SwimState {
    return this.driver.state;
  }

  get localAddress(): HostPort {
    return this.transport.local;
  }

  /** Every known member with its state (alive, suspect, dead, left), ourselves included. */
  members(): Member[] {
    return [...this.state.members.values()].filter((m) => Number.isFinite(m.stateChange));
  }

  /** Alive or suspect members: MetalLB's "usable speakers". */
  liveMembers(): Member[] {
    return liveMembers(this.state);
  }

  /** Members whose suspicion is confirmed, with when it was (swim/confirmed-suspects.ts). */
  confirmedSuspects(): Map<string, number> {
    return confirmedSuspects(this.state);
  }

  /** memberlist Join: a push/pull with every address; resolves when all have answered or failed. */
  join(addresses: readonly HostPort[]): Promise<JoinResult> {
    if (this.closed) return Promise.resolve({ joined: 0, errors: [{ to: '*', error: CLOSED_ERROR }] });
    const id = this.nextJoinRequest++;
    const done = new Promise<JoinResult>((resolve) => this.joinWaiters.set(id, resolve));
    this.dispatch({ type: 'join', targets: addresses.map((a) => ({ addr: addressBytes(a.host), port: a.port })) });
    return done;
  }

  /** memberlist Leave(timeout): tells the cluster we are leaving and waits until that went out. */
  leave(timeoutMs: number): Promise<LeaveOutcome> {
    if (this.closed) return Promise.resolve('alreadyLeft');
    // A second leave() while the first is under way is answered at once, as the reducer would answer it; the
    // first call keeps waiting for the outcome of its broadcast.
    if (this.leaveWaiter) return Promise.resolve('alreadyLeft');
    return new Promise<LeaveOutcome>((resolve) => {
      this.leaveWaiter = resolve;
      this.dispatch({ type: 'leave', timeout: timeoutMs });
    });
  }

  setMeta(meta: Uint8Array): void {
    this.dispatch({ type: 'setMeta', meta });
  }

  /** Gossips bytes to every member (a newer broadcast with the same key replaces a queued one). */
  broadcast(payload: Uint8Array, key?: string): void {
    this.dispatch({ type: 'broadcast', payload, ...(key === undefined ? {} : { key }) });
  }

  /** The user state sent with every push/pull (memberlist Delegate.LocalState). */
  setLocalState(userState: Uint8Array): void {
    this.dispatch({ type: 'setLocalState', userState });
  }

  /** When `name` last sent us a packet (epoch ms); undefined if never, or once it was forgotten (reaped). */
  lastHeardFrom(name: string): number | undefined {
    return this.state.lastHeard.get(name);
  }

  healthScore(): number {
    return this.state.health;
  }

  /** Stops timers and sockets without telling anyone (memberlist Shutdown); call leave() first to be polite. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.driver.close();
    // Nobody may wait forever on a closed node: pending joins fail, a pending leave timed out.
    for (const waiter of this.joinWaiters.values()) waiter({ joined: 0, errors: [{ to: '*', error: CLOSED_ERROR }] });
    this.joinWaiters.clear();
    this.leaveWaiter?.('timeout');
    this.leaveWaiter = undefined;
    for (const stream of this.openInbound) stream.destroy();
    await this.transport.close();
  }

  // ------------------------------------------------------------------------------------------ the loop

  /**
   * Steps the reducer through the driver; the tick at its next deadline is the driver's too (the runtime's
   * scheduler lets sockets already readable be read first, so an ack in the buffer beats the probe deadline).
   */
  private dispatch(event: SwimEvent): void {
    this.driver.dispatch(event);
  }

  private perform(effect: SwimEffect): void {
    switch (effect.type) {
      case 'sendPacket':
        this.sendPacket(effect.to, effect.messages, (effect.recipientProtocolMax ?? 0) >= 5);
        return;
      case 'openStream':
        void this.openStream(effect);
        return;
      case 'replyStream':
        this.replyStream(effect.stream, effect.message);
        return;
      case 'emit':
        this.emitOut(effect.event);
        return;
      case 'log':
        this.write(effect.level, effect.reason, effect.message, effect.fields);
        return;
    }
  }

  private emitOut(event: SwimOutEvent): void {
    switch (event.type) {
      case 'join':
      case 'leave':
      case 'update':
        this.emit(event.type, event.member);
        return;
      case 'suspicion':
        this.emit('suspicion', event.member, event.confirmed);
        return;
      case 'conflict':
        this.emit('conflict', event);
        return;
      case 'userMessage':
        this.emit('userMessage', event.payload, toHostPort(event.from));
        return;
      case 'remoteState':
        this.emit('remoteState', event.userState, event.join);
        return;
      case 'joinResult': {
        const waiter = this.joinWaiters.get(event.request);
        this.joinWaiters.delete(event.request);
        waiter?.({ joined: event.joined, errors: event.errors.map((e) => ({ to: formatHostPort(toHostPort(e.to)), error: e.error })) });
        return;
      }
      case 'leaveResult':
        this.leaveWaiter?.(event.outcome);
        this.leaveWaiter = undefined;
        return;
    }
  }

  // ------------------------------------------------------------------------------------------ packets

  private receivePacket(bytes: Uint8Array, from: HostPort): void {
    this.counters.packetsReceived++;
    this.counters.bytesReceived += bytes.length;
    const decoded = decodePacket(bytes, this.options.keyring ? { keyring: this.options.keyring, verifyIncoming: true } : {});
    for (const drop of decoded.drops) {
      countDrop(this.counters, drop.reason);
      if (isKeyMismatch(drop.reason)) this.reportKeyMismatch(from, drop.reason);
      else this.shellLog('debug', drop.reason, `dropped part of a packet from ${formatHostPort(from)}: ${drop.reason}`);
    }
    if (decoded.messages.length > 0) {
      this.dispatch({ type: 'packet', from: { addr: addressBytes(from.host), port: from.port }, messages: decoded.messages });
    } else {
      this.options.onActivity?.(); // only counters moved: no step follows to say so
    }
  }

  private sendPacket(to: PeerAddress, messages: readonly GossipMessage[], crc: boolean): void {
    const host = hostFromBytes(to.addr);
    if (!host) return;
    const bytes = encodePacket(messages, {
      compress: this.compress,
      crc,
      ...(this.options.keyring ? { keyring: this.options.keyring } : {}),
    });
    this.counters.packetsSent++;
    this.counters.bytesSent += bytes.length;
    this.transport.sendPacket({ host, port: to.port }, bytes);
  }

  // ------------------------------------------------------------------------------------------ streams

  private streamOptions() {
    return { compress: this.compress, ...(this.options.keyring ? { keyring: this.options.keyring, verifyIncoming: true } : {}) };
  }

  /**
   * A peer's push/pull, TCP ping or user message: read one message, hand it to the reducer, which replies. Like
   * memberlist's handleConn, the whole exchange has one deadline (TCPTimeout from the accept): a peer that sends
   * nothing, or trickles bytes, is cut when it passes. Connections beyond INBOUND_STREAMS_MAX are closed at once,
   * and what the streams buffer comes out of one shared budget; each refusal is counted by reason.
   */
  private acceptStream(stream: ByteStream): void {
    const from = stream.remote;
    if (this.openInbound.size >= INBOUND_STREAMS_MAX) {
      this.refuseStream(stream, from, 'tooManyStreams', `${this.openInbound.size} inbound streams already open`);
      return;
    }
    this.counters.streamsAccepted++;
    this.openInbound.add(stream);
    const id = this.nextInboundId++;
    this.inbound.set(id, stream);
    const reader = new StreamReader({ ...this.streamOptions(), budget: this.inboundBudget });
    let delivered = false;
    const deadline = this.runtime.after(this.state.config.tcpTimeout, () => {
      if (!delivered) this.refuseStream(stream, from, 'streamDeadline', `no whole message within ${this.state.config.tcpTimeout} ms`);
      stream.destroy();
    });
    stream.onData((chunk) => {
      if (delivered) return;
      const out = reader.push(chunk);
      for (const drop of out.drops) countDrop(this.counters, drop.reason);
      if (out.drops.length > 0) this.options.onActivity?.();
      const message = out.messages[0];
      const mismatch = out.drops.find((d) => isKeyMismatch(d.reason));
      if (message) {
        delivered = true;
        reader.dispose();
        this.dispatch({ type: 'inboundStream', stream: id, from: { addr: addressBytes(from.host), port: from.port }, message });
      } else if (mismatch) {
        // memberlist answers a stream it cannot read with an error message, sent as it sends everything (encrypted
        // with its own key, or plain without one: net.go handleConn). The dialler cannot read that reply either,
        // and that is how it learns, and says, that the keys differ.
        delivered = true;
        reader.dispose();
        this.reportKeyMismatch(from, mismatch.reason as KeyMismatchReason);
        this.inbound.delete(id);
        // Closed whole once the reply is written (memberlist closes the connection too): a sender that goes on
        // writing (a flood without the key) must not hold a half-open stream that no stream deadline watches.
        stream.end(encodeStream({ type: 'err', error: mismatch.detail ?? mismatch.reason }, this.streamOptions()), () => stream.destroy());
      } else if (reader.failed) {
        this.shellLog(
          'debug',
          out.drops[0]?.reason ?? 'streamFailed',
          `closed a stream from ${formatHostPort(from)}: ${out.drops[0]?.detail ?? 'undecodable'}`,
        );
        stream.destroy();
      }
    });
    stream.onClose(() => {
      deadline.cancel();
      reader.dispose();
      this.inbound.delete(id);
      this.openInbound.delete(stream);
    });
  }

  /** Counts and closes an inbound stream the shell will not read (cap, deadline). */
  private refuseStream(stream: ByteStream, from: HostPort, reason: 'tooManyStreams' | 'streamDeadline', why: string): void {
    countDrop(this.counters, reason);
    this.options.onActivity?.();
    this.shellLog('debug', reason, `closed a stream from ${formatHostPort(from)}: ${why}`);
    stream.destroy();
  }

  private replyStream(id: number, message: GossipMessage | undefined): void {
    const stream = this.inbound.get(id);
    if (!stream) return;
    this.inbound.delete(id);
    if (message) stream.end(encodeStream(message, this.streamOptions()));
    else stream.end();
  }

  /** Our push/pull, join or TCP ping: dial, write, read one reply, report it before the deadline. */
  private async openStream(effect: OpenStream): Promise<void> {
    this.counters.streamsOpened++;
    const to = toHostPort(effect.to);
    const budget = Math.max(1, effect.deadline - this.now());
    let stream: ByteStream | undefined;
    try {
      stream = await this.transport.dialStream(to, budget);
      stream.write(encodeStream(effect.message, this.streamOptions()));
      const reply = await readOneMessage(
        stream,
        new StreamReader(this.streamOptions()),
        Math.max(1, effect.deadline - this.now()),
        this.runtime,
        (r) => countDrop(this.counters, r),
      );
      this.dispatch({ type: 'streamReply', stream: effect.stream, message: reply });
    } catch (error) {
      this.counters.streamFailures++;
      const mismatch = error instanceof UndecodableReply ? error.reasons.find(isKeyMismatch) : undefined;
      if (mismatch) this.reportKeyMismatch(to, mismatch);
      this.dispatch({ type: 'streamFailed', stream: effect.stream, error: (error as Error).message });
    } finally {
      stream?.destroy();
    }
  }

  private now(): number {
    return this.runtime.now();
  }

  private shellLog(level: 'debug' | 'warn', reason: string, message: string): void {
    this.write(level, reason, message);
  }

  private write(level: LogLevel, reason: string, message: string, fields?: Readonly<Record<string, string | number | boolean>>): void {
    (this.options.log ?? SILENT_LOG)[level]({ event: 'gossip', reason, ...fields }, message);
  }

  /** A warning naming the peer, at most once per KEY_MISMATCH_LOG_INTERVAL_MS per peer host and reason. */
  private reportKeyMismatch(peer: HostPort, reason: KeyMismatchReason): void {
    const verdict = this.keyMismatches.note(peer.host, reason, this.now());
    if (!verdict.log) return;
    this.write('warn', 'keyMismatch', keyMismatchMessage(formatHostPort(peer), reason, verdict.suppressed), {
      peer: formatHostPort(peer),
      drop: reason,
      suppressed: verdict.suppressed,
    });
  }
}

function toHostPort(a: PeerAddress): HostPort {
  return { host: hostFromBytes(a.addr) ?? '0.0.0.0', port: a.port };
}
