/**
 * GET /v1/status: what `mlb status --once` prints, in one answer. Its services are the snapshot's, in the same
 * order and with the same fields but the candidates; it carries no `local`; the rest is the snapshot's. A
 * provider that builds no status (an embedding of the server that only has snapshots) answers its snapshot.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlServer, isControlStatus, type ControlSnapshot, type ControlStatus, type SnapshotPage } from '../../../src/daemon/control';
import { FakeProvider, exampleSnapshot, silentLogger, socketDir } from './fake-daemon';
import { largeViews } from './large-snapshot';

const SERVICES = 300;
const sockets = socketDir();
const path = join(sockets.dir, 'status.sock');
const snapshotOnlyPath = join(sockets.dir, 'snapshot-only.sock');
let servers: ControlServer[] = [];
let views: ReturnType<typeof largeViews>;

class StatusProvider extends FakeProvider {
  override snapshot(page?: SnapshotPage): ControlSnapshot {
    return views.snapshot(page);
  }
  status(): ControlStatus {
    return views.status();
  }
}

beforeAll(async () => {
  views = largeViews(SERVICES);
  servers = [
    await ControlServer.listen({ path, provider: new StatusProvider([]), logger: silentLogger }),
    await ControlServer.listen({ path: snapshotOnlyPath, provider: new FakeProvider([]), logger: silentLogger }),
  ];
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  sockets.remove();
});

function get(socketPath: string, target: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method: 'GET', path: target, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /v1/status', () => {
  it("is the snapshot without candidates and local: every service, in the snapshot's order", async () => {
    const answer = await get(path, '/v1/status');
    expect(answer.status).toBe(200);
    expect(isControlStatus(answer.body)).toBe(true);
    const { services, local: _local, ...rest } = views.snapshot();
    expect(answer.body).not.toHaveProperty('local');
    expect(answer.body.services).toEqual(services.map(({ candidates: _candidates, ...row }) => row));
    expect({ ...answer.body, services: [] }).toEqual({ ...rest, services: [] });
    expect((answer.body.services as unknown[]).length).toBe(SERVICES);
  });

  it('is the whole snapshot from a provider that builds no status', async () => {
    const answer = await get(snapshotOnlyPath, '/v1/status');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(exampleSnapshot());
  });
});
