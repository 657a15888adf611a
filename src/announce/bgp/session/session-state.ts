/**
 * The state of one BGP session as a value: the RFC 4271 state, its connections (at most one we dialed and one the
 * peer opened, while a collision is resolved), the timers' deadlines and the backoff. Pure.
 *
 * The session's RFC state is derived from its connections: the most advanced one wins (Established > OpenConfirm >
 * OpenSent > Connect); without any, a started session waits in Active when it accepts the peer's connections and
 * in Idle when it only dials (until the retry timer fires), and a stopped one is Idle.
 */
import type { ConnectionOrigin } from './collision';
import { METALLB_BACKOFF } from './connect-backoff';
import { DIAL_TIMEOUT_MS, validateFsmConfig, type SessionFsmConfig } from './session-config';
import type { NotificationRecord, TransitionReason } from './session-effects';
import type { ConnectionId } from './session-events';
import type { NegotiatedSession } from './open-validation';

/** RFC 4271 section 8.2.2. */
export type SessionPhase = 'Idle' | 'Connect' | 'Active' | 'OpenSent' | 'OpenConfirm' | 'Established';
export type ConnectionPhase = 'Connect' | 'OpenSent' | 'OpenConfirm' | 'Established';

export interface ConnectionState {
  readonly id: ConnectionId;
  readonly origin: ConnectionOrigin;
  /** Connect: our dial is in progress; OpenSent: our OPEN went out; OpenConfirm: theirs came and was accepted. */
  readonly phase: ConnectionPhase;
  readonly holdAt?: number;
  readonly keepaliveAt?: number;
  /** From the peer's OPEN (OpenConfirm and Established). */
  readonly negotiated?: NegotiatedSession;
  /** When it became Established. */
  readonly upSince?: number;
}

/** Why the session last failed or went down, for status and `mlb explain`. */
export interface SessionProblem {
  readonly reason: TransitionReason;
  readonly message: string;
  readonly at: number;
  readonly notification?: NotificationRecord;
}

export interface SessionState {
  readonly config: SessionFsmConfig;
  readonly phase: SessionPhase;
  /** start() was called and stop() was not: the session reconnects by itself. */
  readonly started: boolean;
  readonly connections: readonly ConnectionState[];
  /** When the next dial is due (after a failure, with backoff). */
  readonly connectRetryAt?: number;
  /** The wait the next failure schedules (1 s doubling to 2 min; reset by Established). */
  readonly retryDelayMs: number;
  /** RFC 4271 ConnectRetryCounter: failures since the session was last Established or started. */
  readonly connectRetryCounter: number;
  /** Dials made so far (names outbound connections). */
  readonly dials: number;
  readonly lastProblem?: SessionProblem;
}

export function retryInitialMs(config: SessionFsmConfig): number {
  return config.connectRetryInitialMs ?? METALLB_BACKOFF.initialMs;
}

export function retryMaxMs(config: SessionFsmConfig): number {
  return config.connectRetryMaxMs ?? METALLB_BACKOFF.maxMs;
}

export function dialTimeoutMs(config: SessionFsmConfig): number {
  return config.dialTimeoutMs ?? DIAL_TIMEOUT_MS;
}

/** A stopped session (Idle); throws BgpSessionError('invalidConfig') for a configuration that cannot run. */
export function createSessionState(config: SessionFsmConfig): SessionState {
  validateFsmConfig(config);
  return { config, phase: 'Idle', started: false, connections: [], retryDelayMs: retryInitialMs(config), connectRetryCounter: 0, dials: 0 };
}

const PHASE_RANK: readonly ConnectionPhase[] = ['Established', 'OpenConfirm', 'OpenSent', 'Connect'];

export function derivePhase(state: Pick<SessionState, 'config' | 'started' | 'connections'>): SessionPhase {
  for (const phase of PHASE_RANK) if (state.connections.some((c) => c.phase === phase)) return phase;
  return state.started && state.config.passive ? 'Active' : 'Idle';
}

/** The Established connection, if any. */
export function establishedConnection(state: Pick<SessionState, 'connections'>): ConnectionState | undefined {
  return state.connections.find((c) => c.phase === 'Established');
}
