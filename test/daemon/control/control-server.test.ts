/**
 * The control server and its client over a real unix socket: what a daemon answers, how its socket file is made
 * and cleaned up, and that nothing a client sends can take it down; then what the client says for every way of
 * not reaching a daemon.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer as createHTTPServer, request, type Server as HTTPServer } from 'node:http';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket as NetSocket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  CONTROL_MAX_CONNECTIONS,
  CONTROL_MAX_EVENT_STREAMS,
  CONTROL_SOCKET_MODE,
  ControlServer,
  ControlSocketError,
} from '../../../src/daemon/control';
import { findGroupId, findGroupName } from '../../../src/daemon/control/socket-group';
import { permissionDeniedMessage } from '../../../src/cli/control-client';
import { connectControl, ControlClientError } from '../../../src/cli/control-client';
import { exampleExplanations, exampleSnapshot, FakeProvider, silentLogger, socketDir, startFakeDaemon } from './fake-daemon';

const sockets = socketDir();
afterAll(() => sockets.remove());
let n = 0;
const freshPath = () => join(sockets.dir, `s${n++}.sock`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function daemonAt(path = freshPath()) {
  const started = await startFakeDaemon(path);
  cleanups.push(() => started.server.close());
  return { path, ...started };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

function rawRequest(path: string, method: string, target: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method, path: target, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends bytes and reads until the server closes the connection. */
function rawBytes(path: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

async function clientError(run: () => Promise<unknown>): Promise<ControlClientError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ControlClientError) return error;
    throw error;
  }
  throw new Error('expected a ControlClientError');
}

