/**
 * The working copy of one state-machine step and the moves every handler shares: sending, closing a connection
 * (with its NOTIFICATION and timers), failing it (down, backoff, retry), dialing, logging. The caller's state is
 * never changed; closeDraft returns the next one.
 */
import { CeaseSubcode, NotificationCode, type BgpMessage, type BgpNotification } from '../bgp-messages';
import { nextBackoff } from './connect-backoff';
import type { SessionFsmConfig } from './session-config';
import type { LogLevel, NotificationRecord, SessionEffect, TransitionReason } from './session-effects';
import type { ConnectionId } from './session-events';
import {
  derivePhase,
  dialTimeoutMs,
  retryInitialMs,
  retryMaxMs,
  type ConnectionState,
  type SessionProblem,
  type SessionState,
} from './session-state';

/** RFC 9003: a shutdown communication is a length octet and at most 255 octets of UTF-8. */
const MAX_SHUTDOWN_COMMUNICATION_BYTES = 255;

export interface Draft {
  readonly config: SessionFsmConfig;
  readonly now: number;
  readonly effects: SessionEffect[];
  started: boolean;
  connections: ConnectionState[];
  connectRetryAt: number | undefined;
  retryDelayMs: number;
  connectRetryCounter: number;
  dials: number;
  lastProblem: SessionProblem | undefined;
}

export function openDraft(state: SessionState, now: number): Draft {
  return {
    config: state.config,
    now,
    effects: [],
    started: state.started,
    connections: [...state.connections],
    connectRetryAt: state.connectRetryAt,
    retryDelayMs: state.retryDelayMs,
    connectRetryCounter: state.connectRetryCounter,
    dials: state.dials,
    lastProblem: state.lastProblem,
  };
}

export function closeDraft(d: Draft): SessionState {
  return {
    config: d.config,
    phase: derivePhase(d),
    started: d.started,
    connections: d.connections,
    ...(d.connectRetryAt !== undefined ? { connectRetryAt: d.connectRetryAt } : {}),
    retryDelayMs: d.retryDelayMs,
    connectRetryCounter: d.connectRetryCounter,
    dials: d.dials,
    ...(d.lastProblem ? { lastProblem: d.lastProblem } : {}),
  };
}

type LogFields = Record<string, string | number | boolean>;

export function log(d: Draft, level: LogLevel, reason: TransitionReason, message: string, fields?: LogFields): void {
  d.effects.push({ type: 'log', level, reason, message, ...(fields ? { fields } : {}) });
}

export function send(d: Draft, conn: ConnectionId, message: BgpMessage): void {
  d.effects.push({ type: 'send', conn, message });
}

export function findConnection(d: Draft, id: ConnectionId): ConnectionState | undefined {
  return d.connections.find((c) => c.id === id);
}

export function patchConnection(d: Draft, id: ConnectionId, patch: Partial<ConnectionState>): ConnectionState {
  const index = d.connections.findIndex((c) => c.id === id);
  const next = { ...d.connections[index]!, ...patch };
  d.connections[index] = next;
  return next;
}

export function setConnectionTimer(d: Draft, id: ConnectionId, timer: 'hold' | 'keepalive', delayMs: number): void {
  const at = d.now + delayMs;
  patchConnection(d, id, timer === 'hold' ? { holdAt: at } : { keepaliveAt: at });
  d.effects.push({ type: 'setTimer', timer, conn: id, at });
}

export function clearConnectionTimer(d: Draft, id: ConnectionId, timer: 'hold' | 'keepalive'): void {
  const conn = findConnection(d, id);
  if (!conn || (timer === 'hold' ? conn.holdAt : conn.keepaliveAt) === undefined) return;
  patchConnection(d, id, timer === 'hold' ? { holdAt: undefined } : { keepaliveAt: undefined });
  d.effects.push({ type: 'clearTimer', timer, conn: id });
}

export function notificationMessage(code: number, subcode: number, data: Uint8Array = new Uint8Array(0)): BgpNotification {
  return { type: 'notification', code, subcode, data };
}

function isShutdownCommunication(code: number, subcode: number): boolean {
  if (code !== NotificationCode.cease) return false;
  return subcode === CeaseSubcode.administrativeShutdown || subcode === CeaseSubcode.administrativeReset;
}

