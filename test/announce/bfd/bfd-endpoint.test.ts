/**
 * BfdEndpoint and BfdSession on real UDP sockets over loopback (no root needed): two endpoints on two 127/8
 * addresses, both on port 3784, reach Up; a closed endpoint (a crash: no AdminDown) is detected; a stopped one
 * is reported as administrative; what goes on the wire has TTL 255 and a source port in 49152-65535; a packet
 * with another TTL is dropped when the TTL addon is there, and the gap is reported when it is not. On a manual
 * clock (ManualRuntime), the Detection Time expires exactly when due.
 */
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { BfdEndpoint } from '../../../src/announce/bfd/bfd-endpoint';
import type { BfdDownEvent, BfdSession } from '../../../src/announce/bfd/bfd-peer';
import { decodeBfdControl, encodeBfdControl, type BfdControlPacket } from '../../../src/announce/bfd/bfd-packet';
import { BFD_SOURCE_PORT_MAX, BFD_SOURCE_PORT_MIN } from '../../../src/announce/bfd/bfd-socket';
import { openUdpTtlSocket, udpTtlAddonStatus, type UdpTtlDatagram } from '../../../src/native/udp-ttl';
import { ManualRuntime } from '../../support/manual-runtime';
import { until } from '../../support/until';

/** A /24 of loopback addresses of our own per run (127.0.0.0/8 is all local on Linux). */
const NET = `127.213.${(process.pid % 200) + 20}`;

/** A Control packet from the hand-driven peer (discriminator 42, 100 ms receive interval); `fields` vary per step. */
function peerPacket(fields: Pick<BfdControlPacket, 'state' | 'yourDiscriminator' | 'desiredMinTxUs'>): Uint8Array {
  return encodeBfdControl({
    diag: 0,
    poll: false,
    final: false,
    controlPlaneIndependent: false,
    demand: false,
    multipoint: false,
    detectMult: 3,
    myDiscriminator: 42,
    requiredMinRxUs: 100_000,
    requiredMinEchoRxUs: 0,
    ...fields,
  });
}
const addon = udpTtlAddonStatus();
if (process.env.CI && !addon.loaded) throw new Error(`CI is set and the UDP TTL addon is missing: ${addon.why}`);

const FAST = { receiveInterval: 100, transmitInterval: 100, detectMultiplier: 3 };

const endpoints: BfdEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  endpoints.length = 0;
});

async function open(host: number, options: { withoutTtlAddon?: boolean; peerPort?: number } = {}): Promise<BfdEndpoint> {
  const endpoint = await BfdEndpoint.open({ localAddress: `${NET}.${host}`, ...options });
  endpoints.push(endpoint);
  return endpoint;
}

