/**
 * The BGP-4 session state machine (RFC 4271 section 8) as a reducer: (state, event, now) -> { state, effects,
 * reason }. Pure and synchronous: the shell (bgp-session.ts) owns the sockets, the codec and the clock, performs
 * the effects in order and feeds what happens back as events.
 *
 * Where mlb follows MetalLB rather than the RFC's optional attributes: a failed or lost session waits 1 s, doubling
 * to 2 min, before dialing again (the RFC's IdleHoldTimer with DampPeerOscillations), and the dial itself times out
 * after 10 s (the shell's `connect` timeout) instead of a 120 s ConnectRetryTimer. DelayOpen is not used.
 * Collisions (RFC 4271 6.8) arise only when `passive` lets the peer's connections in beside ours.
 */
import { CeaseSubcode, NotificationCode, UNSPECIFIC_SUBCODE, type BgpUpdate } from '../bgp-messages';
import { buildOpen } from './open-message';
import { OPEN_SENT_HOLD_TIME_S } from './session-config';
import { messageReceived } from './session-receive';
import {
  clearRetry,
  closeDraft,
  dial,
  failConnection,
  findConnection,
  log,
  notificationMessage,
  openDraft,
  patchConnection,
  removeConnection,
  scheduleRetryIfIdle,
  send,
  setConnectionTimer,
  shutdownCommunicationBytes,
  type Draft,
} from './session-draft';
import type { SessionEffect, TransitionReason } from './session-effects';
import type { SessionEvent } from './session-events';
import { establishedConnection, retryInitialMs, type SessionState } from './session-state';

export interface SessionStep {
  readonly state: SessionState;
  readonly effects: readonly SessionEffect[];
  readonly reason: TransitionReason;
}

const MS_PER_S = 1000;

function start(d: Draft): TransitionReason {
  if (d.started) return 'alreadyStarted';
  d.started = true;
  d.connectRetryCounter = 0;
  d.retryDelayMs = retryInitialMs(d.config);
  if (d.config.dialOut) dial(d);
  log(d, 'info', 'started', d.config.dialOut ? 'session started: dialing the peer' : 'session started: waiting for the peer to connect');
  return 'started';
}

/** ManualStop: Cease / Administrative Shutdown with the reason as RFC 9003 text on every connection that sent OPEN. */
function stop(d: Draft, reason: string): TransitionReason {
  if (!d.started && d.connections.length === 0) return 'notStarted';
  const up = establishedConnection(d);
  const cease = notificationMessage(NotificationCode.cease, CeaseSubcode.administrativeShutdown, shutdownCommunicationBytes(reason));
  for (const conn of [...d.connections]) removeConnection(d, conn.id, 'stopped', conn.phase === 'Connect' ? undefined : cease);
  clearRetry(d);
  d.started = false;
  d.connectRetryCounter = 0;
  d.retryDelayMs = retryInitialMs(d.config);
  if (up) {
    d.effects.push({
      type: 'down',
      reason: 'stopped',
      message: reason,
      notification: { direction: 'sent', code: cease.code, subcode: cease.subcode, data: cease.data, communication: reason },
    });
  }
  log(d, 'info', 'stopped', `session stopped: ${reason}`);
  return 'stopped';
}

/** Our OPEN goes out on a new connection; the hold timer runs "large" until the peer's OPEN (RFC 4271 8.2.2). */
function sendOpen(d: Draft, conn: string): void {
  send(d, conn, buildOpen(d.config.local));
  setConnectionTimer(d, conn, 'hold', OPEN_SENT_HOLD_TIME_S * MS_PER_S);
}

function tcpConnected(d: Draft, id: string): TransitionReason {
  const conn = findConnection(d, id);
  if (!conn || conn.phase !== 'Connect') {
    d.effects.push({ type: 'close', conn: id, reason: 'staleEvent' });
    return 'staleEvent';
  }
  patchConnection(d, id, { phase: 'OpenSent' });
  sendOpen(d, id);
  log(d, 'debug', 'tcpConnected', 'connected to the peer; OPEN sent', { conn: id });
  return 'tcpConnected';
}

function refuseInbound(d: Draft, id: string, why: string): TransitionReason {
  d.effects.push({ type: 'close', conn: id, reason: 'inboundRefused' });
  log(d, 'info', 'inboundRefused', `refused a connection from the peer: ${why}`, { conn: id });
  return 'inboundRefused';
}

/**
 * The peer connected to our listener. Refused unless the session is started and passive; an older inbound
 * connection that has not come up is replaced (the peer gave up on it). Beside an Established session it is kept
 * until its OPEN, which then decides (RFC 4271 6.8; RFC 4724 4.2 when the peer restarted).
 */
