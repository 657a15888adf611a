/**
 * One BGP session with one peer: the imperative shell around the pure state machine (session-fsm.ts). It dials
 * (from sourceAddress to peerPort, 10 s timeout, MD5-signed with a password), takes the peer's connections from a
 * shared BgpListener when passive, runs the machine on a MachineDriver (its timers on the runtime's clock), encodes
 * what it sends and decodes what arrives with the codec, and tells the speaker: 'established' (with what was negotiated and the local address, MetalLB's next
 * hop), 'down', 'update' (received routes: parsed, otherwise ignored by mlb) and 'routeRefresh'.
 */
import { EventEmitter } from 'node:events';
import type { BgpMessage, BgpUpdate } from '../bgp-messages';
import { encodeMessage, type BgpDecodeError } from '../codec';
import { MachineDriver } from '../../../runtime/machine-driver';
import { REAL_RUNTIME } from '../../../runtime/real-runtime';
import { realSignedTcp } from '../../../runtime/real-signed-tcp';
import type { ByteStream, Clock, Scheduler } from '../../../runtime/runtime';
import type { SignedTcpNetwork } from '../../../runtime/signed-tcp';
import type { BgpListener } from './bgp-listener';
import type { ConnectionOrigin } from './collision';
import type { NegotiatedSession } from './open-validation';
import { BGP_PORT, type FamilyName, type LocalSpeaker, type PeerAsn } from './session-config';
import type { NotificationRecord, SessionEffect, TransitionReason } from './session-effects';
import { BgpSessionError } from './session-errors';
import type { ConnectionId, SessionEvent, TimerName } from './session-events';
import { stepSession, type SessionStep } from './session-fsm';
import { SessionConnection } from './session-connection';
import { createSessionState, establishedConnection, type SessionPhase, type SessionProblem, type SessionState } from './session-state';
import { type Log } from '../../../runtime/log';

export type BgpPeerTarget = PeerAsn & {
  readonly address: string;
  /** BGPPeer.peerPort (default 179). */
  readonly port?: number;
  /** BGPPeer.password: TCP MD5 (RFC 2385) on every connection with this peer. */
  readonly password?: string;
};

export interface BgpSessionOptions {
  readonly peer: BgpPeerTarget;
  /** Our side; sourceAddress is BGPPeer.sourceAddress (the kernel picks one when absent). */
  readonly local: LocalSpeaker & { readonly sourceAddress?: string };
  /** Also accept the peer's connections, from `listener` (collisions resolved per RFC 4271 6.8). */
  readonly passive?: boolean;
  /** Dial the peer (default true); false with passive waits for the peer only. */
  readonly dialOut?: boolean;
  /** Where passive sessions get the peer's connections; required with passive. */
  readonly listener?: BgpListener;
  readonly logger: Log;
  /** The clock the machine is stepped with and its timers (hold, keepalive, retry, dial timeout) run on; real by default. */
  readonly runtime?: Clock & Scheduler;
  /** Where dialed connections come from (real TCP, MD5-signed with a password, by default). */
  readonly net?: SignedTcpNetwork;
  /** Shorter timings for tests; the defaults are MetalLB's (10 s dial, backoff 1 s to 2 min). */
  readonly timing?: {
    readonly dialTimeoutMs?: number;
    readonly connectRetryInitialMs?: number;
    readonly connectRetryMaxMs?: number;
  };
}

/** The 'established' event: what both sides agreed on, and where the session runs. */
export interface SessionUp extends NegotiatedSession {
  readonly origin: ConnectionOrigin;
  /** Our address on this session: MetalLB's native speaker announces it as the NEXT_HOP. */
  readonly localAddress: string;
  readonly remoteAddress: string;
}

/** The 'down' event: an Established session ended. */
export interface SessionDown {
  readonly reason: TransitionReason;
  readonly message: string;
  readonly notification?: NotificationRecord;
}

export interface BgpSessionStatus {
  readonly peer: string;
  readonly phase: SessionPhase;
  readonly established?: SessionUp & { readonly since: number };
  readonly connectRetryCounter: number;
  readonly nextConnectAt?: number;
  readonly lastProblem?: SessionProblem;
}

export interface BgpSessionEvents {
  established: [SessionUp];
  down: [SessionDown];
  update: [BgpUpdate];
  routeRefresh: [FamilyName];
}

