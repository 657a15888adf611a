// What the speaker's informers keep of each object: the speaker decides exactly what it decides from whole
// objects (same configuration, same endpoints), while the fields it never reads (managedFields, kubectl's
// last-applied copy, a Node's images, an EndpointSlice's addresses and pod references) are not kept.
import { describe, expect, it } from 'vitest';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { keptFields } from '../../../src/sources/k8s/kept-fields';
import { type ClusterObjects, translateCluster } from '../../../src/sources/k8s/translate-cluster';
import { WATCHED_KINDS } from '../../../src/sources/k8s/watched-kinds';
import { cluster, l2Advertisement, node, pool, service, slice } from './cluster-fixtures';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Objects as a busy cluster has them: applied with kubectl (unless `lastApplied` is false), a kubelet reporting
 * its images.
 */
function busyCluster(lastApplied = true): ClusterObjects {
  const applied = (o: ApiObject): ApiObject =>
    lastApplied ? { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, [LAST_APPLIED]: JSON.stringify(o) } } } : o;
  const withImages = (o: ApiObject): ApiObject => ({
    ...o,
    status: { ...(o.status as object), images: [{ names: ['registry.example/app:v1'], sizeBytes: 12_345_678 }] },
  });
  return cluster({
    ipaddresspools: [applied(pool('public', ['192.0.2.0/28']))],
    l2advertisements: [applied(l2Advertisement('l2', { ipAddressPools: ['public'], nodeSelectors: [{ matchLabels: { rack: 'r1' } }] }))],
    services: [
      applied(service('web', { ingress: ['192.0.2.1'], policy: 'Local', annotations: { 'metallb.io/address-pool': 'public' } })),
      applied(service('db', { ingress: ['192.0.2.2'] })),
      // A field newer than mlb: still reported, so it is kept.
      applied({ ...service('cache', { ingress: ['192.0.2.3'] }), spec: { ...(service('cache').spec as object), trafficShaping: 'Fair' } }),
    ],
    nodes: [withImages(node('node-a', { labels: { rack: 'r1' } })), withImages(node('node-b', { networkUnavailable: true }))],
    endpointslices: [
      slice('web-1', 'web', [
        { ip: '10.0.0.1', node: 'node-a' },
        { ip: '10.0.0.2', node: 'node-b', ready: false, serving: true, terminating: true },
        { ip: '10.0.0.3', node: 'node-c', ready: false, serving: false },
      ]),
      slice('db-1', 'db', [{ ip: '10.0.0.4', ready: null }]),
    ],
  });
}

function kept(objects: ClusterObjects): ClusterObjects {
  return Object.fromEntries(
    WATCHED_KINDS.map((k) => [k.name, objects[k.name].map((o) => keptFields(k.name, o))]),
  ) as unknown as ClusterObjects;
}

describe('the fields the speaker keeps of what it receives', () => {
  it('decide exactly what the whole objects decide: configuration, diagnostics and every service endpoint', () => {
    // kubectl's copy aside: the model lists a Service's annotations, and that one is the only one not kept.
    const whole = translateCluster(busyCluster(false), 'the Kubernetes API');
    const trimmed = translateCluster(kept(busyCluster()), 'the Kubernetes API');
    expect(whole.result.ok).toBe(true);
    expect(whole.result.diagnostics.map((d) => d.message).join('\n')).toContain('trafficShaping');
    expect(trimmed.result).toEqual(whole.result);
    expect(trimmed.endpoints).toEqual(whole.endpoints);
  });

  it('drop what mlb never reads, keeping the resourceVersion the informer compares', () => {
    const objects = kept(busyCluster());
    const text = JSON.stringify(objects);
    const unread = ['managedFields', LAST_APPLIED, 'images', 'targetRef', '10.0.0.1', 'addressType', 'lastHeartbeatTime'];
    // The API server's bookkeeping and the Service fields the parser ignores (clusterIPs, node ports, ipMode).
    const ignored = ['"uid"', 'creationTimestamp', 'clusterIPs', 'nodePort', 'targetPort', 'sessionAffinity', 'ipMode'];
    for (const gone of [...unread, ...ignored]) expect(text).not.toContain(gone);
    for (const list of Object.values(objects)) for (const o of list) expect(o.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(text.length).toBeLessThan(JSON.stringify(busyCluster()).length / 2);
  });
});