function tcpAccepted(d: Draft, id: string): TransitionReason {
  if (!d.started) return refuseInbound(d, id, 'the session is stopped');
  if (!d.config.passive) return refuseInbound(d, id, 'the session does not accept connections (not passive)');
  if (findConnection(d, id)) return refuseInbound(d, id, `connection ${id} is already known`);
  let reason: TransitionReason = 'tcpAccepted';
  const older = d.connections.find((c) => c.origin === 'inbound' && c.phase !== 'Established');
  if (older) {
    removeConnection(d, older.id, 'inboundReplaced');
    log(d, 'info', 'inboundReplaced', 'the peer connected again: its earlier connection is closed', { closed: older.id, conn: id });
    reason = 'inboundReplaced';
  }
  clearRetry(d);
  d.connections.push({ id, origin: 'inbound', phase: 'OpenSent' });
  sendOpen(d, id);
  log(d, 'debug', 'tcpAccepted', 'the peer connected; OPEN sent', { conn: id });
  return reason;
}

function tcpFailed(d: Draft, id: string, error: string): TransitionReason {
  const conn = findConnection(d, id);
  if (!conn || conn.phase !== 'Connect') return 'staleEvent';
  failConnection(d, id, 'tcpFailed', `cannot connect to the peer: ${error}`);
  return 'tcpFailed';
}

function tcpClosed(d: Draft, id: string, error: string | undefined): TransitionReason {
  if (!findConnection(d, id)) return 'staleEvent';
  failConnection(d, id, 'tcpClosed', error ? `the connection failed: ${error}` : 'the peer closed the connection');
  return 'tcpClosed';
}

function timerExpired(d: Draft, timer: 'connectRetry' | 'hold' | 'keepalive', id: string | undefined): TransitionReason {
  if (timer === 'connectRetry') {
    if (d.connectRetryAt === undefined || d.now < d.connectRetryAt) return 'staleEvent';
    d.connectRetryAt = undefined;
    if (!d.started || d.connections.some((c) => c.origin === 'outbound')) return 'staleEvent';
    dial(d);
    return 'connectRetry';
  }
  const conn = id === undefined ? undefined : findConnection(d, id);
  const due = timer === 'hold' ? conn?.holdAt : conn?.keepaliveAt;
  if (!conn || due === undefined || d.now < due) return 'staleEvent';
  if (timer === 'hold') {
    patchConnection(d, conn.id, { holdAt: undefined }); // it fired: nothing to clear
    const holdS = conn.negotiated?.holdTimeS ?? OPEN_SENT_HOLD_TIME_S;
    failConnection(d, conn.id, 'holdTimerExpired', `nothing from the peer for ${holdS}s (hold time)`, {
      message: notificationMessage(NotificationCode.holdTimerExpired, UNSPECIFIC_SUBCODE),
      direction: 'sent',
    });
    return 'holdTimerExpired';
  }
  send(d, conn.id, { type: 'keepalive' });
  setConnectionTimer(d, conn.id, 'keepalive', conn.negotiated!.keepaliveS * MS_PER_S);
  return 'keepaliveSent';
}

/** UPDATEs go out only on the Established connection; each restarts the keepalive timer (RFC 4271 4.4). */
function sendUpdates(d: Draft, updates: readonly BgpUpdate[]): TransitionReason {
  const conn = establishedConnection(d);
  if (!conn) return 'notEstablished';
  if (updates.length === 0) return 'updatesSent';
  for (const update of updates) send(d, conn.id, update);
  if (conn.negotiated!.holdTimeS > 0) setConnectionTimer(d, conn.id, 'keepalive', conn.negotiated!.keepaliveS * MS_PER_S);
  return 'updatesSent';
}

function decodeError(d: Draft, event: SessionEvent & { type: 'decodeError' }): TransitionReason {
  if (!findConnection(d, event.conn)) return 'staleEvent';
  const { code, subcode, data, reason } = event.error;
  failConnection(d, event.conn, 'decodeError', `malformed message from the peer: ${reason}`, {
    message: notificationMessage(code, subcode, data),
    direction: 'sent',
  });
  return 'decodeError';
}

function handle(d: Draft, event: SessionEvent): TransitionReason {
  switch (event.type) {
    case 'start':
      return start(d);
    case 'stop':
      return stop(d, event.reason);
    case 'tcpConnected':
      return tcpConnected(d, event.conn);
    case 'tcpAccepted':
      return tcpAccepted(d, event.conn);
    case 'tcpFailed':
      return tcpFailed(d, event.conn, event.error);
    case 'tcpClosed':
      return tcpClosed(d, event.conn, event.error);
    case 'message':
      return messageReceived(d, event.conn, event.message);
    case 'decodeError':
      return decodeError(d, event);
    case 'timerExpired':
      return timerExpired(d, event.timer, event.conn);
    case 'sendUpdates':
      return sendUpdates(d, event.updates);
  }
}

export function stepSession(state: SessionState, event: SessionEvent, now: number): SessionStep {
  const d = openDraft(state, now);
  const reason = handle(d, event);
  scheduleRetryIfIdle(d);
  return { state: closeDraft(d), effects: d.effects, reason };
}