/** A socket file whose listener died without cleaning up, as after a daemon's crash (SIGKILL). */
async function staleSocketAt(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', 'require("net").createServer().listen(process.argv[1], () => console.log("up"))', path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function listening<T extends NetServer | HTTPServer>(server: T, path: string): Promise<T> {
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

describe('ControlServer with the client', () => {
  it("serves the provider's snapshot and explanations, filtered as asked", async () => {
    const { path } = await daemonAt();
    const client = connectControl(path);
    expect(await client.getSnapshot()).toEqual(exampleSnapshot());
    const all = await exampleExplanations();
    expect(await client.getExplain()).toEqual(all);
    const web = await client.getExplain({ services: ['demo/web'] });
    expect(web.map((e) => e.service)).toEqual(['demo/web']);
    expect(web).toEqual(all.filter((e) => e.service === 'demo/web'));
    expect((await client.getExplain({ ips: ['FD00:10::200'] })).map((e) => e.ip)).toEqual(['fd00:10::200']);
  });

  it('drains and undrains through the provider, saying whether anything changed', async () => {
    const { path, provider } = await daemonAt();
    const client = connectControl(path);
    expect(await client.drain()).toMatchObject({ changed: true });
    expect(provider.draining).toBe(true);
    expect((await client.getSnapshot()).node.draining).toBe(true);
    expect(await client.drain()).toEqual({ changed: false, message: 'node-a was already draining' });
    expect(await client.undrain()).toMatchObject({ changed: true });
    expect(provider.draining).toBe(false);
  });

  it('makes the socket file mode 0660 and removes it on close', async () => {
    const path = freshPath();
    const { server } = await startFakeDaemon(path);
    const stats = statSync(path);
    expect(stats.isSocket()).toBe(true);
    expect(stats.mode & 0o777).toBe(CONTROL_SOCKET_MODE);
    expect(CONTROL_SOCKET_MODE).toBe(0o660);
    await server.close();
    expect(existsSync(path)).toBe(false);
    await server.close(); // twice is harmless
  });

  it('replaces the socket a crashed daemon left behind', async () => {
    const path = freshPath();
    await staleSocketAt(path);
    expect(lstatSync(path).isSocket()).toBe(true);
    expect((await clientError(() => connectControl(path).getSnapshot())).code).toBe('controlNotListening');
    await daemonAt(path);
    expect((await connectControl(path).getSnapshot()).node.name).toBe('node-a');
  });

  it('refuses to start when a live daemon answers on the socket, and leaves that one running', async () => {
    const { path } = await daemonAt();
    const second = ControlServer.listen({ path, provider: new FakeProvider([]), logger: silentLogger });
    await expect(second).rejects.toBeInstanceOf(ControlSocketError);
    await expect(second).rejects.toMatchObject({ code: 'controlSocketInUse' });
    expect((await connectControl(path).getSnapshot()).node.name).toBe('node-a');
  });

  it('does not delete a file that is not a socket', async () => {
    const path = freshPath();
    writeFileSync(path, 'precious');
    await expect(startFakeDaemon(path)).rejects.toMatchObject({ code: 'controlSocketPathTaken' });
    expect(readFileSync(path, 'utf8')).toBe('precious');
  });

  it('answers wrong paths, methods and queries with JSON errors', async () => {
    const { path } = await daemonAt();
    const missing = await rawRequest(path, 'GET', '/v1/nothing');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'notFound' } });
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expect(missing.headers['mlb-api-version']).toBe('mlb.io/v1');
    const wrongMethod = await rawRequest(path, 'GET', '/v1/drain');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    expect(wrongMethod.body).toMatchObject({ error: { code: 'methodNotAllowed' } });
    const badQuery = await rawRequest(path, 'GET', '/v1/explain?ip=not-an-ip');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body).toMatchObject({ error: { code: 'badRequest' } });
    const refused = await clientError(() => connectControl(path).getExplain({ ips: ['not-an-ip'] }));
    expect(refused).toMatchObject({ code: 'controlDaemonError', daemonCode: 'badRequest' });
  });

  it('survives garbage and half requests, and keeps answering', async () => {
    const { path } = await daemonAt();
    const garbage = await rawBytes(path, '\x00\x01\x02 not http at all\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'badRequest' } });
    const half = connect({ path });
    half.write('GET /v1/snap');
    half.destroy();
    const hugeHeader = await rawBytes(path, `GET /v1/snapshot HTTP/1.1\r\nx: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(hugeHeader).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect((await connectControl(path).getSnapshot()).apiVersion).toBe('mlb.io/v1');
  });

  it('turns a provider failure into a 500 for that request only', async () => {
    const { path, provider } = await daemonAt();
    provider.failSnapshot = true;
    const failed = await clientError(() => connectControl(path).getSnapshot());
    expect(failed).toMatchObject({ code: 'controlDaemonError', daemonCode: 'internal' });
    expect(failed.message).toContain('snapshot exploded');
    expect(await connectControl(path).getExplain()).toHaveLength((await exampleExplanations()).length);
  });

  it('answers a snapshot holding a bigint with the number as text, not a 500', async () => {
    const { path, provider } = await daemonAt();
    const snapshot = exampleSnapshot();
    provider.current = { ...snapshot, allocation: { ...snapshot.allocation, version: 12345678901234567890n as unknown as number } };
    const answer = await rawRequest(path, 'GET', '/v1/snapshot');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ allocation: { version: '12345678901234567890' } });
  });
});

/** Opens `count` connections that send nothing, each accepted before the next. */
async function idleConnections(path: string, count: number): Promise<NetSocket[]> {
  const opened: NetSocket[] = [];
  cleanups.push(() => opened.forEach((s) => s.destroy()));
  for (let i = 0; i < count; i++) {
    const socket = connect({ path });
    socket.on('error', () => undefined);
    opened.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  }
  return opened;
}

/** Opens a /v1/events stream and resolves with its status once the headers arrived; the stream stays open. */
function openEventStream(path: string): Promise<{ status: number; body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'GET', path: '/v1/events?after=0', agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      resolve({ status: res.statusCode ?? 0, body: new Promise((r) => res.once('end', () => r(text))) });
    });
    req.on('error', reject);
    cleanups.push(() => void req.destroy());
    req.end();
  });
}

describe('ControlServer under many connections', () => {
  it('answers mlb status while more idle connections than its cap are open', async () => {
    const { path } = await daemonAt();
    await idleConnections(path, CONTROL_MAX_CONNECTIONS + 8);
    expect((await connectControl(path).getSnapshot()).node.name).toBe('node-a');
  });

  it('answers mlb status while more event streams than it keeps are open, and refuses the extra streams', async () => {
    const { path, provider } = await daemonAt();
    const streams = [];
    for (let i = 0; i < CONTROL_MAX_CONNECTIONS; i++) streams.push(await openEventStream(path));
    expect(streams.filter((s) => s.status === 200)).toHaveLength(CONTROL_MAX_EVENT_STREAMS);
    const refused = streams.find((s) => s.status === 503);
    expect(JSON.parse(await refused!.body)).toMatchObject({ error: { code: 'tooManyStreams' } });
    expect(provider.subscriptions).toBe(CONTROL_MAX_EVENT_STREAMS);
    expect((await connectControl(path).getSnapshot()).node.name).toBe('node-a');
    // Idle connections on top of the streams still leave room.
    await idleConnections(path, CONTROL_MAX_CONNECTIONS);
    expect((await connectControl(path).getExplain()).length).toBeGreaterThan(0);
  });
});

describe("the control socket's group", () => {
  const groups = readFileSync('/etc/group', 'utf8');
  const canChown = process.getuid?.() === 0;
  // A group other than ours, so the socket's group proves the chown (root may give any group).
  const other = ['daemon', 'users', 'adm'].find(
    (g) => findGroupId(groups, g) !== undefined && findGroupId(groups, g) !== process.getgid?.(),
  );

  it('gives the socket the configured group, mode 0660', async (ctx) => {
    if (!canChown || !other) ctx.skip('needs root and a group other than ours in /etc/group to give the socket away');
    const path = freshPath();
    const server = await ControlServer.listen({ path, provider: new FakeProvider([]), logger: silentLogger, group: other! });
    cleanups.push(() => server.close());
    const stats = statSync(path);
    expect(stats.gid).toBe(findGroupId(groups, other!));
    expect(stats.mode & 0o777).toBe(0o660);
  });

  it('refuses to start for a group the host does not have, before making the socket', async () => {
    const path = freshPath();
    const error = await ControlServer.listen({
      path,
      provider: new FakeProvider([]),
      logger: silentLogger,
      group: 'no-such-group-mlb',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlSocketError);
    expect(error).toMatchObject({ code: 'controlSocketGroupUnknown' });
    expect((error as Error).message).toContain('groupadd --system no-such-group-mlb');
    expect(existsSync(path)).toBe(false);
  });

  it('reads group(5) lines both ways', () => {
    const text = 'root:x:0:\nmlb:x:998:alice,bob\nbroken\n';
    expect(findGroupId(text, 'mlb')).toBe(998);
    expect(findGroupId(text, 'nobody')).toBeUndefined();
    expect(findGroupName(text, 998)).toBe('mlb');
    expect(findGroupName(text, 5)).toBeUndefined();
  });

  it('tells a user outside the group which group to join, and never suggests group root', () => {
    const mlb = permissionDeniedMessage('/run/mlb/mlb.sock', { gid: 998, name: 'mlb' });
    expect(mlb).toContain('group mlb): add yourself to group mlb (sudo usermod -aG mlb "$USER"');
    expect(mlb).toContain('or run as root');
    const root = permissionDeniedMessage('/run/mlb/mlb.sock', { gid: 0, name: 'root' });
    expect(root).toContain('run as root');
    expect(root).toContain('--control-socket-group');
    expect(root).not.toContain('add yourself to group root');
  });
});

describe('control client failures', () => {
  it('says how to find the daemon when there is no socket', async () => {
    const error = await clientError(() => connectControl(freshPath()).getSnapshot());
    expect(error.code).toBe('controlSocketMissing');
    expect(error.message).toContain('is mlb daemon running? it listens on /run/mlb/mlb.sock by default; pass --socket');
  });

  it('recognises an HTTP server that is not mlb, and something that is not HTTP', async () => {
    const httpPath = freshPath();
    const http = await listening(
      createHTTPServer((_req, res) => res.end('{"hello":"world"}')),
      httpPath,
    );
    cleanups.push(() => new Promise((r) => http.close(() => r()).closeAllConnections()));
    expect(await clientError(() => connectControl(httpPath).getSnapshot())).toMatchObject({ code: 'notMlbSocket' });

    const rawPath = freshPath();
    const raw = await listening(
      createNetServer((s) => s.resume().end('SSH-2.0-OpenSSH_9.2\r\n')),
      rawPath,
    );
    cleanups.push(() => new Promise((r) => raw.close(() => r())));
    expect(await clientError(() => connectControl(rawPath).getSnapshot())).toMatchObject({ code: 'notMlbSocket' });
  });

  it('names both versions when the daemon speaks another API version', async () => {
    const path = freshPath();
    const v2 = await listening(
      createHTTPServer((_req, res) => {
        res.writeHead(404, { 'mlb-api-version': 'mlb.io/v2', 'content-type': 'application/json' });
        res.end('{"error":{"code":"notFound","message":"no route"}}');
      }),
      path,
    );
    cleanups.push(() => new Promise((r) => v2.close(() => r()).closeAllConnections()));
    const error = await clientError(() => connectControl(path).getSnapshot());
    expect(error.code).toBe('controlVersionMismatch');
    expect(error.message).toContain('mlb.io/v2');
    expect(error.message).toContain('mlb.io/v1');
  });
});
