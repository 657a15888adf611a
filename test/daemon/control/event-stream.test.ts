/**
 * GET /v1/events over a real unix socket, with the one client: what was missed comes first, then live events, each
 * once and in order; the stream ends cleanly when either side goes, breaks loudly when the daemon dies, and a
 * client that stops reading cannot make the daemon buffer without end.
 */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EventStream, EVENT_STREAM_MAX_BUFFERED_BYTES } from '../../../src/daemon/control';
import { EventLog, type DaemonEvent } from '../../../src/daemon/daemon-events';
import { connectControl, ControlClientError } from '../../../src/cli/control-client';
import { silentLogger, socketDir, startFakeDaemon } from './fake-daemon';

const sockets = socketDir();
afterAll(() => sockets.remove());
let n = 0;
const freshPath = () => join(sockets.dir, `e${n++}.sock`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function daemon() {
  const path = freshPath();
  const started = await startFakeDaemon(path);
  cleanups.push(() => started.server.close());
  return { path, ...started };
}

/** Follows the stream into a list; `ended` settles with undefined or the error the client rejected with. */
function follow(path: string, after: number) {
  const events: DaemonEvent[] = [];
  const controller = new AbortController();
  const ended = connectControl(path)
    .followEvents(after, (e) => events.push(e), controller.signal)
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  cleanups.push(() => controller.abort());
  return { events, ended, abort: () => controller.abort() };
}

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const joined = (member: string) => ({ type: 'memberJoined', member }) as const;

describe('GET /v1/events', () => {
  it('replays the held events after SEQ, then streams live ones, each once and in order', async () => {
    const { path, provider } = await daemon();
    for (const m of ['a', 'b', 'c', 'd']) provider.events.record(joined(m));
    const stream = follow(path, 2);
    await until(() => stream.events.length === 2);
    expect(stream.events.map((e) => [e.seq, e.type === 'memberJoined' && e.member])).toEqual([
      [3, 'c'],
      [4, 'd'],
    ]);
    provider.events.record({
      type: 'ownerChanged',
      service: 'demo/web',
      protocol: 'layer2',
      ips: ['192.168.10.200'],
      from: ['node-a'],
      to: ['node-b'],
      unheldMs: 850,
    });
    provider.events.record({ type: 'configStale', file: '/etc/mlb/mlb.yaml', errors: ['line 3: bad'] });
    await until(() => stream.events.length === 4);
    expect(stream.events.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(stream.events[2]).toMatchObject({
      type: 'ownerChanged',
      from: ['node-a'],
      to: ['node-b'],
      unheldMs: 850,
      at: expect.any(String),
    });
  });

  it('replays everything held for after=0 and nothing old for an after at the end', async () => {
    const { path, provider } = await daemon();
    provider.events.record(joined('a'));
    provider.events.record(joined('b'));
    const all = follow(path, 0);
    const fresh = follow(path, 2);
    await until(() => all.events.length === 2 && provider.subscriptions === 2);
    provider.events.record(joined('c'));
    await until(() => fresh.events.length === 1 && all.events.length === 3);
    expect(fresh.events.map((e) => e.seq)).toEqual([3]);
  });

  it('answers with NDJSON, the API version and no length, and stays open', async () => {
    const { path, provider } = await daemon();
    provider.events.record(joined('a'));
    const head = await new Promise<{ status?: number; headers: Record<string, unknown>; first: string }>((resolve, reject) => {
      const req = request({ socketPath: path, path: '/v1/events', agent: false }, (res) => {
        res.once('data', (chunk: Buffer) => {
          resolve({ status: res.statusCode, headers: res.headers, first: chunk.toString('utf8') });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(head.headers['mlb-api-version']).toBe('mlb.io/v1');
    expect(head.headers['transfer-encoding']).toBe('chunked');
    expect(head.headers['content-length']).toBeUndefined();
    expect(JSON.parse(head.first)).toMatchObject({ seq: 1, type: 'memberJoined', member: 'a' });
    await until(() => provider.subscriptions === 0);
  });

  it('ends when the client aborts: the daemon drops the subscription', async () => {
    const { path, provider } = await daemon();
    const stream = follow(path, 0);
    await until(() => provider.subscriptions === 1);
    stream.abort();
    expect(await stream.ended).toBeUndefined();
    await until(() => provider.subscriptions === 0);
    provider.events.record(joined('late'));
    expect(stream.events).toEqual([]);
  });

  it('ends cleanly when the daemon closes its socket (the client resolves, no error)', async () => {
    const path = freshPath();
    const { server, provider } = await startFakeDaemon(path);
    const stream = follow(path, 0);
    await until(() => provider.subscriptions === 1);
    provider.events.record(joined('a'));
    await server.close();
    expect(await stream.ended).toBeUndefined();
    expect(stream.events.map((e) => e.seq)).toEqual([1]);
    expect(provider.subscriptions).toBe(0);
  });

  it('rejects with controlStreamBroken when the daemon dies mid-stream', async () => {
    const path = freshPath();
    const http = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'mlb-api-version': 'mlb.io/v1', 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ seq: 1, at: '2024-05-01T10:00:00.000Z', type: 'memberJoined', member: 'a' })}\n`);
        setTimeout(() => res.socket?.destroy(), 20);
      }),
      path,
    );
    const stream = follow(path, 0);
    const error = await stream.ended;
    expect(error).toBeInstanceOf(ControlClientError);
    expect(error).toMatchObject({ code: 'controlStreamBroken' });
    expect(stream.events.map((e) => e.seq)).toEqual([1]);
    http.close();
  });

  it('refuses what is not an event stream: a bad after, a failing event log, a line that is no event', async () => {
    const { path, provider } = await daemon();
    expect(await follow(path, -1).ended).toMatchObject({ code: 'controlDaemonError', daemonCode: 'badRequest' });
    provider.failEvents = true;
    const failed = await follow(path, 0).ended;
    expect(failed).toMatchObject({ code: 'controlDaemonError', daemonCode: 'internal' });
    expect((failed as Error).message).toContain('event log exploded');

    const garbagePath = freshPath();
    const http = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'mlb-api-version': 'mlb.io/v1', 'content-type': 'application/x-ndjson' });
        res.write('{"hello":"world"}\n');
      }),
      garbagePath,
    );
    cleanups.push(() => new Promise((r) => http.close(() => r()).closeAllConnections()));
    expect(await follow(garbagePath, 0).ended).toMatchObject({ code: 'notMlbSocket' });
    expect(await follow(join(sockets.dir, 'absent.sock'), 0).ended).toMatchObject({ code: 'controlSocketMissing' });
  });

  it('cuts a client that stops reading instead of buffering its events without end', async () => {
    const { path, provider } = await daemon();
    const socket = connect({ path });
    cleanups.push(() => void socket.destroy());
    socket.write('GET /v1/events HTTP/1.1\r\nhost: mlb\r\n\r\n');
    await until(() => provider.subscriptions === 1);
    socket.pause();
    const errors = ['x'.repeat(4096)];
    const needed = Math.ceil((4 * EVENT_STREAM_MAX_BUFFERED_BYTES) / 4096);
    for (let i = 0; i < needed && provider.subscriptions === 1; i++) {
      provider.events.record({ type: 'configStale', file: '/etc/mlb/mlb.yaml', errors });
      await new Promise((r) => setImmediate(r));
    }
    expect(provider.subscriptions).toBe(0);
  });
});

describe('EventStream heartbeats', () => {
  it('writes an empty line while nothing happens, which the client skips', async () => {
    const path = freshPath();
    const log = new EventLog();
    const http = await listen(
      createServer((_req, res) => {
        const stream = new EventStream(
          res,
          { eventsSince: (a) => log.since(a), subscribeEvents: (l) => log.subscribe(l) },
          0,
          log.since(0),
          silentLogger,
          10,
        );
        void stream.closed;
      }),
      path,
    );
    cleanups.push(() => new Promise((r) => http.close(() => r()).closeAllConnections()));
    const raw = await new Promise<string>((resolve, reject) => {
      const req = request({ socketPath: path, path: '/v1/events', agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
          if (text.length >= 3) {
            req.destroy();
            resolve(text);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(raw).toBe('\n\n\n');
    const stream = follow(path, 0);
    log.record(joined('a'));
    await until(() => stream.events.length === 1); // a second chunk, after the first was read
    log.record(joined('b'));
    await until(() => stream.events.length === 2);
    expect(stream.events.map((e) => e.seq)).toEqual([1, 2]);
  });
});

function listen(server: Server, path: string): Promise<Server> {
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}
