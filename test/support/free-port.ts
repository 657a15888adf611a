/**
 * A port the kernel has just handed out for both TCP and UDP on a loopback address: what a daemon under test binds
 * its gossip to (memberlist listens on both protocols on one port). Asking the kernel (bind to port 0) replaces
 * ports derived from the test's pid, which collide when two test files run at once.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** Attempts before giving up: a port free for TCP is almost always free for UDP too. */
const ATTEMPTS = 20;

function tcpPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function udpFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

/** A port free for TCP and UDP on `host` (default 127.0.0.1) at the moment of asking. */
export async function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = await tcpPort(host);
    if (await udpFree(host, port)) return port;
  }
  throw new Error(`no port free for both TCP and UDP on ${host} after ${ATTEMPTS} attempts`);
}

/** `count` distinct such ports. */
export async function freeLoopbackPorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freeLoopbackPort(host));
  return [...ports];
}

/** A port free for TCP and UDP on every one of `hosts` at once: several gossip nodes, one per loopback address, one port (as on real hosts). */
export async function freePortOnAll(hosts: readonly string[]): Promise<number> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = await tcpPort(hosts[0] ?? '127.0.0.1');
    const free = await Promise.all(hosts.map(async (host) => (await udpFree(host, port)) && (await tcpFree(host, port))));
    if (free.every(Boolean)) return port;
  }
  throw new Error(`no port free for both TCP and UDP on ${hosts.join(', ')} after ${ATTEMPTS} attempts`);
}

function tcpFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
