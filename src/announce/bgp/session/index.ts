// src/announce/bgp/session: one BGP session per peer. Pure: the RFC 4271 state machine (session-fsm.ts) with
// OPEN validation and negotiation, collision resolution and MetalLB's reconnect backoff. Not pure: BgpSession (the
// TCP shell, TCP MD5 through src/native) and BgpListener (the shared port 179 for passive sessions).
export {
  BgpSession,
  type BgpPeerTarget,
  type BgpSessionEvents,
  type BgpSessionOptions,
  type BgpSessionStatus,
  type SessionDown,
  type SessionUp,
} from './bgp-session';
export { BgpListener, type BgpListenerOptions } from './bgp-listener';
export { BgpSessionError, BGP_SESSION_ERROR_CODES, type BgpSessionErrorCode } from './session-errors';
export {
  BGP_PORT,
  CONNECT_RETRY_INITIAL_MS,
  CONNECT_RETRY_MAX_MS,
  DIAL_TIMEOUT_MS,
  KEEPALIVE_HOLD_RATIO,
  MIN_HOLD_TIME_S,
  OPEN_SENT_HOLD_TIME_S,
  validateFsmConfig,
  type DynamicAsn,
  type FamilyName,
  type GracefulRestartConfig,
  type LocalSpeaker,
  type PeerAsn,
  type SessionFsmConfig,
} from './session-config';
export { stepSession, type SessionStep } from './session-fsm';
export {
  createSessionState,
  derivePhase,
  establishedConnection,
  type ConnectionPhase,
  type ConnectionState,
  type SessionPhase,
  type SessionProblem,
  type SessionState,
} from './session-state';
export type { ConnectionId, DecodeFailure, SessionEvent, TimerName } from './session-events';
export type { LogLevel, NotificationRecord, SessionEffect, TransitionReason } from './session-effects';
export {
  negotiateTimers,
  validateOpen,
  type NegotiatedSession,
  type OpenRejectReason,
  type OpenVerdict,
  type PeerGracefulRestart,
} from './open-validation';
export { buildOpen } from './open-message';
export { resolveCollision, type CollisionVerdict, type ConnectionOrigin } from './collision';
export { backoffSequence, nextBackoff, METALLB_BACKOFF } from './connect-backoff';
