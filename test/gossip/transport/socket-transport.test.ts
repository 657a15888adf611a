import { afterEach, describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import { SocketTransport, TransportError } from '../../../src/gossip/transport/socket-transport';
import { addressBytes, hostFromBytes, parseHostPort, type HostPort } from '../../../src/gossip/transport/address';

const open: SocketTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

interface Inbox {
  packets: { bytes: Uint8Array; from: HostPort }[];
  streams: { socket: Socket; from: HostPort }[];
}

async function listen(host: string): Promise<{ transport: SocketTransport; inbox: Inbox }> {
  const inbox: Inbox = { packets: [], streams: [] };
  const transport = await SocketTransport.listen({ host, port: 0 }, {
    onPacket: (bytes, from) => inbox.packets.push({ bytes: Uint8Array.from(bytes), from }),
    onStream: (socket, from) => inbox.streams.push({ socket, from }),
  });
  open.push(transport);
  return { transport, inbox };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe.each(['127.0.0.1', '::1'])('SocketTransport on %s', (host) => {
  it('carries packets and streams on one port', async () => {
    const a = await listen(host);
    const b = await listen(host);
    expect(a.transport.local.port).toBeGreaterThan(0);
    a.transport.sendPacket(b.transport.local, Uint8Array.of(0, 1, 2, 3));
    await until(() => b.inbox.packets.length === 1);
    expect([...b.inbox.packets[0]!.bytes]).toEqual([0, 1, 2, 3]);
    expect(b.inbox.packets[0]!.from).toEqual(a.transport.local);

    const socket = await a.transport.dialStream(b.transport.local, 1000);
    socket.write(Uint8Array.of(6, 7));
    await until(() => b.inbox.streams.length === 1);
    const received = await new Promise<number[]>((resolve) => b.inbox.streams[0]!.socket.once('data', (d) => resolve([...d])));
    expect(received).toEqual([6, 7]);
    socket.destroy();
    b.inbox.streams[0]!.socket.destroy();
  });
});

describe('dialling a closed port', () => {
  it('fails with a typed error naming the peer', async () => {
    const a = await listen('127.0.0.1');
    const b = await listen('127.0.0.1');
    const dead = b.transport.local;
    await b.transport.close();
    open.splice(open.indexOf(b.transport), 1);
    await expect(a.transport.dialStream(dead, 1000)).rejects.toBeInstanceOf(TransportError);
    await expect(a.transport.dialStream(dead, 1000)).rejects.toThrow(`127.0.0.1:${dead.port}`);
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
});
