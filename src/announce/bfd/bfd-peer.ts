/**
 * BfdSession: one BFD session with one peer, the imperative shell around the pure reducer (bfd-session.ts). It
 * owns the session's transmit socket, runs the reducer on a MachineDriver (its two timers are the driver's, on the
 * endpoint's runtime clock), feeds it packets (from the endpoint), and carries out its effects: send, arm timers,
 * log, count, and tell the client.
 *
 * Events (what a BGP session listens to, RFC 5882 section 3):
 *   'up'                               the session reached Up
 *   'down' (BfdDownEvent)              it left Up; `failure` is true unless the peer or we went AdminDown
 *                                      (RFC 5882 section 3.2: AdminDown is no path failure), and a client
 *                                      protocol takes its session down at once when it is true
 *   'stateChange' (BfdStateChange)     every state change, with the diagnostic and the reason
 * Sessions are made by BfdEndpoint.session(); see bfd-endpoint.ts.
 */
import { EventEmitter } from 'node:events';
import { formatIP, type IP } from '../../ip';
import { MachineDriver } from '../../runtime/machine-driver';
import type { Clock, Randomness, Scheduler } from '../../runtime/runtime';
import type { BfdDropReason } from './bfd-drop-reasons';
import { emptyDropCounters } from './bfd-drop-reasons';
import { BfdError } from './bfd-error';
import { bfdDiagName, encodeBfdControl, type BfdControlPacket, type BfdState } from './bfd-packet';
import { bfdTimersFromProfile, type BfdProfileInput } from './bfd-profile';
import {
  currentDetectionTimeMs,
  initialBfdSession,
  stepBfdSession,
  type BfdSessionEffect,
  type BfdSessionEvent,
  type BfdSessionState,
  type BfdStepResult,
} from './bfd-session';
import type { BfdTransmitSocket } from './bfd-socket';
import { type Log } from '../../runtime/log';

/** pino's shape (src/daemon/logger.ts), so the daemon's logger fits; tests pass a small recorder. */
export interface BfdDownEvent {
  readonly diag: number;
  /** "controlDetectionTimeExpired", "neighborSignaledSessionDown", "administrativelyDown" ... */
  readonly diagName: string;
  readonly remoteAdminDown: boolean;
  readonly administrative: boolean;
  /** A path failure: the client protocol should go down now (RFC 5882 sections 3 and 3.2). */
  readonly failure: boolean;
}

export interface BfdStateChange {
  readonly from: BfdState;
  readonly to: BfdState;
  readonly diag: number;
  readonly diagName: string;
  readonly reason: string;
}

export interface BfdSessionCounters {
  packetsSent: number;
  /** Of packetsSent, the answers to the peer's Polls. */
  finalsSent: number;
  packetsReceived: number;
  sendErrors: number;
  upTransitions: number;
  downTransitions: number;
  dropped: Record<BfdDropReason, number>;
}

/** What a session needs from its endpoint (an interface, so the two files do not import each other). */
export interface BfdSessionHost {
  readonly localAddressText: string;
  readonly peerPort: number;
  readonly logger: Log;
  /** The clock the reducer is stepped with, the timers its deadlines are armed on, and its jitter. */
  readonly runtime: Clock & Scheduler & Randomness;
  openTransmit(onError: (error: Error) => void): Promise<BfdTransmitSocket>;
  /** The session has finished stopping (or was aborted): forget it. */
  release(session: BfdSession): void;
}

export interface BfdSessionEvents {
  up: [];
  down: [BfdDownEvent];
  stateChange: [BfdStateChange];
}

export class BfdSession extends EventEmitter<BfdSessionEvents> {
  readonly peerText: string;
  readonly counters: BfdSessionCounters = {
    packetsSent: 0,
    finalsSent: 0,
    packetsReceived: 0,
    sendErrors: 0,
    upTransitions: 0,
    downTransitions: 0,
    dropped: emptyDropCounters(),
  };
  /** Profile settings that have no effect (echo mode), each with why. */
  readonly ignoredSettings: readonly string[];
  private readonly driver: MachineDriver<BfdSessionState, BfdSessionEvent, BfdSessionEffect, BfdStepResult>;
  private tx: BfdTransmitSocket | undefined;
  private starting: Promise<void> | undefined;
  private stopped: { promise: Promise<void>; resolve: () => void } | undefined;
  private released = false;

  constructor(
    private readonly host: BfdSessionHost,
    readonly peer: IP,
    profile: BfdProfileInput | undefined,
    localDiscriminator: number,
  ) {
    super();
    this.peerText = formatIP(peer);
    const mapping = bfdTimersFromProfile(profile);
    this.ignoredSettings = mapping.ignored;
    const { runtime } = host;
    this.driver = new MachineDriver(
      {
        runtime,
        step: (state, event, now) => stepBfdSession(state, event, { now, random: () => runtime.random() }),
        perform: (effect) => this.apply(effect),
      },
      initialBfdSession(mapping.config, localDiscriminator),
    );
    for (const why of mapping.ignored)
      host.logger.warn({ event: 'bfdProfileIgnored', peer: this.peerText, why }, 'BFD profile setting ignored');
  }