export class BgpSession extends EventEmitter<BgpSessionEvents> {
  private readonly driver: MachineDriver<SessionState, SessionEvent, SessionEffect, SessionStep>;
  private readonly connections = new Map<ConnectionId, SessionConnection>();
  /** Connections the machine closed whose sockets have not finished closing (stop() waits for them). */
  private readonly closing = new Set<Promise<unknown>>();
  private inbound = 0;
  private up: (SessionUp & { since: number }) | undefined;
  private unregister: (() => void) | undefined;
  /** UPDATEs send() already encoded, so the send effect does not encode them twice. */
  private readonly encoded = new WeakMap<BgpMessage, Uint8Array>();
  private readonly runtime: Clock & Scheduler;
  private readonly net: SignedTcpNetwork;

  constructor(private readonly options: BgpSessionOptions) {
    super();
    this.runtime = options.runtime ?? REAL_RUNTIME;
    this.net = options.net ?? realSignedTcp;
    const { peer, local, timing } = options;
    const passive = options.passive ?? false;
    if (passive && !options.listener) throw new BgpSessionError('invalidConfig', 'a passive session needs a listener');
    if (peer.password !== undefined && !this.net.md5Available()) {
      const why = `peer ${peer.address} has a password: TCP MD5 needs the native addon (npm rebuild)`;
      throw new BgpSessionError('md5Unavailable', why);
    }
    const peerAsn: PeerAsn = peer.asn !== undefined ? { asn: peer.asn } : { dynamicAsn: peer.dynamicAsn };
    const initial = createSessionState({
      local,
      peerAsn,
      passive,
      dialOut: options.dialOut ?? true,
      ...(timing?.dialTimeoutMs !== undefined ? { dialTimeoutMs: timing.dialTimeoutMs } : {}),
      ...(timing?.connectRetryInitialMs !== undefined ? { connectRetryInitialMs: timing.connectRetryInitialMs } : {}),
      ...(timing?.connectRetryMaxMs !== undefined ? { connectRetryMaxMs: timing.connectRetryMaxMs } : {}),
    });
    // Never closed: a stopped session can be started again (the announcer restarts one BFD took down).
    this.driver = new MachineDriver({ runtime: this.runtime, step: stepSession, perform: (effect) => this.perform(effect) }, initial);
  }

  private get state(): SessionState {
    return this.driver.state;
  }

  get phase(): SessionPhase {
    return this.state.phase;
  }

  /** What was negotiated, while Established. */
  get established(): SessionUp | undefined {
    return this.up;
  }

  status(): BgpSessionStatus {
    return {
      peer: this.options.peer.address,
      phase: this.state.phase,
      ...(this.up ? { established: this.up } : {}),
      connectRetryCounter: this.state.connectRetryCounter,
      ...(this.state.connectRetryAt !== undefined ? { nextConnectAt: this.state.connectRetryAt } : {}),
      ...(this.state.lastProblem ? { lastProblem: this.state.lastProblem } : {}),
    };
  }

  /** Starts dialing (and, when passive, accepting); the session reconnects by itself until stop(). */
  start(): void {
    if (this.options.passive && !this.unregister) {
      const { address, password } = this.options.peer;
      this.unregister = this.options.listener!.register(address, password, (stream) => this.accept(stream));
    }
    this.dispatch({ type: 'start' });
  }