/** RFC 9003 data: the text's UTF-8 length, then the text, cut at a character boundary to fit 255 octets. */
export function shutdownCommunicationBytes(text: string): Uint8Array {
  let bytes = new TextEncoder().encode(text);
  let chars = [...text];
  while (bytes.length > MAX_SHUTDOWN_COMMUNICATION_BYTES) {
    chars = chars.slice(0, -1);
    bytes = new TextEncoder().encode(chars.join(''));
  }
  const data = new Uint8Array(bytes.length + 1);
  data[0] = bytes.length;
  data.set(bytes, 1);
  return data;
}

/** The shutdown communication a Cease carries, if it carries a well-formed one. */
function shutdownCommunicationOf(n: BgpNotification): string | undefined {
  if (!isShutdownCommunication(n.code, n.subcode) || n.data.length === 0) return undefined;
  const length = n.data[0]!;
  if (length === 0 || length > n.data.length - 1) return undefined;
  return new TextDecoder('utf-8', { fatal: false }).decode(n.data.subarray(1, 1 + length));
}

export function recordOf(n: BgpNotification, direction: 'sent' | 'received'): NotificationRecord {
  const communication = shutdownCommunicationOf(n);
  return { direction, code: n.code, subcode: n.subcode, data: n.data, ...(communication !== undefined ? { communication } : {}) };
}

/** Sends `notification` (if any), stops the connection's timers, closes it and forgets it. */
export function removeConnection(d: Draft, id: ConnectionId, reason: TransitionReason, notification?: BgpNotification): void {
  if (!findConnection(d, id)) return;
  if (notification) send(d, id, notification);
  clearConnectionTimer(d, id, 'hold');
  clearConnectionTimer(d, id, 'keepalive');
  d.effects.push({ type: 'close', conn: id, reason });
  d.connections = d.connections.filter((c) => c.id !== id);
}

export function clearRetry(d: Draft): void {
  if (d.connectRetryAt === undefined) return;
  d.connectRetryAt = undefined;
  d.effects.push({ type: 'clearTimer', timer: 'connectRetry' });
}

export function dial(d: Draft): void {
  clearRetry(d);
  d.dials += 1;
  const conn = `out-${d.dials}`;
  d.connections.push({ id: conn, origin: 'outbound', phase: 'Connect' });
  d.effects.push({ type: 'connect', conn, timeoutMs: dialTimeoutMs(d.config) });
}

/**
 * With no connection left, a started session that dials waits the backoff and dials again (MetalLB's loop); one
 * that only accepts waits for the peer. Each wait doubles the next one.
 */
export function scheduleRetryIfIdle(d: Draft): void {
  if (!d.started || !d.config.dialOut || d.connections.length > 0 || d.connectRetryAt !== undefined) return;
  const waitMs = d.retryDelayMs;
  d.connectRetryAt = d.now + waitMs;
  d.retryDelayMs = nextBackoff(waitMs, { initialMs: retryInitialMs(d.config), maxMs: retryMaxMs(d.config) });
  d.effects.push({ type: 'setTimer', timer: 'connectRetry', at: d.connectRetryAt });
  log(d, 'debug', 'retryScheduled', `next connection attempt in ${waitMs} ms`, { waitMs });
}

/**
 * The common end of a connection that failed: the NOTIFICATION we send (if any) goes out, the connection closes,
 * the failure is counted and remembered, an Established session reports down, and the backoff starts when no
 * other connection is left.
 */
export function failConnection(
  d: Draft,
  id: ConnectionId,
  reason: TransitionReason,
  message: string,
  notification?: { readonly message: BgpNotification; readonly direction: 'sent' | 'received' },
): void {
  const conn = findConnection(d, id);
  if (!conn) return;
  const wasUp = conn.phase === 'Established';
  removeConnection(d, id, reason, notification?.direction === 'sent' ? notification.message : undefined);
  d.connectRetryCounter += 1;
  const record = notification ? recordOf(notification.message, notification.direction) : undefined;
  d.lastProblem = { reason, message, at: d.now, ...(record ? { notification: record } : {}) };
  const fields: LogFields = { conn: id, phase: conn.phase, failures: d.connectRetryCounter };
  if (record) Object.assign(fields, { notificationCode: record.code, notificationSubcode: record.subcode, notification: record.direction });
  if (record?.communication !== undefined) fields.communication = record.communication;
  // An Established session's end is also the shell's sessionDown line (MetalLB's event); this one has the details.
  log(d, wasUp ? 'debug' : 'info', reason, message, fields);
  if (wasUp) d.effects.push({ type: 'down', reason, message, ...(record ? { notification: record } : {}) });
  scheduleRetryIfIdle(d);
}
