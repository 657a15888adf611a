import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../until';
import { startFakeApiServer, type FakeApiServer } from './index';
import { rawClient, type RawClient } from './raw-client';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

let api: FakeApiServer;
let client: RawClient;

beforeEach(async () => {
  api = await startFakeApiServer({ bookmarkIntervalMs: 50 });
  client = rawClient(api.url);
});
afterEach(async () => {
  await api.close();
});

async function createConfigMap(name: string, data: Record<string, string> = {}): Promise<string> {
  const created = await client.send('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
  expect(created.code).toBe(201);
  return created.body.metadata.resourceVersion;
}

describe('resourceVersions and watch replay', () => {
  it('numbers every write cluster-wide and reports the revision on lists', async () => {
    const first = Number(await createConfigMap('a'));
    const pod = await client.send('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: {} });
    const second = Number(await createConfigMap('b'));
    expect(Number(pod.body.metadata.resourceVersion)).toBe(first + 1);
    expect(second).toBe(first + 2);
    const list = await client.send('GET', CONFIGMAPS);
    expect(list.body.metadata.resourceVersion).toBe(String(second));
    expect(list.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a', 'b']);
  });

  it('replays every change after the requested resourceVersion, then streams live ones', async () => {
    const from = await createConfigMap('a');
    await client.send('PUT', `${CONFIGMAPS}/a`, { metadata: { name: 'a' }, data: { k: 'v' } });
    await createConfigMap('b');
    const watch = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${from}`);
    expect(watch.code).toBe(200);
    await until('replay', () => watch.events.length >= 2);
    await client.send('DELETE', `${CONFIGMAPS}/a`);
    await until('live delete', () => watch.events.length >= 3);
    expect(watch.events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['MODIFIED a', 'ADDED b', 'DELETED a']);
    watch.stop();
  });

  it('gives DELETED the deletion resourceVersion, not the last stored one', async () => {
    const created = await createConfigMap('a');
    const watch = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${created}`);
    const deleted = await client.send('DELETE', `${CONFIGMAPS}/a`);
    await until('delete event', () => watch.events[0]);
    expect(Number(watch.events[0]?.object.metadata.resourceVersion)).toBeGreaterThan(Number(created));
    expect(watch.events[0]?.object.metadata.resourceVersion).toBe(deleted.body.metadata.resourceVersion);
    expect(api.store.currentRevision()).toBe(Number(deleted.body.metadata.resourceVersion));
    watch.stop();
  });

  it('emits nothing and keeps the resourceVersion when a write changes nothing', async () => {
    const created = await createConfigMap('a', { k: 'v' });
    const watch = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${created}`);
    const same = await client.send('PUT', `${CONFIGMAPS}/a`, { metadata: { name: 'a', resourceVersion: created }, data: { k: 'v' } });
    expect(same.code).toBe(200);
    expect(same.body.metadata.resourceVersion).toBe(created);
    await createConfigMap('marker');
    await until('marker event', () => watch.events.length >= 1);
    expect(watch.events.map((event) => event.object.metadata.name)).toEqual(['marker']);
    watch.stop();
  });

  it('starts a watch without resourceVersion with a synthetic ADDED per existing object', async () => {
    await createConfigMap('a');
    await createConfigMap('b');
    const watch = await client.watch(`${CONFIGMAPS}?watch=true`);
    await until('synthetic adds', () => watch.events.length >= 2);
    expect(watch.events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['ADDED a', 'ADDED b']);
    watch.stop();
  });

  it('shows an object leaving a label-selected view as DELETED and entering it as ADDED', async () => {
    const from = await createConfigMap('a');
    const watch = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${from}&labelSelector=app%3Dx`);
    await client.send('PATCH', `${CONFIGMAPS}/a`, { metadata: { labels: { app: 'x' } } }, 'application/merge-patch+json');
    await client.send('PATCH', `${CONFIGMAPS}/a`, { metadata: { labels: { app: 'y' } } }, 'application/merge-patch+json');
    await until('two events', () => watch.events.length >= 2);
    expect(watch.events.map((event) => event.type)).toEqual(['ADDED', 'DELETED']);
    watch.stop();
  });
});

describe('watch stream lifetime', () => {
  it('sends BOOKMARKs only to watches that allow them', async () => {
    const from = await createConfigMap('a');
    const plain = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${from}`);
    const bookmarking = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`);
    const bookmark = await until('a bookmark', () => bookmarking.events.find((event) => event.type === 'BOOKMARK'));
    expect(bookmark.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: from } });
    await createConfigMap('marker');
    await until('marker on the plain watch', () => plain.events.length >= 1);
    expect(plain.events.map((event) => event.type)).toEqual(['ADDED']);
    plain.stop();
    bookmarking.stop();
  });

  it('ends a watch cleanly after timeoutSeconds', async () => {
    const watch = await client.watch(`${CONFIGMAPS}?watch=true&timeoutSeconds=1`);
    expect(await watch.closed).toBe('end');
    expect(api.faults.openWatches()).toBe(0);
  });

  it('holds a watch open while nothing happens (an empty 200 would make client-node reconnect in a loop)', async () => {
    const watch = await client.watch(`${CONFIGMAPS}?watch=true`);
    let ended = false;
    void watch.closed.then(() => (ended = true));
    await until('watch registered', () => api.faults.openWatches() === 1);
    await createConfigMap('later');
    await until('the later object', () => watch.events.length === 1);
    expect(ended).toBe(false);
    expect(api.faults.openWatches()).toBe(1);
    watch.stop();
  });

  it('answers a watch from a compacted resourceVersion with HTTP 410 Expired', async () => {
    const old = await createConfigMap('a');
    await createConfigMap('b');
    api.faults.compact();
    const refused = await client.send('GET', `${CONFIGMAPS}?watch=true&resourceVersion=${old}`);
    expect(refused.code).toBe(410);
    expect(refused.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    // The current revision is still a valid starting point.
    const fresh = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${api.store.currentRevision()}`);
    expect(fresh.code).toBe(200);
    fresh.stop();
  });

  it('can instead answer 200 with an in-stream ERROR 410 and close the stream', async () => {
    await api.close();
    api = await startFakeApiServer({ expiredWatch: 'event' });
    client = rawClient(api.url);
    const old = await createConfigMap('a');
    await createConfigMap('b');
    api.faults.compact();
    const watch = await client.watch(`${CONFIGMAPS}?watch=true&resourceVersion=${old}`);
    expect(watch.code).toBe(200);
    expect(await watch.closed).toBe('end');
    expect(watch.events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) }]);
  });

  it('expires open watches on demand: ERROR 410 in the stream, then the end', async () => {
    const watch = await client.watch(`${CONFIGMAPS}?watch=true`);
    await until('watch registered', () => api.faults.openWatches() === 1);
    expect(api.faults.expireWatches()).toBe(1);
    expect(await watch.closed).toBe('end');
    expect(watch.events.map((event) => [event.type, event.object.code])).toEqual([['ERROR', 410]]);
  });
});
