/**
 * `mlb status --once` against a daemon holding 10,000 services prints every one of them, from one answer
 * (GET /v1/status: the services without their candidates), not the snapshot's pages; against a daemon from
 * before that route (404) it reads the snapshot in pages and prints the same.
 */
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTROL_API_HEADER,
  CONTROL_API_VERSION,
  ControlErrorCode,
  ControlServer,
  errorBody,
  type ControlSnapshot,
  type ControlStatus,
  type SnapshotPage,
} from '../../src/daemon/control';
import { FakeProvider, runMlbAsync, silentLogger, socketDir } from '../daemon/control/fake-daemon';
import { largeViews } from '../daemon/control/large-snapshot';

const SERVICES = 10_000;
const sockets = socketDir();
const path = join(sockets.dir, 'many.sock');
const oldPath = join(sockets.dir, 'old.sock');
let server: ControlServer;
let oldDaemon: Server;
let views: ReturnType<typeof largeViews>;
const asked = { whole: 0, pages: 0, status: 0 };

class LargeProvider extends FakeProvider {
  override snapshot(page?: SnapshotPage): ControlSnapshot {
    if (page) asked.pages++;
    else asked.whole++;
    return views.snapshot(page);
  }
  status(): ControlStatus {
    asked.status++;
    return views.status();
  }
}

/**
 * A daemon from before /v1/status: that route gets the 404 an older daemon's router gives an unknown path;
 * everything else is passed on to the real server.
 */
function listenOldDaemon(): Promise<Server> {
  const old = createServer((req, res) => {
    if (req.url === '/v1/status') {
      res.writeHead(404, { 'content-type': 'application/json', [CONTROL_API_HEADER]: CONTROL_API_VERSION });
      res.end(JSON.stringify(errorBody(ControlErrorCode.notFound, 'no route /v1/status')));
      return;
    }
    const forward = request({ socketPath: path, method: req.method, path: req.url, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  return new Promise((resolve) => old.listen(oldPath, () => resolve(old)));
}

beforeAll(async () => {
  views = largeViews(SERVICES);
  server = await ControlServer.listen({ path, provider: new LargeProvider([]), logger: silentLogger });
  oldDaemon = await listenOldDaemon();
}, 120_000);
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => oldDaemon.close(resolve));
  sockets.remove();
});

function serviceRows(stdout: string): string[] {
  return stdout.split('\n').filter((line) => /^demo\/svc-\d+ +10\.0\.\d+\.\d+ +layer2 +node-1 /.test(line));
}

describe('mlb status --once with 10,000 services', () => {
  it('prints a row for every service, from the one status answer', async () => {
    const run = await runMlbAsync(['status', '--socket', path, '--once']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(new Set(serviceRows(run.stdout).map((line) => line.split(/ +/)[0])).size).toBe(SERVICES);
    expect(asked).toEqual({ whole: 0, pages: 0, status: 1 });
  }, 120_000);

  it('prints the same from a daemon without /v1/status, reading its snapshot in pages', async () => {
    const fromStatus = await runMlbAsync(['status', '--socket', path, '--once']);
    Object.assign(asked, { whole: 0, pages: 0, status: 0 });
    const fromPages = await runMlbAsync(['status', '--socket', oldPath, '--once']);
    expect(fromPages.stderr).toBe('');
    expect(fromPages.status).toBe(0);
    expect(serviceRows(fromPages.stdout)).toHaveLength(SERVICES);
    expect(fromPages.stdout).toBe(fromStatus.stdout);
    expect(asked).toEqual({ whole: 0, pages: 10, status: 0 });
  }, 120_000);
});
