/**
 * src/native/tcp-md5.ts (keyed descriptors) and src/runtime/real-signed-tcp.ts (Node sockets on them) on loopback (no namespaces needed): a keyed listener accepts a connection signed with its
 * key and never sees one signed with another; the wrapper refuses keys and addresses the kernel cannot use.
 * The two-namespace version, through BgpSession, is md5.lab.test.ts.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMd5Socket } from '../../../../src/runtime/real-signed-tcp';
import { openListenSocket, setMd5Key, tcpMd5Available, TcpMd5Error, TCP_MD5_MAX_KEY_BYTES } from '../../../../src/native/tcp-md5';
import { until } from '../../../support/until';

const skip = tcpMd5Available() ? undefined : 'the native addon is not built';
if (skip) console.warn(`skipping the TCP MD5 socket tests: ${skip}`);
/** A SYN the kernel drops for its signature is retried for minutes; 1 s shows it is not answered. */
const NO_ANSWER_MS = 1_000;

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function keyedListener(password: string): Promise<{ port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  const server = createServer((s) => {
    accepted.push(s);
    sockets.push(s);
  });
  servers.push(server);
  const fd = openListenSocket('127.0.0.1', 0);
  setMd5Key(fd, '127.0.0.1', password);
  await new Promise<void>((resolve) => server.listen({ fd }, resolve));
  return { port: (server.address() as { port: number }).port, accepted };
}

async function dial(port: number, password: string): Promise<{ result: 'connected' | 'no answer'; socket: Socket }> {
  const socket = createMd5Socket({ peerAddress: '127.0.0.1', password, localAddress: '127.0.0.1' });
  sockets.push(socket);
  const result = await new Promise<'connected' | 'no answer'>((resolve) => {
    const timer = setTimeout(() => resolve('no answer'), NO_ANSWER_MS);
    socket.connect({ host: '127.0.0.1', port }, () => {
      clearTimeout(timer);
      resolve('connected');
    });
  });
  return { result, socket };
}

describe.skipIf(skip !== undefined)('TCP MD5 sockets', () => {
  it("connects with the listener's key and carries data both ways", async () => {
    const { port, accepted } = await keyedListener('s3cret');
    const { result, socket } = await dial(port, 's3cret');
    expect(result).toBe('connected');
    await until('the listener to accept', () => accepted.length === 1);
    expect(accepted).toHaveLength(1);
    const echo = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
    accepted[0]!.write('hello');
    expect(await echo).toBe('hello');
  });

  it('gets no answer with another key', async () => {
    const { port, accepted } = await keyedListener('s3cret');
    expect((await dial(port, 'other')).result).toBe('no answer');
    expect(accepted).toHaveLength(0);
  });

  it('refuses keys and addresses the kernel cannot use', () => {
    expect(() => createMd5Socket({ peerAddress: '127.0.0.1', password: 'x'.repeat(TCP_MD5_MAX_KEY_BYTES + 1) })).toThrow(TcpMd5Error);
    expect(() => createMd5Socket({ peerAddress: '127.0.0.1', password: '' })).toThrow(/1 to 80 bytes/);
    expect(() => createMd5Socket({ peerAddress: 'router.example', password: 'x' })).toThrow(/not a numeric IP address/);
    try {
      createMd5Socket({ peerAddress: '::1', password: 'x', localAddress: '127.0.0.1' });
      expect.unreachable();
    } catch (error) {
      expect((error as TcpMd5Error).code).toBe('invalidAddress');
    }
  });

  it('removes a key: the listener then accepts unsigned connections again', async () => {
    const server = createServer((s) => sockets.push(s));
    servers.push(server);
    const fd = openListenSocket('127.0.0.1', 0);
    setMd5Key(fd, '127.0.0.1', 'k');
    setMd5Key(fd, '127.0.0.1', undefined);
    setMd5Key(fd, '127.0.0.1', undefined); // removing an absent key is fine
    await new Promise<void>((resolve) => server.listen({ fd }, resolve));
    const port = (server.address() as { port: number }).port;
    const plain = connect({ host: '127.0.0.1', port });
    sockets.push(plain);
    await new Promise((resolve, reject) => {
      plain.once('connect', resolve);
      plain.once('error', reject);
    });
  });
});
