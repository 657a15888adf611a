/**
 * A port free for both TCP and UDP on a loopback address: what a daemon under test binds its gossip to
 * (memberlist listens on both protocols on one port). Drawn at random below the kernel's ephemeral range
 * (net.ipv4.ip_local_port_range), then checked free: a port from bind(0) comes from that range, where every
 * outgoing connection of every test running at once (fetch, kubectl, gossip streams) takes its local port too,
 * and one of them could take it between the check and the daemon's bind (seen as a daemon that exits at start).
 * Below the range only another test's draw can take it. Ports derived from the test's pid collide when two test
 * files run at once.
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Attempts before giving up: a drawn port is almost always free for both protocols. */
const ATTEMPTS = 50;
/** The lowest port drawn: above the well-known and the commonly registered ones. */
const LOWEST_DRAWN = 20_000;

/** The first port of the kernel's ephemeral range (32768 when unreadable, Linux's default). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

const DRAW_BELOW = ephemeralLow();

/** A port drawn below the ephemeral range and free for TCP on `host`; from the kernel (bind 0) when that range leaves no room. */
async function tcpPort(host: string): Promise<number> {
  if (DRAW_BELOW - LOWEST_DRAWN < 1_000) return kernelPort(host);
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = LOWEST_DRAWN + Math.floor(Math.random() * (DRAW_BELOW - LOWEST_DRAWN));
    if (await tcpFree(host, port)) return port;
  }
  return kernelPort(host);
}

function kernelPort(host: string): Promise<number> {
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
