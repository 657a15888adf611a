import { describe, expect, it } from 'vitest';
import { electAll } from '../../../src/election';
import { formatIP } from '../../../src/ip';
import { parseConfig, type Snapshot } from '../../../src/model';
import { translateCluster } from '../../../src/sources/k8s/translate-cluster';
import { BASIC_FILE, basicCluster, cluster, l2Advertisement, node, pool, service, slice } from './cluster-fixtures';

const ORIGIN = 'https://127.0.0.1:6443';

/** A file's Snapshot minus what only a file has (where each object and field was written). */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([key]) => key !== 'position' && key !== 'fieldPositions');
  return Object.fromEntries(entries.map(([key, v]) => [key, withoutPositions(v)]));
}

function mentionsPosition(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mentionsPosition);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, v]) => key === 'position' || key === 'fieldPositions' || mentionsPosition(v));
}

function snapshotOf(result: ReturnType<typeof translateCluster>['result']): Snapshot {
  if (!result.ok) throw new Error(`not ok: ${JSON.stringify(result.diagnostics)}`);
  return result.snapshot;
}

describe('API objects to the Snapshot', () => {
  it('builds the same Snapshot the file source builds from the same configuration', () => {
    const fromApi = snapshotOf(translateCluster(basicCluster(), ORIGIN).result);
    const fromFile = parseConfig(BASIC_FILE, 'mlb.yaml');
    expect(fromFile.ok).toBe(true);
    if (!fromFile.ok) return;
    expect(withoutPositions(fromApi)).toEqual(withoutPositions(fromFile.snapshot));
    // No line of a file that does not exist.
    expect(mentionsPosition(fromApi)).toBe(false);
    expect(mentionsPosition(fromFile.snapshot)).toBe(true);
  });

  it('reads only LoadBalancer services, and takes their address from status.loadBalancer.ingress', () => {
    const snapshot = snapshotOf(translateCluster(basicCluster(), ORIGIN).result);
    expect(snapshot.services.map((s) => s.meta.name)).toEqual(['web']);
    expect(snapshot.services[0]?.ingressIPs.map(formatIP)).toEqual(['192.0.2.1']);
  });

  it('reads only the Services of its load-balancer class (--lb-class; none: only Services without a class)', () => {
    const classed = (name: string, lbClass: string) => {
      const s = service(name, { ingress: ['192.0.2.9'] });
      return { ...s, spec: { ...(s.spec as object), loadBalancerClass: lbClass } };
    };
    const objects = { ...basicCluster(), services: [service('web', { ingress: ['192.0.2.1'] }), classed('other', 'example.com/other')] };
    const names = (lbClass?: string) => snapshotOf(translateCluster(objects, ORIGIN, {}, lbClass).result).services.map((s) => s.meta.name);
    expect(names()).toEqual(['web']);
    expect(names('example.com/other')).toEqual(['other']);
  });

  it('keeps the NetworkUnavailable condition and the exclusion label of each Node', () => {
    const objects = cluster({
      nodes: [
        node('node-a', { networkUnavailable: true }),
        node('node-b', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }),
      ],
    });
    const snapshot = snapshotOf(translateCluster(objects, ORIGIN).result);
    const [a, b] = snapshot.nodes;
    expect(a?.conditions).toContainEqual({ type: 'NetworkUnavailable', status: 'True' });
    expect(b?.meta.labels).toHaveProperty(['node.kubernetes.io/exclude-from-external-load-balancers'], '');
    expect(a?.addresses.map(formatIP)).toEqual(['172.18.0.2']);
  });

  it('refuses an invalid object with the file mode’s code and message, naming the object instead of a line', () => {
    const bad = cluster({ ipaddresspools: [pool('public', ['192.0.2.0/33'])] });
    const { result } = translateCluster(bad, ORIGIN);
    const file = parseConfig(
      'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: public, namespace: metallb-system}\nspec:\n  addresses: [192.0.2.0/33]\n',
      'mlb.yaml',
    );
    expect(result.ok).toBe(false);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    const fileErrors = file.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.message, d.object])).toEqual(fileErrors.map((d) => [d.code, d.message, d.object]));
    expect(errors[0]?.object).toBe('IPAddressPool/metallb-system/public');
    expect(errors[0]?.position).toBeUndefined();
  });

  it('gives the same cross-object findings as a file (two pools sharing addresses)', () => {
    const objects = cluster({ ipaddresspools: [pool('a', ['192.0.2.0/28']), pool('b', ['192.0.2.8/29'])] });
    const { result } = translateCluster(objects, ORIGIN);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain('overlappingCIDR');
  });

  it('warns about a field newer than mlb instead of refusing the cluster’s whole configuration', () => {
    const newer = l2Advertisement('l2', { ipAddressPools: ['public'], someFutureField: true });
    const objects = { ...basicCluster(), l2advertisements: [newer] };
    const { result } = translateCluster(objects, ORIGIN);
    expect(result.ok).toBe(true);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: 'warning', code: 'unknownField', object: 'L2Advertisement/metallb-system/l2' }),
    );
  });
});

