/**
 * Test helpers for the pure session state machine: a configuration, the peer's OPEN, a way to walk a session to any
 * RFC 4271 state, and a one-line summary per effect so a table row reads like the RFC's list of actions.
 */
import { Afi, Safi, type BgpMessage, type BgpOpen, type BgpUpdate, type Capability } from '../../../../src/announce/bgp/bgp-messages';
import { parseCIDR } from '../../../../src/ip';
import type { SessionFsmConfig } from '../../../../src/announce/bgp/session/session-config';
import type { SessionEffect } from '../../../../src/announce/bgp/session/session-effects';
import type { SessionEvent } from '../../../../src/announce/bgp/session/session-events';
import { stepSession, type SessionStep } from '../../../../src/announce/bgp/session/session-fsm';
import { createSessionState, type SessionState } from '../../../../src/announce/bgp/session/session-state';

export const LOCAL_ASN = 64500;
export const PEER_ASN = 64501;
export const LOCAL_ID = '10.0.0.1';
export const PEER_ID = '10.0.0.2';

export function fsmConfig(over: Partial<SessionFsmConfig> = {}, local: Partial<SessionFsmConfig['local']> = {}): SessionFsmConfig {
  return {
    local: { asn: LOCAL_ASN, routerId: LOCAL_ID, holdTimeS: 90, keepaliveS: 0, families: ['ipv4'], ...local },
    peerAsn: { asn: PEER_ASN },
    passive: false,
    dialOut: true,
    ...over,
  };
}

export function peerOpen(over: Partial<BgpOpen> = {}, asn = PEER_ASN): BgpOpen {
  const capabilities: Capability[] = [
    { code: 'multiprotocol', afi: Afi.ipv4, safi: Safi.unicast },
    { code: 'routeRefresh' },
    { code: 'fourOctetAsn', asn },
  ];
  return { type: 'open', version: 4, myAs: asn > 0xffff ? 23456 : asn, holdTimeSeconds: 90, bgpIdentifier: PEER_ID, capabilities, ...over };
}

export function update(prefix = '192.0.2.10/32'): BgpUpdate {
  return { type: 'update', withdrawn: [], attributes: { origin: 'igp', asPath: [] }, nlri: [parseCIDR(prefix)!] };
}

/** A session and its clock; `step` applies one event and keeps the result. */
export class FsmRun {
  state: SessionState;
  now = 0;
  last!: SessionStep;
  readonly history: SessionStep[] = [];

  constructor(config: SessionFsmConfig = fsmConfig()) {
    this.state = createSessionState(config);
  }

  step(event: SessionEvent, at = this.now): SessionStep {
    this.now = at;
    this.last = stepSession(this.state, event, at);
    this.state = this.last.state;
    this.history.push(this.last);
    this.track(this.last);
    return this.last;
  }

  /** The timers the machine has set and not cleared, by "timer conn". */
  readonly timers = new Map<string, { timer: 'connectRetry' | 'hold' | 'keepalive'; conn?: string; at: number }>();
  /** Every message the machine sent, with the time. */
  readonly sent: { at: number; conn: string; message: BgpMessage }[] = [];

  private track(step: SessionStep): void {
    for (const e of step.effects) {
      if (e.type === 'setTimer')
        this.timers.set(`${e.timer} ${e.conn ?? ''}`, { timer: e.timer, ...(e.conn ? { conn: e.conn } : {}), at: e.at });
      if (e.type === 'clearTimer') this.timers.delete(`${e.timer} ${e.conn ?? ''}`);
      if (e.type === 'send') this.sent.push({ at: this.now, conn: e.conn, message: e.message });
    }
  }

  /** Fires every timer due up to `until`, in time order, as the shell would. */
  advance(until: number): void {
    for (;;) {
      const due = [...this.timers.values()].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(`${due.timer} ${due.conn ?? ''}`);
      this.step({ type: 'timerExpired', timer: due.timer, ...(due.conn ? { conn: due.conn } : {}) }, due.at);
    }
    this.now = until;
  }

  /** Effects of the last step, summarized (logs left out: they are for people). */
  get summary(): string[] {
    return summarize(this.last.effects, this.now);
  }
}

/** Walks a fresh session to `phase` on connection out-1 (OpenSent, OpenConfirm, Established), or to Connect. */
export function sessionIn(
  phase: 'Idle' | 'Connect' | 'OpenSent' | 'OpenConfirm' | 'Established',
  config?: SessionFsmConfig,
  open = peerOpen(),
): FsmRun {
  const run = new FsmRun(config);
  if (phase === 'Idle') return run;
  run.step({ type: 'start' });
  if (phase === 'Connect') return run;
  run.step({ type: 'tcpConnected', conn: 'out-1' });
  if (phase === 'OpenSent') return run;
  run.step({ type: 'message', conn: 'out-1', message: open });
  if (phase === 'OpenConfirm') return run;
  run.step({ type: 'message', conn: 'out-1', message: { type: 'keepalive' } });
  return run;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** "send out-1 notification 4/0", "setTimer hold out-1 +90000", "close out-1", "up", "down holdTimerExpired" ... */
function summarize(effects: readonly SessionEffect[], now: number): string[] {
  const lines: string[] = [];
  for (const e of effects) {
    switch (e.type) {
      case 'connect':
        lines.push(`connect ${e.conn}`);
        break;
      case 'send': {
        const m = e.message;
        const what = m.type === 'notification' ? `notification ${m.code}/${m.subcode}${m.data.length ? ` ${hex(m.data)}` : ''}` : m.type;
        lines.push(`send ${e.conn} ${what}`);
        break;
      }
      case 'close':
        lines.push(`close ${e.conn}`);
        break;
      case 'setTimer':
        lines.push(`setTimer ${e.timer}${e.conn ? ` ${e.conn}` : ''} +${e.at - now}`);
        break;
      case 'clearTimer':
        lines.push(`clearTimer ${e.timer}${e.conn ? ` ${e.conn}` : ''}`);
        break;
      case 'up':
        lines.push(`up ${e.conn}`);
        break;
      case 'down':
        lines.push(`down ${e.reason}`);
        break;
      case 'update':
        lines.push('update');
        break;
      case 'routeRefresh':
        lines.push(`routeRefresh ${e.family}`);
        break;
      case 'log':
        break;
    }
  }
  return lines;
}
