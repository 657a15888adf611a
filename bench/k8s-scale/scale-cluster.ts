// The fake API server loaded with a large cluster, straight into its store (31,000 HTTP creates would measure
// the fake, not mlb), and what the bench reads back from it: how many Services have an ingress, and the resets
// that put every Service back at the starting line (no status, no pool annotation) between runs.
import type { FakeApiServer, KubeObject } from '../../test/support/fake-apiserver';
import {
  NS,
  controllerDeployment,
  endpointSlices,
  l2Advertisement,
  namespace,
  node,
  pool,
  service,
  serviceNamespaces,
  speakerPod,
} from './cluster-objects';

export interface ClusterSize {
  readonly services: number;
  readonly nodes: number;
}

const POOL_ANNOTATION = 'metallb.io/ip-allocated-from-pool';

/** Stores every object of the cluster; `speakerIp(i)` is where node i's speaker pod listens for memberlist. */
export function seedCluster(api: FakeApiServer, size: ClusterSize, speakerIp: (i: number) => string): void {
  const put = (group: string, plural: string, object: KubeObject) => api.store.create(api.resourceType(group, plural), object);
  for (const name of [NS, ...serviceNamespaces()]) put('', 'namespaces', namespace(name));
  put('apps', 'deployments', controllerDeployment());
  put('metallb.io', 'ipaddresspools', pool());
  put('metallb.io', 'l2advertisements', l2Advertisement());
  for (let i = 0; i < size.nodes; i++) {
    put('', 'nodes', node(i));
    put('', 'pods', speakerPod(i, speakerIp(i)));
  }
  for (let i = 0; i < size.services; i++) {
    put('', 'services', service(i));
    for (const slice of endpointSlices(i, size.nodes)) put('discovery.k8s.io', 'endpointslices', slice);
  }
}

function hasIngress(object: KubeObject): boolean {
  const ingress = (object as { status?: { loadBalancer?: { ingress?: unknown[] } } }).status?.loadBalancer?.ingress;
  return Array.isArray(ingress) && ingress.length > 0;
}

/** Every Service back to no address: empty status, no pool annotation (a write only where something changes). */
export function clearServiceStatuses(api: FakeApiServer): void {
  const type = api.resourceType('', 'services');
  for (const object of api.store.list(type)) {
    const annotations = { ...(object.metadata.annotations ?? {}) };
    if (!hasIngress(object) && !(POOL_ANNOTATION in annotations)) continue;
    delete annotations[POOL_ANNOTATION];
    api.store.update(type, { ...object, metadata: { ...object.metadata, annotations }, status: { loadBalancer: {} } } as KubeObject);
  }
}

/** Resolves when `count` Services have an ingress (each counted once), from the store's change stream. */
export function whenAllHaveIngress(api: FakeApiServer, count: number): Promise<void> {
  const done = new Set<string>();
  for (const object of api.store.list(api.resourceType('', 'services'))) {
    if (hasIngress(object)) done.add(`${object.metadata.namespace}/${object.metadata.name}`);
  }
  if (done.size >= count) return Promise.resolve();
  return new Promise((resolve) => {
    const unsubscribe = api.store.subscribe((change) => {
      if (change.type.plural !== 'services' || change.change === 'DELETED' || !hasIngress(change.object)) return;
      done.add(`${change.object.metadata.namespace}/${change.object.metadata.name}`);
      if (done.size >= count) {
        unsubscribe();
        resolve();
      }
    });
  });
}
