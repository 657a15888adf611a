// mlb lists in pages, as client-go's pager does: a large collection arrives 500 objects per request, each page
// trimmed before the next is read, so the speaker never holds 20,000 whole EndpointSlices at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIST_PAGE_SIZE, listObjects } from '../../../src/sources/k8s/api/api-list';
import { loadKubeConfig } from '../../../src/sources/k8s/api/kube-client';
import { type FakeApiServer, type KubeObject, startFakeApiServer } from '../../support/fake-apiserver';
import { slice } from './cluster-fixtures';

let api: FakeApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('listing a large collection', () => {
  it('reads it in pages of 500, every object once, trimmed as each page arrives, with the list resourceVersion', async () => {
    api = await startFakeApiServer();
    const type = api.resourceType('discovery.k8s.io', 'endpointslices');
    const count = 2 * LIST_PAGE_SIZE + 37;
    for (let i = 0; i < count; i++)
      api.store.create(type, slice(`s-${i}`, `svc-${i}`, [{ ip: '10.0.0.1', node: 'n' }]) as unknown as KubeObject);
    const kc = await loadKubeConfig(api.kubeconfigPath(mkdtempSync(join(tmpdir(), 'mlb-pages-'))));
    const list = await listObjects(kc, '/apis/discovery.k8s.io/v1/endpointslices', {}, AbortSignal.timeout(60_000), (o) => ({
      metadata: { name: o.metadata?.name ?? '' },
    }));
    expect(new Set(list.items.map((o) => o.metadata?.name)).size).toBe(count);
    expect(list.items.every((o) => Object.keys(o).join() === 'metadata')).toBe(true);
    expect(list.metadata?.resourceVersion).toBe(String(api.store.currentRevision()));
    const lists = api.audit.filter({ resource: 'endpointslices', verb: 'list' });
    expect(lists.map((e) => new URLSearchParams(e.query).get('limit'))).toEqual(['500', '500', '500']);
  });
});
