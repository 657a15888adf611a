import { describe, expect, test } from 'vitest';
import {
  NetworkError,
  SEGMENT_RETRANSMIT_MS,
  VirtualNetwork,
  type ByteStream,
  type SocketAddress,
  type UdpEndpoint,
  type VirtualRuntime,
} from '../../src/runtime';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

interface Received {
  readonly text: string;
  readonly from: SocketAddress;
  readonly at: number;
}

async function udpSocket(rt: VirtualRuntime, port = 7946): Promise<{ socket: UdpEndpoint; inbox: Received[] }> {
  const inbox: Received[] = [];
  const socket = await rt.net.bindUdp(
    { host: rt.address, port },
    { onMessage: (b, from) => inbox.push({ text: text(b), from, at: rt.now() }) },
  );
  return { socket, inbox };
}

/** Collects what a stream delivers, and how it ended. */
function record(stream: ByteStream): { data: string[]; ended: boolean; closed: (Error | undefined)[] } {
  const seen = { data: [] as string[], ended: false, closed: [] as (Error | undefined)[] };
  stream.onData((chunk) => seen.data.push(text(chunk)));
  stream.onEnd(() => (seen.ended = true));
  stream.onClose((error) => seen.closed.push(error));
  return seen;
}

describe('virtual network: UDP', () => {
  test("a datagram arrives as a copy, from the sender's address, after the link latency", async () => {
    const net = new VirtualNetwork({ seed: 1, link: { latency: 5, jitter: 0 } });
    const a = await udpSocket(net.host('10.0.0.1'));
    const b = await udpSocket(net.host('10.0.0.2'));
    const start = net.now();
    const payload = bytes('ping');
    a.socket.send(b.socket.local, payload);
    payload.set(bytes('XXXX'));
    await net.advance(4.9);
    expect(b.inbox).toEqual([]);
    await net.advance(0.1);
    expect(b.inbox).toEqual([{ text: 'ping', from: { host: '10.0.0.1', port: 7946 }, at: start + 5 }]);
  });

  test('a datagram delayed by a fractional latency is read at a whole-millisecond now(), as Date.now() shows it', async () => {
    const net = new VirtualNetwork({ seed: 3, link: { latency: 0.3, jitter: 0.4 } });
    const a = await udpSocket(net.host('10.0.0.1'));
    const b = await udpSocket(net.host('10.0.0.2'));
    for (let i = 0; i < 20; i++) a.socket.send(b.socket.local, bytes(`m${i}`));
    await net.advance(1);
    expect(b.inbox).toHaveLength(20);
    expect(b.inbox.every((m) => Number.isInteger(m.at))).toBe(true);
  });

  test('port 0 picks a free port; binding a taken port fails with bindFailed', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const rt = net.host('10.0.0.1');
    const first = await rt.net.bindUdp({ host: '10.0.0.1', port: 0 }, { onMessage: () => {} });
    const second = await rt.net.bindUdp({ host: '10.0.0.1', port: 0 }, { onMessage: () => {} });
    expect(first.local.port).toBeGreaterThan(0);
    expect(second.local.port).not.toBe(first.local.port);
    await rt.net.bindUdp({ host: '10.0.0.1', port: 7946 }, { onMessage: () => {} });
    const again = rt.net.bindUdp({ host: '0.0.0.0', port: 7946 }, { onMessage: () => {} });
    await expect(again).rejects.toBeInstanceOf(NetworkError);
    await expect(again).rejects.toMatchObject({ code: 'bindFailed' });
    await expect(rt.net.bindUdp({ host: '10.9.9.9', port: 1 }, { onMessage: () => {} })).rejects.toMatchObject({ code: 'bindFailed' });
  });

  test('loss drops about that share of datagrams, the same ones on the same seed', async () => {
    const run = async (seed: number): Promise<string[]> => {
      const net = new VirtualNetwork({ seed, link: { loss: 0.3 } });
      const a = await udpSocket(net.host('10.0.0.1'));
      const b = await udpSocket(net.host('10.0.0.2'));
      for (let i = 0; i < 200; i++) a.socket.send(b.socket.local, bytes(String(i)));
      await net.advance(10);
      return b.inbox.map((r) => r.text);
    };
    const first = await run(42);
    expect(first.length).toBeGreaterThan(100);
    expect(first.length).toBeLessThan(180);
    expect(await run(42)).toEqual(first);
    expect(await run(43)).not.toEqual(first);
  });

  test('a partition drops datagrams between its sides, not within them; heal restores them', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const a = await udpSocket(net.host('10.0.0.1'));
    const b = await udpSocket(net.host('10.0.0.2'));
    const c = await udpSocket(net.host('10.0.0.3'));
    net.partition(['10.0.0.1', '10.0.0.2'], ['10.0.0.3']);
    a.socket.send(b.socket.local, bytes('same side'));
    a.socket.send(c.socket.local, bytes('across'));
    await net.advance(10);
    expect(b.inbox.map((r) => r.text)).toEqual(['same side']);
    expect(c.inbox).toEqual([]);
    net.heal();
    a.socket.send(c.socket.local, bytes('healed'));
    await net.advance(10);
    expect(c.inbox.map((r) => r.text)).toEqual(['healed']);
  });

  test('a starved host answers late: its CPU time comes before its reply leaves', async () => {
    const net = new VirtualNetwork({ seed: 1, link: { latency: 1, jitter: 0 } });
    const a = await udpSocket(net.host('10.0.0.1'));
    const echo = net.host('10.0.0.2');
    const socket = await echo.net.bindUdp({ host: '10.0.0.2', port: 7946 }, { onMessage: (b, from) => socket.send(from, b) });
    const start = net.now();
    a.socket.send(socket.local, bytes('fast'));
    await net.advance(100);
    net.starve('10.0.0.2', 40);
    a.socket.send(socket.local, bytes('slow'));
    await net.advance(100);
    expect(a.inbox.map((r) => [r.text, r.at - start])).toEqual([
      ['fast', 2],
      ['slow', 100 + 1 + 40 + 1],
    ]);
  });

  test('datagrams to a crashed host vanish; a restarted host on the same address receives again', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const a = await udpSocket(net.host('10.0.0.1'));
    const b = await udpSocket(net.host('10.0.0.2'));
    net.crash('10.0.0.2');
    a.socket.send({ host: '10.0.0.2', port: 7946 }, bytes('to the dead'));
    await net.advance(10);
    expect(b.inbox).toEqual([]);
    const reborn = await udpSocket(net.host('10.0.0.2'));
    a.socket.send({ host: '10.0.0.2', port: 7946 }, bytes('to the new process'));
    await net.advance(10);
    expect(reborn.inbox.map((r) => r.text)).toEqual(['to the new process']);
  });
});

