/**
 * The session state machine against RFC 4271 section 8.2.2, one row per (state, event) with the actions the RFC
 * lists for it, then its timers, the reconnect backoff, and a property over random event sequences. Collisions
 * are in session-collision.test.ts.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { SessionEvent } from '../../../../src/announce/bgp/session/session-events';
import { stepSession } from '../../../../src/announce/bgp/session/session-fsm';
import { createSessionState, type SessionState } from '../../../../src/announce/bgp/session/session-state';
import { backoffSequence } from '../../../../src/announce/bgp/session/connect-backoff';
import { BgpSessionError } from '../../../../src/announce/bgp/session/session-errors';
import { FsmRun, fsmConfig, peerOpen, PEER_ASN, sessionIn, update } from './fsm-harness';

const ceaseShutdown = (text: string): string => `notification 6/2 ${Buffer.from([text.length, ...Buffer.from(text)]).toString('hex')}`;

type From = Parameters<typeof sessionIn>[0];
interface Row {
  readonly from: From;
  readonly event: SessionEvent;
  readonly at?: number;
  readonly to: string;
  readonly effects: readonly string[];
  readonly reason: string;
}

const keepalive = { type: 'keepalive' } as const;
const msg = (message: Extract<SessionEvent, { type: 'message' }>['message']): SessionEvent => ({ type: 'message', conn: 'out-1', message });
const notification = (code: number, subcode: number): SessionEvent => msg({ type: 'notification', code, subcode, data: new Uint8Array(0) });
const RETRY = 'setTimer connectRetry +1000';

// RFC 4271 8.2.2, state by state. "Idle" after a failure means: waiting the backoff before the next dial.
const TABLE: Record<string, Row> = {
  'Idle, ManualStart: dial, Connect': {
    from: 'Idle',
    event: { type: 'start' },
    to: 'Connect',
    effects: ['connect out-1'],
    reason: 'started',
  },
  'Idle, ManualStop: nothing': { from: 'Idle', event: { type: 'stop', reason: 'x' }, to: 'Idle', effects: [], reason: 'notStarted' },
  'Idle, a message on no connection: ignored': { from: 'Idle', event: msg(keepalive), to: 'Idle', effects: [], reason: 'staleEvent' },
  'Connect, Tcp_CR_Acked: OPEN, large hold timer, OpenSent': {
    from: 'Connect',
    event: { type: 'tcpConnected', conn: 'out-1' },
    to: 'OpenSent',
    effects: ['send out-1 open', 'setTimer hold out-1 +240000'],
    reason: 'tcpConnected',
  },
  'Connect, TcpConnectionFails: close, Idle, retry after the backoff': {
    from: 'Connect',
    event: { type: 'tcpFailed', conn: 'out-1', error: 'ECONNREFUSED' },
    to: 'Idle',
    effects: ['close out-1', RETRY],
    reason: 'tcpFailed',
  },
  'Connect, ManualStop: drop the dial, Idle': {
    from: 'Connect',
    event: { type: 'stop', reason: 'x' },
    to: 'Idle',
    effects: ['close out-1'],
    reason: 'stopped',
  },
  'Connect, a hold timer that is not running: ignored': {
    from: 'Connect',
    event: { type: 'timerExpired', timer: 'hold', conn: 'out-1' },
    to: 'Connect',
    effects: [],
    reason: 'staleEvent',
  },
  'OpenSent, BGPOpen: KEEPALIVE, negotiated hold and keepalive timers, OpenConfirm': {
    from: 'OpenSent',
    event: msg(peerOpen()),
    to: 'OpenConfirm',
    effects: ['send out-1 keepalive', 'setTimer hold out-1 +90000', 'setTimer keepalive out-1 +30000'],
    reason: 'openAccepted',
  },
  'OpenSent, HoldTimer_Expires: NOTIFICATION 4/0, Idle': {
    from: 'OpenSent',
    event: { type: 'timerExpired', timer: 'hold', conn: 'out-1' },
    at: 240_000,
    to: 'Idle',
    effects: ['send out-1 notification 4/0', 'close out-1', RETRY],
    reason: 'holdTimerExpired',
  },
  'OpenSent, BGPOpenMsgErr (version 3): NOTIFICATION 2/1, Idle': {
    from: 'OpenSent',
    event: msg(peerOpen({ version: 3 })),
    to: 'Idle',
    effects: ['send out-1 notification 2/1 0004', 'clearTimer hold out-1', 'close out-1', RETRY],
    reason: 'openRejected',
  },
  'OpenSent, BGPHeaderErr: the NOTIFICATION the codec names, Idle': {
    from: 'OpenSent',
    event: { type: 'decodeError', conn: 'out-1', error: { code: 1, subcode: 2, data: new Uint8Array([0, 3]), reason: 'length 3' } },
    to: 'Idle',
    effects: ['send out-1 notification 1/2 0003', 'clearTimer hold out-1', 'close out-1', RETRY],
    reason: 'decodeError',
  },
  'OpenSent, KeepAliveMsg: FSM error 5/1 (RFC 6608), Idle': {
    from: 'OpenSent',
    event: msg(keepalive),
    to: 'Idle',
    effects: ['send out-1 notification 5/1', 'clearTimer hold out-1', 'close out-1', RETRY],
    reason: 'unexpectedMessage',
  },
  'OpenSent, UpdateMsg: FSM error 5/1, Idle': {
    from: 'OpenSent',
    event: msg(update()),
    to: 'Idle',
    effects: ['send out-1 notification 5/1', 'clearTimer hold out-1', 'close out-1', RETRY],
    reason: 'unexpectedMessage',
  },
  'OpenSent, NotifMsg: close, Idle': {
    from: 'OpenSent',
    event: notification(6, 2),
    to: 'Idle',
    effects: ['clearTimer hold out-1', 'close out-1', RETRY],
    reason: 'notificationReceived',
  },
  'OpenSent, TcpConnectionFails: Idle': {
    from: 'OpenSent',
    event: { type: 'tcpClosed', conn: 'out-1' },
    to: 'Idle',
    effects: ['clearTimer hold out-1', 'close out-1', RETRY],
    reason: 'tcpClosed',
  },
  'OpenSent, ManualStop: NOTIFICATION Cease 6/2 with the reason (RFC 9003), Idle': {
    from: 'OpenSent',
    event: { type: 'stop', reason: 'maintenance' },
    to: 'Idle',
    effects: [`send out-1 ${ceaseShutdown('maintenance')}`, 'clearTimer hold out-1', 'close out-1'],
    reason: 'stopped',
  },
  'OpenConfirm, KeepAliveMsg: restart hold, Established': {
    from: 'OpenConfirm',
    event: msg(keepalive),
    to: 'Established',
    effects: ['setTimer hold out-1 +90000', 'up out-1'],
    reason: 'established',
  },
  'OpenConfirm, KeepaliveTimer_Expires: KEEPALIVE, restart it': {
    from: 'OpenConfirm',
    event: { type: 'timerExpired', timer: 'keepalive', conn: 'out-1' },
    at: 30_000,
    to: 'OpenConfirm',
    effects: ['send out-1 keepalive', 'setTimer keepalive out-1 +30000'],
    reason: 'keepaliveSent',
  },
  'OpenConfirm, HoldTimer_Expires: NOTIFICATION 4/0, Idle': {
    from: 'OpenConfirm',
    event: { type: 'timerExpired', timer: 'hold', conn: 'out-1' },
    at: 90_000,
    to: 'Idle',
    effects: ['send out-1 notification 4/0', 'clearTimer keepalive out-1', 'close out-1', RETRY],
    reason: 'holdTimerExpired',
  },
  'OpenConfirm, UpdateMsg: FSM error 5/2, Idle': {
    from: 'OpenConfirm',
    event: msg(update()),
    to: 'Idle',
    effects: ['send out-1 notification 5/2', 'clearTimer hold out-1', 'clearTimer keepalive out-1', 'close out-1', RETRY],
    reason: 'unexpectedMessage',
  },
  'OpenConfirm, a second OPEN on the same connection: FSM error 5/2, Idle': {
    from: 'OpenConfirm',
    event: msg(peerOpen()),
    to: 'Idle',
    effects: ['send out-1 notification 5/2', 'clearTimer hold out-1', 'clearTimer keepalive out-1', 'close out-1', RETRY],
    reason: 'unexpectedMessage',
  },
  'OpenConfirm, NotifMsg: Idle': {
    from: 'OpenConfirm',
    event: notification(2, 2),
    to: 'Idle',
    effects: ['clearTimer hold out-1', 'clearTimer keepalive out-1', 'close out-1', RETRY],
    reason: 'notificationReceived',
  },
  'Established, UpdateMsg: restart hold, deliver': {
    from: 'Established',
    event: msg(update()),
    to: 'Established',
    effects: ['setTimer hold out-1 +90000', 'update'],
    reason: 'updateReceived',
  },
  'Established, KeepAliveMsg: restart hold': {
    from: 'Established',
    event: msg(keepalive),
    to: 'Established',
    effects: ['setTimer hold out-1 +90000'],
    reason: 'keepaliveReceived',
  },
  'Established, ROUTE-REFRESH for a negotiated family: the speaker re-sends': {
    from: 'Established',
    event: msg({ type: 'routeRefresh', afi: 1, safi: 1 }),
    to: 'Established',
    effects: ['setTimer hold out-1 +90000', 'routeRefresh ipv4'],
    reason: 'routeRefreshReceived',
  },
  'Established, ROUTE-REFRESH for a family not negotiated: ignored (RFC 2918 4)': {
    from: 'Established',
    event: msg({ type: 'routeRefresh', afi: 2, safi: 1 }),
    to: 'Established',
    effects: ['setTimer hold out-1 +90000'],
    reason: 'routeRefreshIgnored',
  },
  'Established, ROUTE-REFRESH BoRR (RFC 7313): not a request': {
    from: 'Established',
    event: msg({ type: 'routeRefresh', afi: 1, safi: 1, subtype: 1 }),
    to: 'Established',
    effects: ['setTimer hold out-1 +90000'],
    reason: 'routeRefreshIgnored',
  },
  'Established, KeepaliveTimer_Expires: KEEPALIVE': {
    from: 'Established',
    event: { type: 'timerExpired', timer: 'keepalive', conn: 'out-1' },
    at: 30_000,
    to: 'Established',
    effects: ['send out-1 keepalive', 'setTimer keepalive out-1 +30000'],
    reason: 'keepaliveSent',
  },
  'Established, HoldTimer_Expires: NOTIFICATION 4/0, down, Idle': {
    from: 'Established',
    event: { type: 'timerExpired', timer: 'hold', conn: 'out-1' },
    at: 90_000,
    to: 'Idle',
    effects: ['send out-1 notification 4/0', 'clearTimer keepalive out-1', 'close out-1', 'down holdTimerExpired', RETRY],
    reason: 'holdTimerExpired',
  },
  'Established, a hold timer event before its deadline: ignored': {
    from: 'Established',
    event: { type: 'timerExpired', timer: 'hold', conn: 'out-1' },
    at: 89_999,
    to: 'Established',
    effects: [],
    reason: 'staleEvent',
  },
  'Established, BGPOpen: FSM error 5/3, down': {
    from: 'Established',
    event: msg(peerOpen()),
    to: 'Idle',
    effects: [
      'send out-1 notification 5/3',
      'clearTimer hold out-1',
      'clearTimer keepalive out-1',
      'close out-1',
      'down unexpectedMessage',
      RETRY,
    ],
    reason: 'unexpectedMessage',
  },
  'Established, UpdateMsgErr: the codec NOTIFICATION, down': {
    from: 'Established',
    event: { type: 'decodeError', conn: 'out-1', error: { code: 3, subcode: 1, data: new Uint8Array(0), reason: 'bad' } },
    to: 'Idle',
    effects: [
      'send out-1 notification 3/1',
      'clearTimer hold out-1',
      'clearTimer keepalive out-1',
      'close out-1',
      'down decodeError',
      RETRY,
    ],
    reason: 'decodeError',
  },
  'Established, NotifMsg: down': {
    from: 'Established',
    event: notification(6, 4),
    to: 'Idle',
    effects: ['clearTimer hold out-1', 'clearTimer keepalive out-1', 'close out-1', 'down notificationReceived', RETRY],
    reason: 'notificationReceived',
  },
  'Established, TcpConnectionFails: down': {
    from: 'Established',
    event: { type: 'tcpClosed', conn: 'out-1', error: 'ECONNRESET' },
    to: 'Idle',
    effects: ['clearTimer hold out-1', 'clearTimer keepalive out-1', 'close out-1', 'down tcpClosed', RETRY],
    reason: 'tcpClosed',
  },
  'Established, ManualStop: Cease 6/2, down, Idle without retry': {
    from: 'Established',
    event: { type: 'stop', reason: 'bye' },
    to: 'Idle',
    effects: [`send out-1 ${ceaseShutdown('bye')}`, 'clearTimer hold out-1', 'clearTimer keepalive out-1', 'close out-1', 'down stopped'],
    reason: 'stopped',
  },
  'Established, UPDATEs to send: out, keepalive timer restarted': {
    from: 'Established',
    event: { type: 'sendUpdates', updates: [update('192.0.2.1/32'), update('192.0.2.2/32')] },
    at: 10_000,
    to: 'Established',
    effects: ['send out-1 update', 'send out-1 update', 'setTimer keepalive out-1 +30000'],
    reason: 'updatesSent',
  },
  'OpenConfirm, UPDATEs to send: refused (not Established)': {
    from: 'OpenConfirm',
    event: { type: 'sendUpdates', updates: [update()] },
    to: 'OpenConfirm',
    effects: [],
    reason: 'notEstablished',
  },
};

describe('session FSM: RFC 4271 8.2.2 transitions', () => {
  it.each(Object.entries(TABLE))('%s', (_name, row) => {
    const run = sessionIn(row.from);
    run.step(row.event, row.at ?? run.now);
    expect(run.summary).toEqual(row.effects);
    expect(run.state.phase).toBe(row.to);
    expect(run.last.reason).toBe(row.reason);
  });

  it('reports up with what was negotiated, and down with the NOTIFICATION it sent', () => {
    const run = sessionIn('OpenConfirm');
    run.step(msg(keepalive));
    const up = run.last.effects.find((e) => e.type === 'up');
    expect(up).toMatchObject({
      origin: 'outbound',
      negotiated: { peerAsn: PEER_ASN, holdTimeS: 90, keepaliveS: 30, families: ['ipv4'], routeRefresh: true, internal: false },
    });
    run.step({ type: 'timerExpired', timer: 'hold', conn: 'out-1' }, 90_000);
    const down = run.last.effects.find((e) => e.type === 'down');
    expect(down).toMatchObject({ reason: 'holdTimerExpired', notification: { direction: 'sent', code: 4, subcode: 0 } });
    expect(run.state.lastProblem).toMatchObject({ reason: 'holdTimerExpired', at: 90_000 });
  });

  it("tells the peer's shutdown communication (RFC 9003) in the down event", () => {
    const run = sessionIn('Established');
    const text = 'router maintenance';
    run.step(msg({ type: 'notification', code: 6, subcode: 2, data: new Uint8Array([text.length, ...Buffer.from(text)]) }));
    expect(run.last.effects.find((e) => e.type === 'down')).toMatchObject({ notification: { direction: 'received', communication: text } });
  });

  it('cuts a long stop reason to 255 octets at a character boundary', () => {
    const run = sessionIn('Established');
    run.step({ type: 'stop', reason: 'é'.repeat(200) });
    const sent = run.sent.at(-1)!.message;
    expect(sent).toMatchObject({ type: 'notification', code: 6, subcode: 2 });
    const data = (sent as { data: Uint8Array }).data;
    expect(data[0]).toBe(254);
    expect(Buffer.from(data.subarray(1)).toString()).toBe('é'.repeat(127));
  });

  it('waits for the peer in Active when passive without dialing, and accepts its connection', () => {
    const run = new FsmRun(fsmConfig({ passive: true, dialOut: false }));
    run.step({ type: 'start' });
    expect(run.state.phase).toBe('Active');
    expect(run.summary).toEqual([]);
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    expect(run.summary).toEqual(['send in-1 open', 'setTimer hold in-1 +240000']);
    expect(run.state.phase).toBe('OpenSent');
    run.step({ type: 'tcpClosed', conn: 'in-1' });
    expect(run.state.phase).toBe('Active');
    expect(run.summary).toEqual(['clearTimer hold in-1', 'close in-1']);
  });

  it("refuses the peer's connection when not passive, or when stopped", () => {
    const run = sessionIn('Connect');
    run.step({ type: 'tcpAccepted', conn: 'in-1' });
    expect(run.summary).toEqual(['close in-1']);
    expect(run.last.reason).toBe('inboundRefused');
    const stopped = new FsmRun(fsmConfig({ passive: true }));
    stopped.step({ type: 'tcpAccepted', conn: 'in-1' });
    expect(stopped.last.reason).toBe('inboundRefused');
  });

  it('closes a socket whose dial it no longer waits for', () => {
    const run = sessionIn('Connect');
    run.step({ type: 'stop', reason: 'x' });
    run.step({ type: 'tcpConnected', conn: 'out-1' });
    expect(run.summary).toEqual(['close out-1']);
    expect(run.last.reason).toBe('staleEvent');
  });

  it('ignores a second start', () => {
    const run = sessionIn('Connect');
    expect(run.step({ type: 'start' }).reason).toBe('alreadyStarted');
    expect(run.summary).toEqual([]);
  });

  it('refuses a configuration no session can run with', () => {
    expect(() => createSessionState(fsmConfig({}, { holdTimeS: 2 }))).toThrow(/must be 0 or >=3s/);
    expect(() => createSessionState(fsmConfig({}, { asn: 0 }))).toThrow(BgpSessionError);
    expect(() => createSessionState(fsmConfig({}, { routerId: '0.0.0.0' }))).toThrow(/router ID/);
    expect(() => createSessionState(fsmConfig({ passive: false, dialOut: false }))).toThrow(/never comes up/);
    expect(() => createSessionState(fsmConfig({}, { families: [] }))).toThrow(/address family/);
  });
});

describe('session FSM: timers', () => {
  it('sends a KEEPALIVE every third of the hold time and gives up after a silent hold time (4/0)', () => {
    const run = sessionIn('Established');
    run.advance(95_000);
    const sent = run.sent.filter((s) => s.at > 0).map((s) => `${s.at} ${s.message.type}`);
    expect(sent).toEqual(['30000 keepalive', '60000 keepalive', '90000 notification']);
    expect(run.sent.at(-1)!.message).toMatchObject({ code: 4, subcode: 0 });
    expect(run.state.phase).toBe('Connect'); // redialed after 1 s
    expect(run.history.at(-1)!.effects).toContainEqual({ type: 'connect', conn: 'out-2', timeoutMs: 10_000 });
  });

  it('stays up for as long as the peer keeps talking', () => {
    const run = sessionIn('Established');
    for (let t = 25_000; t <= 600_000; t += 25_000) {
      run.advance(t);
      run.step(msg(keepalive), t);
    }
    run.advance(600_000);
    expect(run.state.phase).toBe('Established');
    expect(run.sent.filter((s) => s.message.type === 'keepalive' && s.at > 0)).toHaveLength(20);
  });

  it('postpones its KEEPALIVE after an UPDATE (RFC 4271 4.4)', () => {
    const run = sessionIn('Established');
    run.step({ type: 'sendUpdates', updates: [update()] }, 20_000);
    run.advance(49_999);
    expect(run.sent.filter((s) => s.message.type === 'keepalive' && s.at > 0)).toEqual([]);
    run.advance(50_000);
    expect(run.sent.filter((s) => s.message.type === 'keepalive' && s.at > 0).map((s) => s.at)).toEqual([50_000]);
  });

  it('runs no hold timer and sends no keepalives when the hold time is 0', () => {
    const run = sessionIn('OpenConfirm', undefined, peerOpen({ holdTimeSeconds: 0 }));
    expect(run.summary).toEqual(['send out-1 keepalive', 'clearTimer hold out-1']);
    run.step(msg(keepalive));
    expect(run.summary).toEqual(['up out-1']);
    run.advance(3_600_000);
    expect(run.state.phase).toBe('Established');
    expect(run.timers.size).toBe(0);
  });

  it('uses the smaller hold time and a third of it (peer offers 9 s: keepalive every 3 s)', () => {
    const run = sessionIn('Established', undefined, peerOpen({ holdTimeSeconds: 9 }));
    run.advance(8_999);
    expect(run.sent.filter((s) => s.message.type === 'keepalive' && s.at > 0).map((s) => s.at)).toEqual([3_000, 6_000]);
    run.advance(9_000);
    expect(run.state.phase).not.toBe('Established');
  });
});

describe('session FSM: reconnect backoff (MetalLB: 1 s doubling to 2 min, reset by Established)', () => {
  it('waits 1, 2, 4 ... 120 s between failed dials', () => {
    const run = sessionIn('Connect');
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 10; attempt++) {
      run.step({ type: 'tcpFailed', conn: `out-${attempt}`, error: 'ECONNREFUSED' });
      const retry = run.last.effects.find((e) => e.type === 'setTimer' && e.timer === 'connectRetry') as { at: number };
      waits.push(retry.at - run.now);
      expect(run.state.phase).toBe('Idle');
      run.advance(retry.at);
      expect(run.last.reason).toBe('connectRetry');
      expect(run.summary).toEqual([`connect out-${attempt + 1}`]);
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 120_000, 120_000, 120_000]);
    expect(waits).toEqual(backoffSequence(10));
    expect(run.state.connectRetryCounter).toBe(10);
  });

  it('starts again from 1 s once a session was Established', () => {
    const run = sessionIn('Connect');
    for (let attempt = 1; attempt <= 4; attempt++) {
      run.step({ type: 'tcpFailed', conn: `out-${attempt}`, error: 'ETIMEDOUT' });
      run.advance(run.state.connectRetryAt!);
    }
    run.step({ type: 'tcpConnected', conn: 'out-5' });
    run.step({ type: 'message', conn: 'out-5', message: peerOpen() });
    run.step({ type: 'message', conn: 'out-5', message: keepalive });
    expect(run.state.connectRetryCounter).toBe(0);
    run.step({ type: 'tcpClosed', conn: 'out-5' });
    expect(run.state.connectRetryAt! - run.now).toBe(1_000);
  });

  it('does not redial after stop', () => {
    const run = sessionIn('Connect');
    run.step({ type: 'tcpFailed', conn: 'out-1', error: 'ECONNREFUSED' });
    run.step({ type: 'stop', reason: 'x' });
    expect(run.summary).toEqual(['clearTimer connectRetry']);
    run.step({ type: 'timerExpired', timer: 'connectRetry' }, 5_000);
    expect(run.last.reason).toBe('staleEvent');
    expect(run.summary).toEqual([]);
  });
});

describe('session FSM: any sequence of events', () => {
  const conns = ['out-1', 'out-2', 'out-3', 'in-1', 'in-2'];
  const messages = [
    peerOpen(),
    { type: 'keepalive' as const },
    update(),
    { type: 'routeRefresh' as const, afi: 1, safi: 1 },
    { type: 'notification' as const, code: 6, subcode: 2, data: new Uint8Array(0) },
    peerOpen({ holdTimeSeconds: 1 }),
  ];
  const event: fc.Arbitrary<SessionEvent> = fc.oneof(
    fc.constant<SessionEvent>({ type: 'start' }),
    fc.constant<SessionEvent>({ type: 'stop', reason: 'test' }),
    fc.constantFrom(...conns).map<SessionEvent>((conn) => ({ type: 'tcpConnected', conn })),
    fc.constantFrom(...conns).map<SessionEvent>((conn) => ({ type: 'tcpAccepted', conn })),
    fc.constantFrom(...conns).map<SessionEvent>((conn) => ({ type: 'tcpFailed', conn, error: 'x' })),
    fc.constantFrom(...conns).map<SessionEvent>((conn) => ({ type: 'tcpClosed', conn })),
    fc
      .tuple(fc.constantFrom(...conns), fc.constantFrom(...messages))
      .map<SessionEvent>(([conn, message]) => ({ type: 'message', conn, message })),
    fc
      .tuple(fc.constantFrom('hold' as const, 'keepalive' as const, 'connectRetry' as const), fc.constantFrom(...conns))
      .map<SessionEvent>(([timer, conn]) => ({ type: 'timerExpired', timer, conn })),
    fc.constant<SessionEvent>({ type: 'sendUpdates', updates: [update()] }),
  );

  it('never throws, always gives a reason, keeps at most one connection per direction and one Established', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.tuple(event, fc.integer({ min: 0, max: 200_000 })), { maxLength: 60 }), (passive, events) => {
        let state: SessionState = createSessionState(fsmConfig({ passive }));
        let now = 0;
        let up = 0;
        for (const [e, dt] of events) {
          now += dt;
          const result = stepSession(state, e, now);
          expect(typeof result.reason).toBe('string');
          state = result.state;
          for (const effect of result.effects) {
            if (effect.type === 'up') up += 1;
            if (effect.type === 'down') up -= 1;
          }
          expect(up === 0 || up === 1).toBe(true);
          expect((up === 1) === (state.phase === 'Established')).toBe(true);
          expect(state.connections.filter((c) => c.origin === 'outbound').length).toBeLessThanOrEqual(1);
          expect(state.connections.filter((c) => c.phase === 'Established').length).toBeLessThanOrEqual(1);
          if (!passive) expect(state.connections.filter((c) => c.origin === 'inbound')).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });
});
