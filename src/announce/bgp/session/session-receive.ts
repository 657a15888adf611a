/**
 * What a received message does to its connection (RFC 4271 8.2.2, states OpenSent, OpenConfirm, Established):
 * the peer's OPEN is validated and may collide with our other connection (RFC 4271 6.8), its KEEPALIVE completes
 * the handshake, UPDATEs and KEEPALIVEs restart the hold timer, a NOTIFICATION ends the connection, and a message
 * the state does not expect is an FSM error (RFC 6608 subcodes). Pure.
 */
import {
  CeaseSubcode,
  NotificationCode,
  RouteRefreshSubtype,
  type BgpMessage,
  type BgpNotification,
  type BgpOpen,
  type BgpRouteRefresh,
} from '../bgp-messages';
import { resolveCollision } from './collision';
import { familyNameOfAfiSafi } from './open-message';
import { validateOpen, type NegotiatedSession } from './open-validation';
import {
  clearConnectionTimer,
  clearRetry,
  failConnection,
  findConnection,
  log,
  notificationMessage,
  patchConnection,
  recordOf,
  removeConnection,
  send,
  setConnectionTimer,
  type Draft,
} from './session-draft';
import type { TransitionReason } from './session-effects';
import { retryInitialMs, type ConnectionState } from './session-state';

/** RFC 6608: FSM Error subcodes, by the state that received the unexpected message. */
const FsmErrorSubcode = { unexpectedInOpenSent: 1, unexpectedInOpenConfirm: 2, unexpectedInEstablished: 3 } as const;

const MS_PER_S = 1000;

function collisionNotification(): BgpNotification {
  return notificationMessage(NotificationCode.cease, CeaseSubcode.connectionCollisionResolution);
}

/** Restarts the hold timer: any KEEPALIVE or UPDATE is proof the peer is alive (RFC 4271 4.4); 0 = no hold timer. */
function restartHold(d: Draft, conn: ConnectionState): void {
  const hold = conn.negotiated?.holdTimeS ?? 0;
  if (hold > 0) setConnectionTimer(d, conn.id, 'hold', hold * MS_PER_S);
}

function unexpected(d: Draft, conn: ConnectionState, message: BgpMessage): TransitionReason {
  const subcode =
    conn.phase === 'OpenSent'
      ? FsmErrorSubcode.unexpectedInOpenSent
      : conn.phase === 'OpenConfirm'
        ? FsmErrorSubcode.unexpectedInOpenConfirm
        : FsmErrorSubcode.unexpectedInEstablished;
  failConnection(d, conn.id, 'unexpectedMessage', `unexpected ${message.type} in ${conn.phase}`, {
    message: notificationMessage(NotificationCode.fsmError, subcode),
    direction: 'sent',
  });
  return 'unexpectedMessage';
}

function notificationReceived(d: Draft, conn: ConnectionState, n: BgpNotification): TransitionReason {
  const record = recordOf(n, 'received');
  const text = record.communication !== undefined ? `: "${record.communication}"` : '';
  const message = `the peer sent NOTIFICATION ${n.code}/${n.subcode}${text}`;
  failConnection(d, conn.id, 'notificationReceived', message, { message: n, direction: 'received' });
  return 'notificationReceived';
}

/**
 * RFC 4271 6.8: an OPEN on `conn` while our other connection already holds the peer's OPEN. Returns undefined when
 * there was no collision, otherwise the reason and whether `conn` goes on (the other one was closed) or not.
 */
function settleCollision(
  d: Draft,
  conn: ConnectionState,
  negotiated: NegotiatedSession,
): { proceed: boolean; reason: TransitionReason } | undefined {
  const other = d.connections.find((c) => c.id !== conn.id && (c.phase === 'OpenConfirm' || c.phase === 'Established'));
  if (!other) return undefined;
  if (other.phase === 'Established') {
    // RFC 4724 4.2: with graceful restart, a new OPEN from the peer means its old connection is gone (it restarted).
    if (other.negotiated?.gracefulRestart) {
      failConnection(d, other.id, 'peerRestarted', 'the peer opened a new session while Established (graceful restart): it restarted');
      return { proceed: true, reason: 'peerRestarted' };
    }
    // RFC 4271 6.8: a collision with an Established connection closes the new one.
    removeConnection(d, conn.id, 'collisionWithEstablished', collisionNotification());
    const message = 'closed a new connection from the peer: the session is already Established';
    log(d, 'info', 'collisionWithEstablished', message, { conn: conn.id });
    return { proceed: false, reason: 'collisionWithEstablished' };
  }
  const verdict = resolveCollision(d.config.local.routerId, negotiated.peerRouterId, d.config.local.asn, negotiated.peerAsn);
  const loser = conn.origin === verdict.keep ? other : conn;
  removeConnection(d, loser.id, 'collisionResolved', collisionNotification());
  log(d, 'info', 'collisionResolved', `connection collision: kept the ${verdict.keep} connection (${verdict.reason})`, {
    closed: loser.id,
    kept: loser.id === conn.id ? other.id : conn.id,
    verdict: verdict.reason,
  });
  return { proceed: loser.id !== conn.id, reason: 'collisionResolved' };
}

