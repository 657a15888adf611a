/**
 * BgpSession on real TCP over loopback against a hand-written peer (test-bgp-peer.ts, the real codec): the
 * handshake and what it negotiates, UPDATEs both ways, route refresh, keepalives and hold expiry, the peer's
 * NOTIFICATION, restart and malformed bytes, OPEN refusals, stop, dial failures with backoff, the passive listener
 * and collisions. One test runs the session's timers on a manual clock (ManualRuntime): the hold time runs out
 * exactly when due.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { parseCIDR, parseIP } from '../../../../src/ip';
import type { BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { BgpListener, BgpSession, type BgpSessionOptions, type SessionDown, type SessionUp } from '../../../../src/announce/bgp/session';
import { ManualRuntime } from '../../../support/manual-runtime';
import { dialSession, PeerServer, ROUTER_ASN, ROUTER_ID, routerOpen } from './test-bgp-peer';
import { type Log } from '../../../../src/runtime/log';

const LOCAL_ASN = 64500;
const LOCAL_ID = '10.0.0.1';
/** Short waits so failure paths run in milliseconds; MetalLB's own values are unit-tested in the FSM. */
const TIMING = { dialTimeoutMs: 2_000, connectRetryInitialMs: 50, connectRetryMaxMs: 200 };

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function captureLogger(lines: LogLine[]): Log {
  const at =
    (level: string) =>
    (fields: unknown, msg?: unknown): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, msg: String(msg) });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Log;
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function router(): Promise<{ server: PeerServer; port: number }> {
  const server = new PeerServer();
  const port = await server.listen('127.0.0.1');
  cleanup.push(() => server.close());
  return { server, port };
}

function session(
  port: number,
  over: Partial<BgpSessionOptions> = {},
  local: Partial<BgpSessionOptions['local']> = {},
): { s: BgpSession; logs: LogLine[] } {
  const logs: LogLine[] = [];
  const s = new BgpSession({
    peer: { address: '127.0.0.1', port, asn: ROUTER_ASN },
    local: { asn: LOCAL_ASN, routerId: LOCAL_ID, holdTimeS: 90, keepaliveS: 0, families: ['ipv4'], ...local },
    logger: captureLogger(logs),
    timing: TIMING,
    ...over,
  });
  cleanup.push(() => s.stop('test over'));
  return { s, logs };
}

function route(prefix: string): BgpUpdate {
  return {
    type: 'update',
    withdrawn: [],
    nlri: [parseCIDR(prefix)!],
    attributes: {
      origin: 'igp',
      asPath: [{ type: 'sequence', asns: [LOCAL_ASN] }],
      nextHop: parseIP('127.0.0.1')!,
      communities: [65000 * 65536 + 100],
    },
  };
}

async function established(port: number, server: PeerServer, open = routerOpen(), over: Partial<BgpSessionOptions> = {}) {
  const { s, logs } = session(port, over);
  const up = once(s, 'established') as Promise<[SessionUp]>;
  s.start();
  const peer = await server.nextConnection();
  const ours = await peer.handshake(open);
  const [info] = await up;
  return { s, logs, peer, ours, info };
}

