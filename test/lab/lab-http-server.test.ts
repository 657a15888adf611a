/**
 * The lab HTTP server and the client's probe, over real sockets on loopback (no root, no namespace): the answers
 * the demo's health checks and failover measurements rest on.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_HEADER, startLabHttpServer, writeHealthFile, type LabHttpServer } from '../../src/cli/lab/lab-http-server';
import { probeOnce, runProbeLoop } from '../../src/cli/lab/probe-loop';
import { parseProbeLine } from '../../src/cli/lab/probe-samples';
import { until } from '../support/until';

let dir: string;
let healthFile: string;
let server: LabHttpServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-lab-http-'));
  healthFile = join(dir, 'health');
  server = await startLabHttpServer({ nodeName: 'node-7', port: 0, host: '127.0.0.1', healthFile });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; body: string; node: string | null }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  return { status: res.status, body: await res.text(), node: res.headers.get(NODE_HEADER) };
}

describe('the lab HTTP server', () => {
  it('answers GET / with its node name, in the body and a header', async () => {
    expect(await get('/')).toEqual({ status: 200, body: 'node-7\n', node: 'node-7' });
  });

  it('answers /healthz 200 without a health file, 503 while it says unhealthy, 200 again after', async () => {
    expect((await get('/healthz')).status).toBe(200);
    await writeHealthFile(healthFile, false);
    expect(await get('/healthz')).toMatchObject({ status: 503, body: 'unhealthy\n' });
    // The service itself keeps answering: only the check fails, as in the demo's health step.
    expect((await get('/')).status).toBe(200);
    await writeHealthFile(healthFile, true);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('answers other paths 404 and other methods 405', async () => {
    expect((await get('/nope')).status).toBe(404);
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST' });
    expect(res.status).toBe(405);
  });
});

describe('the client probe', () => {
  it('names the node that answered', async () => {
    const sample = await probeOnce({ host: '127.0.0.1', port: server.port, timeoutMs: 500 });
    expect(sample).toMatchObject({ ok: true, node: 'node-7' });
    expect(sample.t).toBeGreaterThanOrEqual(sample.sent);
  });

  it('says "refused" for a closed port', async () => {
    const closed = await freePort();
    expect(await probeOnce({ host: '127.0.0.1', port: closed, timeoutMs: 500 })).toMatchObject({ ok: false, error: 'refused' });
  });

  it('says "timeout" for a server that accepts and never answers, after its deadline', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const sample = await probeOnce({ host: '127.0.0.1', port: portOf(silent), timeoutMs: 150 });
      expect(sample).toMatchObject({ ok: false, error: 'timeout' });
      expect(sample.t - sample.sent).toBeGreaterThanOrEqual(140);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('keeps requesting while one hangs (a dead owner does not slow the loop), one JSON line each', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const lines: string[] = [];
    try {
      await runProbeLoop(
        { host: '127.0.0.1', port: portOf(silent), intervalMs: 10, timeoutMs: 200, count: 5, write: (l) => lines.push(l) },
        new AbortController().signal,
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
    const samples = lines.map((l) => parseProbeLine(l.trim()));
    expect(samples).toHaveLength(5);
    expect(samples.every((s) => s?.ok === false && s.error === 'timeout')).toBe(true);
    // Five requests 10 ms apart all started before the first one timed out: none waited for the hanging one.
    // (An order of events, not a duration: a busy machine delays both alike.)
    const sent = samples.map((s) => s!.sent);
    const answered = samples.map((s) => s!.t);
    expect(Math.max(...sent)).toBeLessThanOrEqual(Math.min(...answered));
  });

  it('stops when aborted', async () => {
    const stop = new AbortController();
    const lines: string[] = [];
    const loop = runProbeLoop(
      { host: '127.0.0.1', port: server.port, intervalMs: 10, timeoutMs: 500, write: (l) => lines.push(l) },
      stop.signal,
    );
    await until('the loop to have written a line', () => lines.length > 0);
    stop.abort();
    await loop;
    const count = lines.length;
    expect(count).toBeGreaterThan(0);
    // Asserting absence: nothing can announce "no line will come", so a few of its 10 ms intervals pass first.
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.length).toBe(count);
  });
});

function portOf(s: Server): number {
  const address = s.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening');
  return address.port;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = portOf(s);
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
