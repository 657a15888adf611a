/**
 * Everything that can happen to a BGP session, as the pure state machine (session-fsm.ts) receives it; `now`
 * travels beside the event. The RFC 4271 section 8.1 event each one stands for is noted beside it.
 */
import type { BgpMessage, BgpUpdate } from '../bgp-messages';

/**
 * One TCP connection of the session. The state machine names the ones it dials ("out-1", "out-2" ...); the shell
 * names the ones its listener accepts ("in-1" ...). Two can exist at once while a collision is resolved.
 */
export type ConnectionId = string;

export type TimerName = 'connectRetry' | 'hold' | 'keepalive';

/** A decoding failure as the codec reports it (BgpDecodeError): the NOTIFICATION to send, and why. */
export interface DecodeFailure {
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
  readonly reason: string;
}

export type SessionEvent =
  /** ManualStart / AutomaticStart (Events 1, 3; 4, 5 when passive without dialing). */
  | { readonly type: 'start' }
  /** ManualStop (Event 2); `reason` goes to the peer as an RFC 9003 shutdown communication. */
  | { readonly type: 'stop'; readonly reason: string }
  /** Our dial completed (Tcp_CR_Acked, Event 16). */
  | { readonly type: 'tcpConnected'; readonly conn: ConnectionId }
  /** The listener accepted a connection from this peer's address (TcpConnectionConfirmed, Event 17). */
  | { readonly type: 'tcpAccepted'; readonly conn: ConnectionId }
  /** Our dial failed: refused, unreachable, timed out (TcpConnectionFails, Event 18, before a connection). */
  | { readonly type: 'tcpFailed'; readonly conn: ConnectionId; readonly error: string }
  /** An open connection ended: the peer closed it, reset it, or the socket failed (TcpConnectionFails, Event 18). */
  | { readonly type: 'tcpClosed'; readonly conn: ConnectionId; readonly error?: string }
  /** A decoded message (BGPOpen, KeepAliveMsg, UpdateMsg, NotifMsg: Events 19, 25-27; ROUTE-REFRESH). */
  | { readonly type: 'message'; readonly conn: ConnectionId; readonly message: BgpMessage }
  /** Bytes that do not decode (BGPHeaderErr, BGPOpenMsgErr, UpdateMsgErr: Events 21, 22, 28). */
  | { readonly type: 'decodeError'; readonly conn: ConnectionId; readonly error: DecodeFailure }
  /** A timer the machine set is due (Events 9-11); hold and keepalive name their connection. */
  | { readonly type: 'timerExpired'; readonly timer: TimerName; readonly conn?: ConnectionId }
  /** The speaker has UPDATEs for the peer; they go out only while Established. */
  | { readonly type: 'sendUpdates'; readonly updates: readonly BgpUpdate[] };