describe('BgpSession against a hand-written peer on loopback', () => {
  it('comes up with the OPEN we expect and negotiates the smaller hold time', async () => {
    const { server, port } = await router();
    const { s, ours, info, logs } = await established(port, server, routerOpen({ holdTimeSeconds: 30 }));
    expect(ours).toMatchObject({ version: 4, myAs: LOCAL_ASN, holdTimeSeconds: 90, bgpIdentifier: LOCAL_ID });
    expect(ours.capabilities).toEqual(
      expect.arrayContaining([
        { code: 'fourOctetAsn', asn: LOCAL_ASN },
        { code: 'multiprotocol', afi: 1, safi: 1 },
        { code: 'routeRefresh' },
      ]),
    );
    expect(info).toMatchObject({
      peerAsn: ROUTER_ASN,
      peerRouterId: ROUTER_ID,
      holdTimeS: 30,
      keepaliveS: 10,
      families: ['ipv4'],
      fourOctetAsn: true,
      routeRefresh: true,
      internal: false,
      origin: 'outbound',
      localAddress: '127.0.0.1',
      remoteAddress: '127.0.0.1',
    });
    expect(s.phase).toBe('Established');
    expect(s.status()).toMatchObject({ phase: 'Established', established: { holdTimeS: 30 } });
    expect(logs.some((l) => l.fields.event === 'sessionUp')).toBe(true);
  });

  it('sends UPDATEs only while Established, byte-exact through the codec', async () => {
    const { server, port } = await router();
    const { s: early } = session(port);
    expect(early.send([route('192.0.2.1/32')])).toBe(false);
    const { s, peer } = await established(port, server);
    expect(s.send([route('192.0.2.10/32'), route('192.0.2.11/32')])).toBe(true);
    const first = await peer.next('update');
    const second = await peer.next('update');
    expect(first).toMatchObject({ nlri: [parseCIDR('192.0.2.10/32')], attributes: { origin: 'igp', communities: [65000 * 65536 + 100] } });
    expect(second.nlri).toEqual([parseCIDR('192.0.2.11/32')]);
  });

  it("delivers the peer's UPDATEs and ROUTE-REFRESH requests", async () => {
    const { server, port } = await router();
    const { s, peer } = await established(port, server);
    const gotUpdate = once(s, 'update') as Promise<[BgpUpdate]>;
    peer.send({
      type: 'update',
      withdrawn: [],
      nlri: [parseCIDR('198.51.100.0/24')!],
      attributes: { origin: 'igp', asPath: [{ type: 'sequence', asns: [ROUTER_ASN] }], nextHop: parseIP('127.0.0.1')! },
    });
    const [update] = await gotUpdate;
    expect(update.nlri).toEqual([parseCIDR('198.51.100.0/24')]);
    const refresh = once(s, 'routeRefresh');
    peer.send({ type: 'routeRefresh', afi: 1, safi: 1 });
    expect(await refresh).toEqual(['ipv4']);
  });

  it('on a manual clock: a KEEPALIVE each second of a 3 s hold time, and 4/0 at 3 s of silence, not a millisecond before', async () => {
    const runtime = new ManualRuntime();
    const { server, port } = await router();
    // The clock stands still through the handshake: the hold timer starts at `heard`, the peer's KEEPALIVE.
    const heard = runtime.now();
    const { s, peer } = await established(port, server, routerOpen({ holdTimeSeconds: 3 }), { runtime });
    const downs: SessionDown[] = [];
    s.on('down', (down) => downs.push(down));
    await runtime.advanceTo(heard + 2_999);
    expect(s.phase).toBe('Established');
    expect(downs).toEqual([]);
    await peer.next('keepalive'); // sent at 1 s
    await peer.next('keepalive'); // and at 2 s
    await runtime.advanceTo(heard + 3_000);
    const holdExpired = { reason: 'holdTimerExpired', notification: expect.objectContaining({ direction: 'sent', code: 4, subcode: 0 }) };
    expect(downs).toEqual([expect.objectContaining(holdExpired)]);
    const notification = await peer.next('notification');
    expect([notification.code, notification.subcode]).toEqual([4, 0]);
    expect(peer.received.filter((m) => m.type === 'keepalive')).toHaveLength(3); // the handshake's and the two above
    await peer.closed;
  });

  it("goes down on the peer's NOTIFICATION and comes back when the peer is back (a restarting router)", async () => {
    const { server, port } = await router();
    const { s, peer } = await established(port, server);
    const down = once(s, 'down') as Promise<[SessionDown]>;
    const text = 'restarting';
    peer.send({ type: 'notification', code: 6, subcode: 4, data: new Uint8Array([text.length, ...Buffer.from(text)]) });
    const [why] = await down;
    expect(why).toMatchObject({
      reason: 'notificationReceived',
      notification: { direction: 'received', code: 6, subcode: 4, communication: text },
    });
    const again = await server.nextConnection();
    const up = once(s, 'established');
    await again.handshake();
    await up;
    expect(s.phase).toBe('Established');
    // The peer's process dies: its kernel closes the connection; the session redials.
    const down2 = once(s, 'down') as Promise<[SessionDown]>;
    again.destroy();
    expect((await down2)[0].reason).toBe('tcpClosed');
    const third = await server.nextConnection();
    await third.handshake();
  });

  it('answers a malformed header with 1/1 and closes', async () => {
    const { server, port } = await router();
    const { s, peer } = await established(port, server);
    const down = once(s, 'down') as Promise<[SessionDown]>;
    peer.sendRaw(new Uint8Array([...new Array(16).fill(0xfe), 0, 19, 4]));
    const notification = await peer.next('notification');
    expect([notification.code, notification.subcode]).toEqual([1, 1]);
    expect((await down)[0].reason).toBe('decodeError');
    await peer.closed;
  });

  it('refuses an OPEN from the wrong AS with 2/2 and never comes up', async () => {
    const { server, port } = await router();
    const { s } = session(port);
    let up = false;
    s.on('established', () => {
      up = true;
    });
    s.start();
    const peer = await server.nextConnection();
    peer.send(routerOpen({}, 65111));
    const notification = await peer.next('notification');
    expect([notification.code, notification.subcode]).toEqual([2, 2]);
    await peer.closed;
    expect(up).toBe(false);
    expect(s.status().lastProblem).toMatchObject({ reason: 'openRejected', notification: { direction: 'sent', code: 2, subcode: 2 } });
  });

  it('stop sends Cease / Administrative Shutdown with the reason, closes and does not redial', async () => {
    const { server, port } = await router();
    const { s, peer } = await established(port, server);
    const down = once(s, 'down') as Promise<[SessionDown]>;
    await s.stop('node drained');
    const notification = await peer.next('notification');
    expect([notification.code, notification.subcode]).toEqual([6, 2]);
    expect(Buffer.from(notification.data.subarray(1)).toString()).toBe('node drained');
    expect((await down)[0].reason).toBe('stopped');
    await peer.closed;
    await expect(server.nextConnection(500)).rejects.toThrow(/no connection/);
    expect(s.phase).toBe('Idle');
  });

  it('retries a refused dial with growing waits and says why in its status', async () => {
    const { server, port } = await router();
    await server.close();
    const { s } = session(port);
    s.start();
    for (let i = 0; i < 1_000 && s.status().connectRetryCounter < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10)); // until three failed dials
    const status = s.status();
    expect(status.lastProblem).toMatchObject({ reason: 'tcpFailed' });
    expect(status.lastProblem!.message).toMatch(/ECONNREFUSED/);
    // 50 + 100 + 200 + 200 ms of waits fit in 600 ms: at least 3 failed dials, far fewer than without backoff.
    expect(status.connectRetryCounter).toBeGreaterThanOrEqual(3);
    expect(status.connectRetryCounter).toBeLessThan(10);
  });
});

