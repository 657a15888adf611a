/**
 * A real `mlb daemon` on loopback and the inbound gossip streams a hostile neighbour could open against it:
 * encrypted-looking streams from a peer without the key (each announcing and sending a large body), and slow
 * connections that trickle a byte now and then. Shared by the stream-flood test and bench/gossip-flood.bench.ts.
 * Only 127.0.0.1 is dialled.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type RunningDaemon } from '../daemon/run-daemon';
import { REPO_ROOT } from '../cli/run-cli';

/** memberlist's encrypt message type: [0a][u32 BE length][body], read whole before it can be authenticated. */
const ENCRYPT_TYPE = 0x0a;
/**
 * The junk each stream writes repeatedly; one buffer for every stream keeps the attacker's own memory small. Its
 * first byte is a valid encryption version (1, memberlist security.go), so the body is only refused once it was
 * read whole and its GCM tag failed, as a real ciphertext under a wrong key would be.
 */
const JUNK = Buffer.alloc(1024 * 1024, 0x5a);
JUNK[0] = 1;

export interface FloodTarget {
  readonly daemon: RunningDaemon;
  readonly port: number;
  readonly metricsPort: number;
  /** Resident set size of the daemon now, in bytes (/proc/PID/status VmRSS). */
  rss(): number;
  /** mlb_gossip_drops_total by reason, scraped from the daemon's metrics. */
  drops(): Promise<Record<string, number>>;
  /**
   * The drops once `ok` holds, scraping every 50 ms for up to `timeoutMs`: gossip counts on its own thread and the
   * main thread's copy follows within 100 ms (src/daemon/gossip-thread/gossip-thread.ts), so a scrape right after
   * the last connection closed may not show it yet.
   */
  dropsOnce(ok: (drops: Record<string, number>) => boolean, timeoutMs?: number): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kib) * 1024;
}

/** Starts `mlb daemon` (built bundle) with a gossip key, no announcing, metrics on loopback; resolves once gossip listens. */
export async function startFloodTarget(): Promise<FloodTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'mlb-flood-'));
  writeFileSync(join(dir, 'gossip.key'), 'flood-test-secret-key\n');
  const [port, metricsPort] = [await freePort(), await freePort()];
  const daemon = startDaemon([
    '--config',
    join(REPO_ROOT, 'examples/plain-host.yaml'),
    '--node-name',
    'flood-target',
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--gossip-key-file',
    join(dir, 'gossip.key'),
    '--state-dir',
    join(dir, 'state'),
    '--control-socket',
    join(dir, 'mlb.sock'),
    '--no-announce',
    '--metrics-bind',
    `127.0.0.1:${metricsPort}`,
  ]);
  try {
    await daemon.waitFor((l) => l.event === 'controlListening');
  } catch (error) {
    daemon.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const pid = daemon.child.pid as number;
  const drops = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^mlb_gossip_drops_total\{reason="(\w+)"\} (\d+)$/gm)) out[m[1] as string] = Number(m[2]);
    return out;
  };
  return {
    daemon,
    port,
    metricsPort,
    rss: () => rssOf(pid),
    drops,
    async dropsOnce(ok, timeoutMs = 3_000) {
      const until = Date.now() + timeoutMs;
      let seen = await drops();
      while (!ok(seen) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        seen = await drops();
      }
      return seen;
    },
    async stop() {
      daemon.child.kill('SIGKILL');
      await daemon.exited();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * One stream from a peer without the key: an encrypt header announcing `bytes`, then `bytes` of junk, written as
 * fast as the daemon reads. Resolves when the daemon has closed it (it cannot decrypt it, or refused it early).
 */
async function keylessStream(port: number, bytes: number): Promise<void> {
  const socket = await opened(port);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  // The daemon answers a stream it cannot decrypt with an error message, then closes: read (and drop) it, or this
  // side never sees the end of the stream and never closes.
  socket.resume();
  const header = Buffer.alloc(5);
  header[0] = ENCRYPT_TYPE;
  header.writeUInt32BE(bytes, 1);
  socket.write(header);
  let sent = 0;
  while (sent < bytes && !socket.destroyed) {
    const piece = JUNK.subarray(0, Math.min(JUNK.length, bytes - sent));
    sent += piece.length;
    if (!socket.write(piece)) {
      await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
    }
  }
  socket.end();
  await closed;
}

/** `count` keyless streams of `bytes` each, all at once; resolves when the daemon has closed every one. */
export async function keylessStreams(port: number, count: number, bytes: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => keylessStream(port, bytes)));
}

export interface SlowConnections {
  /** Connections the daemon has closed so far. */
  readonly closed: () => number;
  /** Resolves when the daemon has closed all of them. */
  readonly allClosed: Promise<void>;
  /** Closes what is left from this side. */
  stop(): void;
}

/**
 * `count` connections that each announce a small encrypted message and then send one byte every `everyMs`:
 * slow enough never to finish, fast enough that an idle timer alone would never fire.
 */
export async function slowConnections(port: number, count: number, everyMs: number): Promise<SlowConnections> {
  const sockets: Socket[] = [];
  let closed = 0;
  let settle: () => void = () => undefined;
  const allClosed = new Promise<void>((resolve) => (settle = resolve));
  const header = Buffer.from([ENCRYPT_TYPE, 0, 0, 0x10, 0]);
  for (let i = 0; i < count; i++) {
    const socket = await opened(port);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      closed++;
      if (closed === count) settle();
    });
    socket.write(header.subarray(0, 1));
    sockets.push(socket);
  }
  let sent = 1;
  const timer = setInterval(() => {
    const byte = sent < header.length ? header.subarray(sent, sent + 1) : JUNK.subarray(0, 1);
    sent++;
    for (const s of sockets) if (!s.destroyed) s.write(byte);
  }, everyMs);
  void allClosed.then(() => clearInterval(timer));
  return {
    closed: () => closed,
    allClosed,
    stop() {
      clearInterval(timer);
      for (const s of sockets) s.destroy();
    },
  };
}

/** Polls `sample` every `everyMs` until `stop` resolves; resolves with the largest value seen. */
export async function peakWhile(sample: () => number, stop: Promise<unknown>, everyMs = 25): Promise<number> {
  let peak = sample();
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, sample());
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Math.max(peak, sample());
}

/** Polls until `ok` or `timeoutMs` passed; resolves with the last sampled value either way. */
export async function sampleUntil(sample: () => number, ok: (v: number) => boolean, timeoutMs: number, everyMs = 50): Promise<number> {
  const until = Date.now() + timeoutMs;
  let v = sample();
  while (!ok(v) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, everyMs));
    v = sample();
  }
  return v;
}