function openReceived(d: Draft, conn: ConnectionState, open: BgpOpen): TransitionReason {
  const verdict = validateOpen(open, d.config.local, d.config.peerAsn);
  if (!verdict.ok) {
    const message = `refused the peer's OPEN (${verdict.reason}): ${verdict.message}`;
    failConnection(d, conn.id, 'openRejected', message, { message: verdict.notification, direction: 'sent' });
    return 'openRejected';
  }
  const collision = settleCollision(d, conn, verdict.negotiated);
  if (collision && !collision.proceed) return collision.reason;
  const { negotiated } = verdict;
  const next = patchConnection(d, conn.id, { phase: 'OpenConfirm', negotiated });
  send(d, conn.id, { type: 'keepalive' });
  if (negotiated.holdTimeS > 0) {
    restartHold(d, next);
    setConnectionTimer(d, conn.id, 'keepalive', negotiated.keepaliveS * MS_PER_S);
  } else {
    clearConnectionTimer(d, conn.id, 'hold');
  }
  const message = `OPEN from AS ${negotiated.peerAsn} (${negotiated.peerRouterId}), hold ${negotiated.holdTimeS}s`;
  log(d, 'debug', 'openAccepted', message, { conn: conn.id });
  return collision?.reason ?? 'openAccepted';
}

/** OpenConfirm + KEEPALIVE: Established. Every other connection is closed; the backoff and failure count reset. */
function establish(d: Draft, conn: ConnectionState): TransitionReason {
  const next = patchConnection(d, conn.id, { phase: 'Established', upSince: d.now });
  restartHold(d, next);
  for (const other of d.connections.filter((c) => c.id !== conn.id)) {
    removeConnection(d, other.id, 'collisionWithEstablished', other.phase === 'Connect' ? undefined : collisionNotification());
  }
  clearRetry(d);
  d.retryDelayMs = retryInitialMs(d.config);
  d.connectRetryCounter = 0;
  const negotiated = next.negotiated!;
  d.effects.push({ type: 'up', conn: conn.id, origin: conn.origin, negotiated });
  log(d, 'debug', 'established', `session established with AS ${negotiated.peerAsn} (${negotiated.peerRouterId})`, {
    conn: conn.id,
    holdTimeS: negotiated.holdTimeS,
    keepaliveS: negotiated.keepaliveS,
    families: negotiated.families.join(','),
  });
  return 'established';
}

function routeRefreshReceived(d: Draft, conn: ConnectionState, request: BgpRouteRefresh): TransitionReason {
  restartHold(d, conn);
  const { afi, safi, subtype } = request;
  const family = familyNameOfAfiSafi(afi, safi);
  // RFC 2918 4: a family not negotiated is ignored; RFC 7313 5: BoRR/EoRR (or unknown subtypes) ask for nothing.
  const isRequest = (subtype ?? RouteRefreshSubtype.normal) === RouteRefreshSubtype.normal;
  if (!family || !conn.negotiated!.families.includes(family) || !isRequest) {
    log(d, 'debug', 'routeRefreshIgnored', `ignored ROUTE-REFRESH for AFI ${afi} SAFI ${safi} subtype ${subtype ?? 0}`);
    return 'routeRefreshIgnored';
  }
  d.effects.push({ type: 'routeRefresh', family });
  log(d, 'info', 'routeRefreshReceived', `the peer asked for the ${family} routes again`);
  return 'routeRefreshReceived';
}

export function messageReceived(d: Draft, connId: string, message: BgpMessage): TransitionReason {
  const conn = findConnection(d, connId);
  if (!conn || conn.phase === 'Connect') return 'staleEvent';
  if (message.type === 'notification') return notificationReceived(d, conn, message);
  switch (conn.phase) {
    case 'OpenSent':
      return message.type === 'open' ? openReceived(d, conn, message) : unexpected(d, conn, message);
    case 'OpenConfirm':
      return message.type === 'keepalive' ? establish(d, conn) : unexpected(d, conn, message);
    case 'Established':
      if (message.type === 'keepalive') {
        restartHold(d, conn);
        return 'keepaliveReceived';
      }
      if (message.type === 'update') {
        restartHold(d, conn);
        d.effects.push({ type: 'update', update: message });
        return 'updateReceived';
      }
      if (message.type === 'routeRefresh') return routeRefreshReceived(d, conn, message);
      return unexpected(d, conn, message);
  }
}
