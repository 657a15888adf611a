/**
 * GET /v1/snapshot in pages: with 10,000 services the daemon answers one page (and builds only its rows), the
 * pages together are the whole snapshot, and the client reads them all as one snapshot.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlServer, type ControlSnapshot, routeRequest, type SnapshotPage } from '../../../src/daemon/control';
import { connectControl } from '../../../src/cli/control-client';
import { FakeProvider, silentLogger, socketDir } from './fake-daemon';
import { largeControlView, serviceIP } from './large-snapshot';

const SERVICES = 10_000;
const sockets = socketDir();
const path = join(sockets.dir, 'paged.sock');
let server: ControlServer;
let view: (page?: SnapshotPage) => ControlSnapshot;
const pagesAsked: (SnapshotPage | undefined)[] = [];

/** The real control view behind the real server. */
class LargeProvider extends FakeProvider {
  override snapshot(page?: SnapshotPage): ControlSnapshot {
    pagesAsked.push(page);
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

function get(target: string): Promise<{ status: number; body: ControlSnapshot & { error?: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'GET', path: target, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as never }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the control API with 10,000 services', () => {
  it('answers one page: the services asked for, and where they are in the whole list', async () => {
    const answer = await get('/v1/snapshot?offset=9990&limit=20');
    expect(answer.status).toBe(200);
    expect(answer.body.servicesPage).toEqual({ offset: 9990, limit: 20, total: SERVICES });
    expect(answer.body.services).toHaveLength(10);
    expect(answer.body.services).toEqual(view().services.slice(9990));
    for (const row of answer.body.services) {
      expect(row.owner).toBe('node-1');
      expect(row.ips).toEqual([serviceIP(Number(row.service.slice('demo/svc-'.length)))]);
      expect(row.candidates).toEqual([{ node: 'node-1', rank: 1, eligible: true, reason: 'owner' }]);
    }
  });

  it('gives the client every service, read in pages', async () => {
    pagesAsked.length = 0;
    const whole = await connectControl(path).getSnapshot();
    expect(whole.services).toHaveLength(SERVICES);
    expect(whole).toEqual(view());
    expect(pagesAsked.length).toBeGreaterThan(1);
    expect(pagesAsked.every((page) => page !== undefined && page.limit <= 1_000)).toBe(true);
  });

  it('refuses a page it cannot give, saying what it accepts', async () => {
    for (const target of [
      '/v1/snapshot?offset=0',
      '/v1/snapshot?offset=0&limit=0',
      '/v1/snapshot?offset=-1&limit=5',
      '/v1/snapshot?offset=0&limit=1001',
    ]) {
      const answer = await get(target);
      expect(answer.status, target).toBe(400);
      expect(answer.body.error?.code).toBe('badRequest');
    }
    expect(routeRequest('GET', '/v1/snapshot?offset=5&limit=10')).toEqual({ kind: 'snapshot', page: { offset: 5, limit: 10 } });
  });
});