describe('EndpointSlices to where each service can be served', () => {
  const services = [
    service('web', { ingress: ['192.0.2.1'] }),
    service('local', { ingress: ['192.0.2.2'], policy: 'Local' }),
    service('empty', { ingress: ['192.0.2.3'] }),
    service('web', { namespace: 'other', ingress: ['192.0.2.4'] }),
  ];

  function endpointsOf(slices: ReturnType<typeof slice>[]) {
    return translateCluster(cluster({ ...basicCluster(), services, endpointslices: slices }), ORIGIN).endpoints;
  }

  it('counts ready-unknown (absent or null) as ready, and serving-only (terminating) endpoints, but not unready ones', () => {
    const endpoints = endpointsOf([
      slice('web-1', 'web', [
        { ip: '10.0.0.1', node: 'absent' },
        { ip: '10.0.0.2', node: 'null', ready: null },
        { ip: '10.0.0.3', node: 'ready', ready: true },
        { ip: '10.0.0.4', node: 'terminating', ready: false, serving: true, terminating: true },
        { ip: '10.0.0.5', node: 'unready', ready: false },
        { ip: '10.0.0.6', node: 'stopped', ready: false, serving: false, terminating: true },
      ]),
    ]);
    expect([...(endpoints.get('default/web')?.servingNodes ?? [])]).toEqual(['absent', 'null', 'ready', 'terminating']);
    expect(endpoints.get('default/web')?.servingWithoutNode).toBeUndefined();
  });

  it('merges several slices of a service, dual-stack slices included', () => {
    const endpoints = endpointsOf([
      slice('web-v4a', 'web', [{ ip: '10.0.0.1', node: 'node-a' }]),
      slice('web-v4b', 'web', [{ ip: '10.0.0.2', node: 'node-b' }]),
      slice('web-v6', 'web', [{ ip: 'fd00::3', node: 'node-c' }], { family: 'IPv6' }),
    ]);
    expect([...(endpoints.get('default/web')?.servingNodes ?? [])]).toEqual(['node-a', 'node-b', 'node-c']);
  });

  it('counts a serving endpoint without nodeName as "somewhere", never as a node', () => {
    const endpoints = endpointsOf([slice('web-1', 'web', [{ ip: '10.0.0.1' }])]);
    expect(endpoints.get('default/web')).toEqual({ servingNodes: new Set(), servingWithoutNode: true });
  });

  it('associates slices by the kubernetes.io/service-name label in the service’s namespace only', () => {
    const endpoints = endpointsOf([
      // Named like the service but without the label: not the service's.
      slice('web-abcde', undefined, [{ ip: '10.0.0.1', node: 'unlabelled' }]),
      // The label, another namespace: that namespace's service.
      slice('web-x', 'web', [{ ip: '10.0.0.2', node: 'other-ns' }], { namespace: 'other' }),
      // Any name, the label: the service's.
      slice('custom-name', 'web', [{ ip: '10.0.0.3', node: 'labelled' }]),
    ]);
    expect([...(endpoints.get('default/web')?.servingNodes ?? [])]).toEqual(['labelled']);
    expect([...(endpoints.get('other/web')?.servingNodes ?? [])]).toEqual(['other-ns']);
  });

  it('gives a service without slices an empty entry (nobody serves it), not none', () => {
    const endpoints = endpointsOf([]);
    expect(endpoints.get('default/empty')).toEqual({ servingNodes: new Set() });
    expect([...endpoints.keys()]).toEqual(['default/empty', 'default/local', 'default/web', 'other/web']);
  });

  it('elects, for a Local service, the node whose only endpoint is terminating but still serving', () => {
    const objects = cluster({
      ...basicCluster(),
      services,
      nodes: [node('node-a'), node('node-b'), node('node-c')],
      endpointslices: [
        slice('local-1', 'local', [
          { ip: '10.0.0.1', node: 'node-a', ready: false, serving: false },
          { ip: '10.0.0.2', node: 'node-b', ready: false, serving: true, terminating: true },
        ]),
      ],
    });
    const { result, endpoints } = translateCluster(objects, ORIGIN);
    const snapshot = snapshotOf(result);
    const local = snapshot.services.find((s) => s.meta.name === 'local');
    if (!local) throw new Error('no local service');
    const election = electAll(
      { nodes: snapshot.nodes, pools: snapshot.pools, l2Advertisements: snapshot.l2Advertisements, bgpAdvertisements: [], bgpPeers: [] },
      [{ service: local, endpoints: endpoints.get('default/local') ?? { servingNodes: new Set() } }],
      undefined,
    );
    expect(election.outcomes.map((o) => o.winner)).toEqual(['node-b']);
  });
});