describe('BgpSession, passive', () => {
  async function listener(): Promise<{ l: BgpListener; port: number }> {
    const l = new BgpListener({ address: '127.0.0.1', port: 0, logger: captureLogger([]) });
    const { port } = await l.listen();
    cleanup.push(() => l.close());
    return { l, port };
  }

  it("accepts the peer's connection from the listener and comes up on it", async () => {
    const { l, port } = await listener();
    const { s } = session(1, { passive: true, dialOut: false, listener: l, peer: { address: '127.0.0.2', asn: ROUTER_ASN } });
    const up = once(s, 'established') as Promise<[SessionUp]>;
    s.start();
    expect(s.phase).toBe('Active');
    const peer = await dialSession('127.0.0.1', port, { localAddress: '127.0.0.2' });
    await peer.handshake();
    const [info] = await up;
    expect(info).toMatchObject({ origin: 'inbound', remoteAddress: '127.0.0.2', localAddress: '127.0.0.1' });
  });

  it('lets only one session accept connections from one peer address', async () => {
    const { l } = await listener();
    const { s } = session(1, { passive: true, listener: l, peer: { address: '127.0.0.2', asn: ROUTER_ASN } });
    const { s: twin } = session(1, { passive: true, listener: l, peer: { address: '127.0.0.2', asn: ROUTER_ASN } });
    s.start();
    expect(() => twin.start()).toThrow(expect.objectContaining({ code: 'listenerConflict' }));
  });

  it('closes connections from addresses no session accepts', async () => {
    const { l, port } = await listener();
    const { s } = session(1, { passive: true, dialOut: false, listener: l, peer: { address: '127.0.0.2', asn: ROUTER_ASN } });
    s.start();
    const stranger = await dialSession('127.0.0.1', port, { localAddress: '127.0.0.3' });
    await stranger.closed;
    expect(stranger.received).toEqual([]);
  });

  it('resolves a collision: the peer with the higher identifier keeps its connection, ours gets 6/7', async () => {
    const { l, port: listenPort } = await listener();
    const { server, port } = await router();
    const { s } = session(port, { passive: true, listener: l });
    s.start();
    const outbound = await server.nextConnection(); // the session dialed the router
    const inbound = await dialSession('127.0.0.1', listenPort); // and the router dialed the session
    await outbound.next('open');
    await inbound.next('open');
    const up = once(s, 'established') as Promise<[SessionUp]>;
    outbound.send(routerOpen()); // 10.255.0.1 > 10.0.0.1: the router's own connection must win
    await outbound.next('keepalive');
    inbound.send(routerOpen());
    const cease = await outbound.next('notification');
    expect([cease.code, cease.subcode]).toEqual([6, 7]);
    await outbound.closed;
    await inbound.next('keepalive');
    inbound.send({ type: 'keepalive' });
    expect((await up)[0].origin).toBe('inbound');
  });

  it('two sessions peer with each other across two listeners and settle on one connection', async () => {
    const a = await listener();
    const lb = new BgpListener({ address: '127.0.0.2', port: 0, logger: captureLogger([]) });
    const { port: portB } = await lb.listen();
    cleanup.push(() => lb.close());
    const { s: sa } = session(
      portB,
      { passive: true, listener: a.l, peer: { address: '127.0.0.2', port: portB, asn: 64600 } },
      { sourceAddress: '127.0.0.1', asn: 64500, routerId: '10.0.0.1' },
    );
    const { s: sb } = session(
      a.port,
      { passive: true, listener: lb, peer: { address: '127.0.0.1', port: a.port, asn: 64500 } },
      { sourceAddress: '127.0.0.2', asn: 64600, routerId: '10.0.0.2' },
    );
    const upA = once(sa, 'established') as Promise<[SessionUp]>;
    const upB = once(sb, 'established') as Promise<[SessionUp]>;
    sa.start();
    sb.start();
    const [[infoA], [infoB]] = await Promise.all([upA, upB]);
    expect(new Set([infoA.origin, infoB.origin])).toEqual(new Set(['inbound', 'outbound']));
    expect(infoA).toMatchObject({ peerAsn: 64600, localAddress: '127.0.0.1' });
    expect(infoB).toMatchObject({ peerAsn: 64500, localAddress: '127.0.0.2' });
  });
});