  /** bfd.SessionState: AdminDown before start() and after stop(). */
  get state(): BfdState {
    return this.driver.state.state;
  }

  get localDiscriminator(): number {
    return this.driver.state.localDiscriminator;
  }

  get remoteDiscriminator(): number {
    return this.driver.state.remoteDiscriminator;
  }

  /** The Detection Time in force (ms), once the peer has been heard. */
  get detectionTimeMs(): number | undefined {
    return currentDetectionTimeMs(this.driver.state);
  }

  /** A read-only copy of the reducer's state (for status views and tests). */
  get snapshot(): BfdSessionState {
    return this.driver.state;
  }

  /** Opens the transmit socket and begins the handshake; resolves once running. Idempotent. */
  start(): Promise<void> {
    if (this.released) return Promise.reject(new BfdError('closed', `the BFD session with ${this.peerText} is closed`));
    this.starting ??= this.host
      .openTransmit((error) => this.onSendError(error))
      .then((tx) => {
        if (this.released) {
          tx.close();
          throw new BfdError('closed', `the BFD session with ${this.peerText} closed while starting`);
        }
        this.tx = tx;
        this.dispatch({ type: 'start' });
      });
    return this.starting;
  }

  /**
   * Administrative stop (RFC 5880 section 6.8.16): AdminDown with diag 7, sent for a Detection Time so the peer
   * goes Down without calling it a failure; then the socket closes and the endpoint forgets the session.
   * Resolves when that is over. Idempotent.
   */
  stop(): Promise<void> {
    if (!this.stopped) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.stopped = { promise, resolve };
      if (!this.driver.state.active || this.released) this.finish();
      else this.dispatch({ type: 'stop' });
    }
    return this.stopped.promise;
  }

  /** New intervals or multiplier; while Up they take effect through a Poll Sequence (RFC 5880 section 6.8.3). */
  configure(profile: BfdProfileInput): void {
    this.dispatch({ type: 'configure', config: bfdTimersFromProfile(profile).config });
  }

  /** @internal The endpoint hands over a packet it matched to this session; returns the drop reason, if any. */
  receive(packet: BfdControlPacket): BfdDropReason | undefined {
    this.counters.packetsReceived++;
    const dropped = this.dispatch({ type: 'receive', packet });
    if (dropped) this.counters.dropped[dropped]++;
    return dropped;
  }

  /** @internal The endpoint closed: stop at once, no AdminDown (as a crash would). */
  abort(): void {
    this.finish();
  }

  /** Steps the reducer (or queues the event behind a step in progress); the drop reason when it ran now. */
  private dispatch(event: BfdSessionEvent): BfdDropReason | undefined {
    if (this.released) return event.type === 'receive' ? 'notStarted' : undefined;
    return this.driver.dispatch(event)?.dropped;
  }

  private apply(effect: BfdSessionEffect): void {
    const log = this.host.logger;
    switch (effect.type) {
      case 'send':
        this.send(effect.packet, effect.why);
        return;
      case 'setTimer':
        // The scheduler never fires before `at`, so the reducer always finds the deadline due when it fires.
        this.driver.arm(effect.timer, effect.at, { type: 'timer', timer: effect.timer });
        return;
      case 'stateChange': {
        const change: BfdStateChange = {
          from: effect.from,
          to: effect.to,
          diag: effect.diag,
          diagName: bfdDiagName(effect.diag),
          reason: effect.reason,
        };
        log.info({ event: 'bfdStateChange', peer: this.peerText, ...change }, `BFD ${effect.from} -> ${effect.to}`);
        this.emit('stateChange', change);
        return;
      }
      case 'up':
        this.counters.upTransitions++;
        log.info({ event: 'bfdSessionUp', peer: this.peerText, detectionTimeMs: this.detectionTimeMs }, 'BFD session up');
        this.emit('up');
        return;
      case 'down': {
        this.counters.downTransitions++;
        const { type: _type, ...fields } = effect;
        const down: BfdDownEvent = { ...fields, failure: !effect.remoteAdminDown && !effect.administrative };
        log.info(
          { event: 'bfdSessionDown', peer: this.peerText, diag: down.diag, reason: down.diagName, failure: down.failure },
          'BFD session down',
        );
        this.emit('down', down);
        return;
      }
      case 'stopped':
        this.finish();
        return;
    }
  }

  private send(packet: BfdControlPacket, why: 'periodic' | 'final'): void {
    if (!this.tx) return;
    this.tx.send(encodeBfdControl(packet), this.peerText, this.host.peerPort);
    this.counters.packetsSent++;
    if (why === 'final') this.counters.finalsSent++;
  }

  private onSendError(error: Error): void {
    this.counters.sendErrors++;
    this.host.logger.debug({ event: 'bfdSendFailed', peer: this.peerText, error: error.message }, 'BFD send failed');
  }

  private finish(): void {
    if (this.released) {
      this.stopped?.resolve();
      return;
    }
    this.released = true;
    this.driver.close();
    this.tx?.close();
    this.tx = undefined;
    this.host.release(this);
    this.stopped?.resolve();
  }
}