function once<T>(session: BfdSession, event: 'up' | 'down', timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no '${event}' from the session with ${session.peerText} within ${timeoutMs} ms (state ${session.state})`)),
      timeoutMs,
    );
    session.once(event, ((value: T) => {
      clearTimeout(timer);
      resolve(value);
    }) as never);
  });
}

async function pair(profile = FAST, options: { withoutTtlAddon?: boolean } = {}) {
  const a = await open(1, options);
  const b = await open(2, options);
  const sa = a.session({ peer: `${NET}.2`, profile });
  const sb = b.session({ peer: `${NET}.1`, profile });
  const ups = Promise.all([once(sa, 'up', 10_000), once(sb, 'up', 10_000)]);
  const t0 = performance.now();
  await Promise.all([sa.start(), sb.start()]);
  await ups;
  return { a, b, sa, sb, upAfterMs: performance.now() - t0 };
}

describe('two endpoints over loopback', () => {
  it('reach Up, with the TTL check on when the addon is built', async () => {
    const { a, sa, sb, upAfterMs } = await pair();
    console.log(`BFD loopback: Up after ${upAfterMs.toFixed(0)} ms; TTL check ${a.ttlCheck}`);
    expect(sa.state).toBe('Up');
    expect(sb.state).toBe('Up');
    expect(a.ttlCheck).toBe(addon.loaded ? 'enforced' : 'unavailable');
    expect(sa.counters.packetsSent).toBeGreaterThan(0);
    expect(sa.counters.upTransitions).toBe(1);
    expect(Object.values(a.counters.dropped).every((n) => n === 0)).toBe(true);
    // Right after Up the peer may still advertise its slow 1 s; its Poll Sequence brings 3 x 100 ms soon after.
    await until(
      'the fast timers negotiated (3 x 100 ms, Poll Sequence over)',
      () => sa.detectionTimeMs === 300 && !sa.snapshot.polling,
      3_000,
    ).catch(() => {});
    expect(sa.detectionTimeMs).toBe(300);
    expect(sa.snapshot.polling).toBe(false);
  });

  it('a closed endpoint (no AdminDown, as in a crash) is detected by its Detection Time expiring, diag 1', async () => {
    const { a, sb } = await pair();
    const down = once<BfdDownEvent>(sb, 'down', 5_000);
    const t0 = performance.now();
    await a.close();
    const event = await down;
    const tookMs = performance.now() - t0;
    console.log(`BFD loopback: peer closed -> Down after ${tookMs.toFixed(0)} ms (Detection Time 3 x 100 ms = 300 ms)`);
    expect(event).toMatchObject({ diag: 1, diagName: 'controlDetectionTimeExpired', failure: true });
    expect(sb.state).toBe('Down');
    // How long it took is printed, not asserted: timers on a shared machine are late by whatever else runs there.
  });

  it('stop() sends AdminDown: the peer goes Down with diag 3, not a failure (RFC 5882 section 3.2)', async () => {
    const { a, sa, sb } = await pair();
    const down = once<BfdDownEvent>(sb, 'down', 5_000);
    const stopped = sa.stop();
    expect(await down).toMatchObject({ diag: 3, remoteAdminDown: true, failure: false });
    await stopped;
    expect(sa.state).toBe('AdminDown');
    expect(a.sessions).toEqual([]); // forgotten once the AdminDown packets are over
  });

  it('the dgram fallback works and says the TTL check is off', async () => {
    const { a, sa } = await pair(FAST, { withoutTtlAddon: true });
    expect(a.ttlCheck).toBe('unavailable');
    expect(a.ttlCheckGap).toMatch(/TTL/);
    expect(sa.state).toBe('Up');
  });

  it('refuses a second session with one peer, and a peer of the other family', async () => {
    const a = await open(1);
    a.session({ peer: `${NET}.2` });
    expect(() => a.session({ peer: `${NET}.2` })).toThrow(/already exists/);
    expect(() => a.session({ peer: 'fd00::1' })).toThrow(/family/);
  });
});

describe.skipIf(!addon.loaded)('on the wire (RFC 5881 sections 4 and 5)', () => {
  it('sends to port 3784 from one source port in 49152-65535, with TTL 255', async () => {
    const received: UdpTtlDatagram[] = [];
    const listener = openUdpTtlSocket({ address: `${NET}.9`, port: 0, onMessage: (d) => received.push(d), onError: () => {} });
    try {
      const a = await open(1, { peerPort: listener.port });
      const session = a.session({ peer: `${NET}.9`, profile: FAST });
      await session.start();
      await until('the first packet and a slow (1 s) one', () => received.length >= 2);
      const ports = new Set(received.map((d) => d.port));
      expect(ports.size).toBe(1);
      const [port] = [...ports];
      expect(port).toBeGreaterThanOrEqual(BFD_SOURCE_PORT_MIN);
      expect(port).toBeLessThanOrEqual(BFD_SOURCE_PORT_MAX);
      expect(received.every((d) => d.ttl === 255 && d.address === `${NET}.1`)).toBe(true);
      const first = decodeBfdControl(received[0]!.payload);
      expect(first.ok && first.value).toMatchObject({
        state: 'Down',
        yourDiscriminator: 0,
        desiredMinTxUs: 1_000_000,
        requiredMinRxUs: 100_000,
        detectMult: 3,
      });
    } finally {
      listener.close();
    }
  });

  it('drops a packet whose TTL is not 255 (GTSM), and accepts the same packet at 255', async () => {
    const a = await open(1);
    const session = a.session({ peer: `${NET}.3`, profile: FAST });
    await session.start();
    const sender = createSocket('udp4');
    await new Promise<void>((r) => sender.bind({ address: `${NET}.3`, port: 0 }, () => r()));
    try {
      const packet = peerPacket({ state: 'Down', yourDiscriminator: 0, desiredMinTxUs: 1_000_000 });
      const send = (ttl: number) =>
        new Promise<void>((resolve, reject) => {
          sender.setTTL(ttl);
          sender.send(packet, 3784, `${NET}.1`, (e) => (e ? reject(e) : resolve()));
        });
      await send(254);
      await until('the TTL 254 packet counted as dropped', () => a.counters.dropped.badTtl === 1);
      expect(session.state).toBe('Down');
      await send(255);
      await until('the TTL 255 packet moving the session to Init', () => session.state === 'Init');
      expect(session.remoteDiscriminator).toBe(42);
    } finally {
      sender.close();
    }
  });
});

describe('on a manual clock', () => {
  it('declares a silent peer dead exactly one Detection Time after its last packet, not a millisecond before', async () => {
    const runtime = new ManualRuntime();
    const peer = createSocket('udp4');
    const fromUs: Buffer[] = [];
    const arrived = new Set<() => void>();
    peer.on('message', (bytes) => {
      fromUs.push(bytes);
      for (const wake of arrived) wake();
    });
    await new Promise<void>((r) => peer.bind({ address: `${NET}.4`, port: 0 }, () => r()));
    peer.setTTL(255);
    try {
      const a = await BfdEndpoint.open({ localAddress: `${NET}.1`, peerPort: peer.address().port, runtime });
      endpoints.push(a);
      const session = a.session({ peer: `${NET}.4`, profile: FAST });
      const up = once(session, 'up', 5_000);
      await session.start();
      // The first packet goes out at start, without the clock moving.
      if (fromUs.length === 0) await new Promise<void>((r) => arrived.add(r));
      const first = decodeBfdControl(fromUs[0]!);
      if (!first.ok) throw new Error('our first packet does not decode');
      const packet = peerPacket({ state: 'Init', yourDiscriminator: first.value.myDiscriminator, desiredMinTxUs: 100_000 });
      await new Promise<void>((resolve, reject) => peer.send(packet, a.port, `${NET}.1`, (e) => (e ? reject(e) : resolve())));
      await up;
      const heardAt = runtime.now();
      expect(session.detectionTimeMs).toBe(300); // 3 x the peer's 100 ms
      const downs: BfdDownEvent[] = [];
      session.on('down', (e) => downs.push(e));

      await runtime.advanceTo(heardAt + 299);
      expect(session.state).toBe('Up');
      expect(downs).toEqual([]);
      await runtime.advanceTo(heardAt + 300);
      expect(session.state).toBe('Down');
      expect(downs).toEqual([expect.objectContaining({ diag: 1, diagName: 'controlDetectionTimeExpired', failure: true })]);
    } finally {
      peer.close();
    }
  });
});