describe('virtual network: TCP', () => {
  async function serve(rt: VirtualRuntime, port = 7946): Promise<{ accepted: ByteStream[] }> {
    const accepted: ByteStream[] = [];
    await rt.net.listenTcp({ host: rt.address, port }, (stream) => accepted.push(stream));
    return { accepted };
  }

  test('request and reply: chunks arrive in order, FIN ends both sides, each closes once', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const server = net.host('10.0.0.2');
    await server.net.listenTcp({ host: '10.0.0.2', port: 7946 }, (stream) => {
      const request: string[] = [];
      stream.onData((chunk) => request.push(text(chunk)));
      stream.onEnd(() => stream.end(bytes(`reply to ${request.join('')}`)));
    });
    const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 7946 }, 1_000);
    expect(client.remote).toEqual({ host: '10.0.0.2', port: 7946 });
    expect(client.local.host).toBe('10.0.0.1');
    const seen = record(client);
    client.write(bytes('one,'));
    client.write(bytes('two,'));
    client.end(bytes('three'));
    expect(await net.runUntil(() => seen.closed.length > 0, { timeoutMs: 1_000 })).toBe(true);
    await net.advance(100);
    expect(seen).toEqual({ data: ['reply to one,two,three'], ended: true, closed: [undefined] });
  });

  test('in-order delivery survives loss: lost segments are retransmitted and nothing overtakes them', async () => {
    const net = new VirtualNetwork({ seed: 3, link: { loss: 0.2 } });
    const server = await serve(net.host('10.0.0.2'));
    const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 7946 }, 10_000);
    const words = Array.from({ length: 50 }, (_, i) => `${i};`);
    for (const w of words) client.write(bytes(w));
    await net.runUntil(() => server.accepted.length === 1, { timeoutMs: 10_000 });
    const seen = record(server.accepted[0]!);
    expect(await net.runUntil(() => seen.data.join('') === words.join(''), { timeoutMs: 60_000 })).toBe(true);
  });

  test('a dial to a port nobody listens on fails with dialFailed after one round trip', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    net.host('10.0.0.2');
    const start = net.now();
    const dial = net.host('10.0.0.1').net.connectTcp({ host: '10.0.0.2', port: 7946 }, { timeoutMs: 5_000 });
    const outcome = settled(dial);
    expect(await net.runUntil(() => outcome.error !== undefined, { timeoutMs: 5_000 })).toBe(true);
    expect(outcome.error).toMatchObject({ code: 'dialFailed' });
    expect(net.now() - start).toBeLessThan(10);
  });

  test('across a partition a dial times out at its deadline, established streams stall, and heal resumes them', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const server = await serve(net.host('10.0.0.2'));
    const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 7946 }, 1_000);
    await net.runUntil(() => server.accepted.length === 1, { timeoutMs: 1_000 });
    const seen = record(server.accepted[0]!);

    net.partition(['10.0.0.1'], ['10.0.0.2']);
    const start = net.now();
    const blocked = settled(net.host('10.0.0.1').net.connectTcp({ host: '10.0.0.2', port: 7946 }, { timeoutMs: 3_000 }));
    client.write(bytes('during the partition'));
    await net.advance(2_999);
    expect(blocked.error).toBeUndefined();
    expect(seen.data).toEqual([]);
    await net.advance(1);
    expect(blocked.error).toMatchObject({ code: 'dialTimeout' });
    expect(net.now() - start).toBe(3_000);

    net.heal();
    // The segment is resent on its doubling retransmission timer: it gets through at the next try.
    expect(await net.runUntil(() => seen.data.length > 0, { timeoutMs: 64 * SEGMENT_RETRANSMIT_MS })).toBe(true);
    expect(seen.data).toEqual(['during the partition']);
  });

  test('destroy closes at once and the peer sees the FIN', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const server = await serve(net.host('10.0.0.2'));
    const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 7946 }, 1_000);
    const clientSeen = record(client);
    await net.runUntil(() => server.accepted.length === 1, { timeoutMs: 1_000 });
    const serverSeen = record(server.accepted[0]!);
    client.destroy();
    await net.advance(10);
    expect(clientSeen.closed).toEqual([undefined]);
    expect(serverSeen).toMatchObject({ ended: true, closed: [undefined] });
  });

  test('a listener closed while the handshake completes resets the client', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const listener = await net.host('10.0.0.2').net.listenTcp({ host: '10.0.0.2', port: 7946 }, () => {
      throw new Error('never accepted');
    });
    const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 7946 }, 1_000);
    const seen = record(client);
    await listener.close();
    await net.advance(10);
    expect(seen.closed).toHaveLength(1);
    expect(seen.closed[0]).toMatchObject({ code: 'ECONNRESET' });
  });

  test('a crashed server: its peers see the FIN, new dials are refused', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const server = await serve(net.host('10.0.0.2'));
    const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 7946 }, 1_000);
    const seen = record(client);
    await net.runUntil(() => server.accepted.length === 1, { timeoutMs: 1_000 });
    net.crash('10.0.0.2');
    await net.advance(10);
    expect(seen).toMatchObject({ ended: true, closed: [undefined] });
    const again = settled(net.host('10.0.0.1').net.connectTcp({ host: '10.0.0.2', port: 7946 }, { timeoutMs: 1_000 }));
    await net.advance(10);
    expect(again.error).toMatchObject({ code: 'dialFailed' });
  });

  test('the same seed gives the same byte-level run', async () => {
    const run = async (): Promise<number[]> => {
      const net = new VirtualNetwork({ seed: 9, link: { latency: 1, jitter: 2, loss: 0.1 } });
      const times: number[] = [];
      const server = net.host('10.0.0.2');
      await server.net.listenTcp({ host: '10.0.0.2', port: 1 }, (s) => s.onData(() => times.push(net.now())));
      const client = await dial(net, '10.0.0.1', { host: '10.0.0.2', port: 1 }, 30_000);
      for (let i = 0; i < 20; i++) client.write(bytes('x'));
      await net.advance(30_000);
      return times;
    };
    const first = await run();
    expect(first).toHaveLength(20);
    expect(await run()).toEqual(first);
  });
});

/** Dials and runs the clock until the connection is up. */
async function dial(net: VirtualNetwork, from: string, to: SocketAddress, timeoutMs: number): Promise<ByteStream> {
  const outcome = settled(net.host(from).net.connectTcp(to, { timeoutMs }));
  await net.runUntil(() => outcome.value !== undefined || outcome.error !== undefined, { timeoutMs });
  if (!outcome.value) throw outcome.error ?? new Error('dial did not finish');
  return outcome.value;
}

function settled<T>(promise: Promise<T>): { value?: T; error?: unknown } {
  const outcome: { value?: T; error?: unknown } = {};
  promise.then(
    (v) => (outcome.value = v),
    (e: unknown) => (outcome.error = e),
  );
  return outcome;
}
