/**
 * `mlb status --once` against a daemon holding 10,000 services prints every one of them: the client reads the
 * snapshot in pages (GET /v1/snapshot?offset&limit), each a small answer, and prints the rows of all of them.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlServer, type ControlSnapshot, type SnapshotPage } from '../../src/daemon/control';
import { FakeProvider, runMlbAsync, silentLogger, socketDir } from '../daemon/control/fake-daemon';
import { largeControlView } from '../daemon/control/large-snapshot';

const SERVICES = 10_000;
const sockets = socketDir();
const path = join(sockets.dir, 'many.sock');
let server: ControlServer;
let view: (page?: SnapshotPage) => ControlSnapshot;
let wholeAsked = 0;

class LargeProvider extends FakeProvider {
  override snapshot(page?: SnapshotPage): ControlSnapshot {
    if (!page) wholeAsked++;
    return view(page);
  }
}

beforeAll(async () => {
  view = largeControlView(SERVICES);
  server = await ControlServer.listen({ path, provider: new LargeProvider([]), logger: silentLogger });
}, 120_000);
afterAll(async () => {
  await server.close();
  sockets.remove();
});

describe('mlb status --once with 10,000 services', () => {
  it('prints a row for every service, having asked for pages only', async () => {
    const run = await runMlbAsync(['status', '--socket', path, '--once']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const rows = run.stdout.split('\n').filter((line) => /^demo\/svc-\d+ +10\.0\.\d+\.\d+ +layer2 +node-1 /.test(line));
    expect(new Set(rows.map((line) => line.split(/ +/)[0])).size).toBe(SERVICES);
    expect(wholeAsked).toBe(0);
  }, 120_000);
});
