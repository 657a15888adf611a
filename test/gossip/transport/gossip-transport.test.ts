import { afterEach, describe, expect, it } from 'vitest';
import { GossipTransport } from '../../../src/gossip/transport/gossip-transport';
import { addressBytes, formatHostPort, hostFromBytes, parseHostPort, type HostPort } from '../../../src/gossip/transport/address';
import { NetworkError, REAL_RUNTIME, type ByteStream } from '../../../src/runtime';

const open: GossipTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

interface Inbox {
  packets: { bytes: Uint8Array; from: HostPort }[];
  streams: { stream: ByteStream; received: number[] }[];
}

async function listen(host: string): Promise<{ transport: GossipTransport; inbox: Inbox }> {
  const inbox: Inbox = { packets: [], streams: [] };
  const transport = await GossipTransport.listen(
    REAL_RUNTIME.net,
    { host, port: 0 },
    {
      onPacket: (bytes, from) => inbox.packets.push({ bytes: Uint8Array.from(bytes), from }),
      onStream: (stream) => {
        const entry = { stream, received: [] as number[] };
        stream.onData((chunk) => entry.received.push(...chunk));
        inbox.streams.push(entry);
      },
    },
  );
  open.push(transport);
  return { transport, inbox };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe.each(['127.0.0.1', '::1'])('GossipTransport on real sockets, %s', (host) => {
  it('carries packets and streams on one port', async () => {
    const a = await listen(host);
    const b = await listen(host);
    expect(a.transport.local.port).toBeGreaterThan(0);
    a.transport.sendPacket(b.transport.local, Uint8Array.of(0, 1, 2, 3));
    await until(() => b.inbox.packets.length === 1);
    expect([...b.inbox.packets[0]!.bytes]).toEqual([0, 1, 2, 3]);
    expect(b.inbox.packets[0]!.from).toEqual(a.transport.local);

    const stream = await a.transport.dialStream(b.transport.local, 1000);
    stream.write(Uint8Array.of(6, 7));
    await until(() => b.inbox.streams[0]?.received.length === 2);
    expect(b.inbox.streams[0]!.received).toEqual([6, 7]);
    expect(b.inbox.streams[0]!.stream.remote).toEqual({ host, port: stream.local.port });
    stream.destroy();
    b.inbox.streams[0]!.stream.destroy();
  });
});

describe('dialling a closed port', () => {
  it('fails with a typed error naming the peer', async () => {
    const a = await listen('127.0.0.1');
    const b = await listen('127.0.0.1');
    const dead = b.transport.local;
    await b.transport.close();
    open.splice(open.indexOf(b.transport), 1);
    await expect(a.transport.dialStream(dead, 1000)).rejects.toBeInstanceOf(NetworkError);
    await expect(a.transport.dialStream(dead, 1000)).rejects.toMatchObject({
      code: 'dialFailed',
      message: expect.stringContaining(`127.0.0.1:${dead.port}`),
    });
  });
});

describe('binding a port whose UDP side is taken', () => {
  it('fails with bindFailed and leaves the TCP side free again', async () => {
    const a = await listen('127.0.0.1');
    const udpOnly = await REAL_RUNTIME.net.bindUdp({ host: '127.0.0.1', port: 0 }, { onMessage: () => {} });
    try {
      const taken = { host: '127.0.0.1', port: udpOnly.local.port };
      const failing = GossipTransport.listen(REAL_RUNTIME.net, taken, { onPacket: () => {}, onStream: () => {} });
      await expect(failing).rejects.toMatchObject({ code: 'bindFailed' });
      // The TCP listener opened first was closed again: a dial to that port is refused, not accepted.
      await expect(a.transport.dialStream(taken, 1000)).rejects.toMatchObject({ code: 'dialFailed' });
    } finally {
      await udpOnly.close();
    }
  });
});

describe('peer addresses', () => {
  it('reads memberlist join forms', () => {
    expect(parseHostPort('10.0.0.1:7946')).toEqual({ host: '10.0.0.1', port: 7946 });
    expect(parseHostPort('node-b/10.0.0.2:8000')).toEqual({ host: '10.0.0.2', port: 8000 });
    expect(parseHostPort('[FD00::1]:7000')).toEqual({ host: 'fd00::1', port: 7000 });
    expect(parseHostPort('fd00::2')).toEqual({ host: 'fd00::2', port: 7946 });
    expect(parseHostPort('10.0.0.3')).toEqual({ host: '10.0.0.3', port: 7946 });
    expect(() => parseHostPort('example.com:7946')).toThrow(/IP address/);
    expect(() => parseHostPort('10.0.0.1:70000')).toThrow(/1-65535/);
  });

  it('sends 4-byte Addr for IPv4 and 16 for IPv6, and reads both back', () => {
    expect(addressBytes('10.0.0.1')).toEqual(Uint8Array.of(10, 0, 0, 1));
    expect(addressBytes('fd00::1').length).toBe(16);
    expect(hostFromBytes(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1))).toBe('10.0.0.1');
    expect(hostFromBytes(Uint8Array.of(1, 2, 3))).toBeUndefined();
  });

  it('writes IPv6 hosts in brackets', () => {
    expect(formatHostPort({ host: 'fd00::1', port: 7946 })).toBe('[fd00::1]:7946');
    expect(formatHostPort({ host: '10.0.0.1', port: 7946 })).toBe('10.0.0.1:7946');
  });
});
