/**
 * What the state machine asks its shell to do, and the reasons it gives. Every step returns one reason (stable
 * strings: logs, status, metrics and tests match on them); log effects carry the same vocabulary.
 */
import type { BgpMessage, BgpUpdate } from '../bgp-messages';
import type { ConnectionOrigin } from './collision';
import type { FamilyName } from './session-config';
import type { ConnectionId, TimerName } from './session-events';
import type { NegotiatedSession } from './open-validation';

export type TransitionReason =
  | 'started'
  | 'alreadyStarted'
  | 'stopped'
  | 'notStarted'
  | 'tcpConnected'
  | 'tcpAccepted'
  | 'inboundRefused'
  | 'inboundReplaced'
  | 'tcpFailed'
  | 'tcpClosed'
  | 'openAccepted'
  | 'openRejected'
  | 'established'
  | 'peerRestarted'
  | 'collisionResolved'
  | 'collisionWithEstablished'
  | 'keepaliveReceived'
  | 'keepaliveSent'
  | 'updateReceived'
  | 'routeRefreshReceived'
  | 'routeRefreshIgnored'
  | 'notificationReceived'
  | 'decodeError'
  | 'unexpectedMessage'
  | 'holdTimerExpired'
  | 'connectRetry'
  | 'retryScheduled'
  | 'updatesSent'
  | 'notEstablished'
  | 'staleEvent';

/** A NOTIFICATION as the session saw it: sent by us, or received from the peer. */
export interface NotificationRecord {
  readonly direction: 'sent' | 'received';
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
  /** RFC 9003 shutdown communication of a Cease / Administrative Shutdown or Reset, when there is one. */
  readonly communication?: string;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type SessionEffect =
  /** Dial the peer (from the source address, to the peer port); answer with tcpConnected or tcpFailed. */
  | { readonly type: 'connect'; readonly conn: ConnectionId; readonly timeoutMs: number }
  | { readonly type: 'send'; readonly conn: ConnectionId; readonly message: BgpMessage }
  /** Close the connection after what was sent on it is flushed (or cancel the dial); no event follows. */
  | { readonly type: 'close'; readonly conn: ConnectionId; readonly reason: TransitionReason }
  /** Fire timerExpired at `at` (same clock as `now`), replacing the same timer if set. */
  | { readonly type: 'setTimer'; readonly timer: TimerName; readonly conn?: ConnectionId; readonly at: number }
  | { readonly type: 'clearTimer'; readonly timer: TimerName; readonly conn?: ConnectionId }
  /** The session is Established. */
  | { readonly type: 'up'; readonly conn: ConnectionId; readonly origin: ConnectionOrigin; readonly negotiated: NegotiatedSession }
  /** An Established session ended (only after up). */
  | { readonly type: 'down'; readonly reason: TransitionReason; readonly message: string; readonly notification?: NotificationRecord }
  /** An UPDATE from the peer (mlb parses and ignores received routes). */
  | { readonly type: 'update'; readonly update: BgpUpdate }
  /** The peer asked for our routes again (RFC 2918): the speaker re-sends this family. */
  | { readonly type: 'routeRefresh'; readonly family: FamilyName }
  | {
      readonly type: 'log';
      readonly level: LogLevel;
      readonly reason: TransitionReason;
      readonly message: string;
      readonly fields?: Readonly<Record<string, string | number | boolean>>;
    };