  /** Cease / Administrative Shutdown with `reason` (RFC 9003) to the peer; resolves once every socket is closed. */
  async stop(reason: string): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
    this.dispatch({ type: 'stop', reason });
    await Promise.all([...this.closing]);
  }

  /** Sends UPDATEs, in order, if the session is Established; false (nothing sent) otherwise. */
  send(updates: readonly BgpUpdate[]): boolean {
    const conn = establishedConnection(this.state);
    if (!conn) return false;
    const codec = { fourOctetAsn: conn.negotiated!.fourOctetAsn };
    for (const update of updates) this.encoded.set(update, encodeMessage(update, codec));
    this.dispatch({ type: 'sendUpdates', updates });
    return true;
  }

  private accept(stream: ByteStream): void {
    this.inbound += 1;
    const id = `in-${this.inbound}`;
    this.connections.set(id, SessionConnection.adopt(id, stream, this.handlersFor(id), this.runtime));
    this.dispatch({ type: 'tcpAccepted', conn: id });
  }

  private handlersFor(id: ConnectionId) {
    return {
      onConnected: () => this.dispatch({ type: 'tcpConnected', conn: id }),
      onMessage: (message: BgpMessage) => this.dispatch({ type: 'message', conn: id, message }),
      onDecodeError: ({ notificationCode, subcode, data, reason }: BgpDecodeError) =>
        this.dispatch({ type: 'decodeError', conn: id, error: { code: notificationCode, subcode, data, reason } }),
      onEnd: (connected: boolean, error: string | undefined) => {
        this.connections.delete(id);
        this.dispatch(
          connected
            ? { type: 'tcpClosed', conn: id, ...(error ? { error } : {}) }
            : { type: 'tcpFailed', conn: id, error: error ?? 'closed' },
        );
      },
    };
  }

  /** Feeds one event to the machine; events raised while effects run wait their turn (no re-entrant steps). */
  private dispatch(event: SessionEvent): void {
    this.driver.dispatch(event);
  }

  private perform(effect: SessionEffect): void {
    switch (effect.type) {
      case 'connect':
        return this.connect(effect.conn, effect.timeoutMs);
      case 'send':
        return this.write(effect.conn, effect.message);
      case 'close': {
        const conn = this.connections.get(effect.conn);
        this.connections.delete(effect.conn);
        if (conn) {
          const closed: Promise<unknown> = conn.close().then(() => this.closing.delete(closed));
          this.closing.add(closed);
        }
        return;
      }
      case 'setTimer': {
        const { timer, conn } = effect;
        return this.driver.arm(timerKey(timer, conn), effect.at, { type: 'timerExpired', timer, ...(conn !== undefined ? { conn } : {}) });
      }
      case 'clearTimer':
        return this.driver.disarm(timerKey(effect.timer, effect.conn));
      case 'up':
        return this.onUp(effect.conn, effect.origin, effect.negotiated);
      case 'down':
        return this.onDown(effect);
      case 'update':
        this.emit('update', effect.update);
        return;
      case 'routeRefresh':
        this.emit('routeRefresh', effect.family);
        return;
      case 'log':
        this.options.logger[effect.level](
          { event: 'bgpSession', peer: this.options.peer.address, reason: effect.reason, ...effect.fields },
          effect.message,
        );
        return;
    }
  }

  private connect(id: ConnectionId, timeoutMs: number): void {
    const { peer, local } = this.options;
    const target = {
      host: peer.address,
      port: peer.port ?? BGP_PORT,
      ...(local.sourceAddress !== undefined ? { localAddress: local.sourceAddress } : {}),
      ...(peer.password !== undefined ? { password: peer.password } : {}),
    };
    this.connections.set(id, SessionConnection.dial(id, target, timeoutMs, this.handlersFor(id), this.runtime, this.net));
  }

  private write(id: ConnectionId, message: BgpMessage): void {
    const conn = this.connections.get(id);
    if (!conn) return;
    // Once the OPENs are exchanged the connection's codec follows what was negotiated; the KEEPALIVE answering the
    // peer's OPEN is written here first, so the reader has switched before the peer's first UPDATE can arrive.
    const negotiated = this.state.connections.find((c) => c.id === id)?.negotiated;
    if (negotiated) conn.codec.fourOctetAsn = negotiated.fourOctetAsn;
    let bytes = this.encoded.get(message);
    if (!bytes) {
      try {
        bytes = encodeMessage(message, conn.codec);
      } catch (error) {
        this.options.logger.error(
          { event: 'bgpSession', peer: this.options.peer.address, type: message.type, error: (error as Error).message },
          'cannot encode a BGP message; not sent',
        );
        return;
      }
    }
    conn.write(bytes);
  }

  private onUp(id: ConnectionId, origin: ConnectionOrigin, negotiated: NegotiatedSession): void {
    const conn = this.connections.get(id);
    const localAddress = conn?.localAddress ?? '';
    const remoteAddress = conn?.remoteAddress ?? this.options.peer.address;
    this.up = { ...negotiated, origin, localAddress, remoteAddress, since: this.runtime.now() };
    this.options.logger.info(
      { event: 'sessionUp', peer: this.options.peer.address, peerASN: negotiated.peerAsn, holdTime: negotiated.holdTimeS, localAddress },
      'BGP session established',
    );
    const { since: _since, ...up } = this.up;
    this.emit('established', up);
  }

  private onDown(effect: Extract<SessionEffect, { type: 'down' }>): void {
    this.up = undefined;
    const { reason, message, notification } = effect;
    this.options.logger.info({ event: 'sessionDown', peer: this.options.peer.address, reason }, `BGP session down: ${message}`);
    this.emit('down', { reason, message, ...(notification ? { notification } : {}) });
  }
}

/** One driver timer per machine timer and connection: the hold and keepalive timers of two colliding connections differ. */
function timerKey(timer: TimerName, conn: ConnectionId | undefined): string {
  return conn === undefined ? timer : `${timer} ${conn}`;
}
