import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../until';
import { startFakeApiServer, type FakeApiServer } from './index';
import { rawClient, type RawClient } from './raw-client';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

let api: FakeApiServer;
let client: RawClient;

beforeEach(async () => {
  api = await startFakeApiServer();
  client = rawClient(api.url);
});
afterEach(async () => {
  await api.close();
});

function connectionError(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'answered',
    (error: NodeJS.ErrnoException) => error.code ?? 'error',
  );
}

describe('fault injection', () => {
  it('fails the next N requests under a path with the given code, then answers again', async () => {
    api.faults.failNext(2, { code: 500, pathPrefix: '/api/v1/namespaces/default/configmaps' });
    expect((await client.send('GET', '/api/v1/nodes')).code).toBe(200);
    const first = await client.send('GET', CONFIGMAPS);
    expect(first.code).toBe(500);
    expect(first.body).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    expect((await client.send('GET', `${CONFIGMAPS}?watch=true`)).code).toBe(500);
    expect((await client.send('GET', CONFIGMAPS)).code).toBe(200);
  });

  it('drops open watches abruptly: the client sees a reset, not a clean end', async () => {
    const watch = await client.watch(`${CONFIGMAPS}?watch=true`);
    await until('watch registered', () => api.faults.openWatches() === 1);
    expect(api.faults.dropWatches()).toBe(1);
    expect(await watch.closed).toBe('error');
    expect(api.faults.openWatches()).toBe(0);
  });

  it('ends open watches cleanly on demand', async () => {
    const watch = await client.watch(`${CONFIGMAPS}?watch=true`);
    await until('watch registered', () => api.faults.openWatches() === 1);
    expect(api.faults.endWatches()).toBe(1);
    expect(await watch.closed).toBe('end');
  });

  it('delays every response until told otherwise', async () => {
    api.faults.delayResponses(60_000);
    let answered = false;
    const slow = client.send('GET', CONFIGMAPS).then((response) => {
      answered = true;
      return response;
    });
    await until('the request arrived', () => api.faults.pendingDelays() === 1);
    expect(answered).toBe(false);
    api.faults.delayResponses(0);
    expect((await slow).code).toBe(200);
  });

  it('half-opens watches: connected, but nothing more arrives; a new watch works', async () => {
    const stale = await client.watch(`${CONFIGMAPS}?watch=true&allowWatchBookmarks=true`);
    await until('watch registered', () => api.faults.openWatches() === 1);
    api.faults.halfOpenWatches();
    let ended = false;
    void stale.closed.then(() => (ended = true));
    const fresh = await client.watch(`${CONFIGMAPS}?watch=true`);
    await client.send('POST', CONFIGMAPS, { metadata: { name: 'a' } });
    await until('the fresh watch sees it', () => fresh.events.length === 1);
    expect(stale.events).toEqual([]);
    expect(ended).toBe(false);
    stale.stop();
    fresh.stop();
  });

  it('refuses connections during an outage and serves the same state after healing', async () => {
    await client.send('POST', CONFIGMAPS, { metadata: { name: 'a' } });
    const watch = await client.watch(`${CONFIGMAPS}?watch=true`);
    await api.faults.outage('refuse');
    expect(await watch.closed).toBe('error');
    expect(await connectionError(client.send('GET', CONFIGMAPS))).toBe('ECONNREFUSED');
    await api.faults.heal();
    const list = await client.send('GET', CONFIGMAPS);
    expect(list.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a']);
  });

  it('can instead accept and reset connections during an outage', async () => {
    await api.faults.outage('reset');
    expect(await connectionError(client.send('GET', CONFIGMAPS))).toBe('ECONNRESET');
    await api.faults.heal();
    expect((await client.send('GET', CONFIGMAPS)).code).toBe(200);
  });
});
