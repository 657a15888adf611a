// The controller allocates with the file mode's allocator: the same objects give the same addresses, pools and
// error texts whether `mlb validate` reads them from a file or the controller from the API.
import { describe, expect, it } from 'vitest';
import { allocateFile, allocationProblems, type AllocationResult } from '../../src/allocator';
import { formatIP } from '../../src/ip';
import { Cluster, servicesOf, snapshotOf } from './api-fixtures';

const CONFIG = `
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: web, namespace: metallb-system}
spec: {addresses: [192.0.2.0/30], avoidBuggyIPs: true}
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: dual, namespace: metallb-system}
spec: {addresses: [198.51.100.8/31, "2001:db8::/126"], autoAssign: false}
---
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: {name: pinned, namespace: metallb-system}
spec:
  addresses: [203.0.113.0/31]
  serviceAllocation: {priority: 10, namespaces: [team]}
---
apiVersion: v1
kind: Service
metadata: {name: auto-1, namespace: demo}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.1], ipFamilies: [IPv4], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: auto-2, namespace: demo}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.2], ipFamilies: [IPv4], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: auto-3, namespace: demo}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.3], ipFamilies: [IPv4], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: pinned, namespace: team}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.4], ipFamilies: [IPv4], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: dual, namespace: demo, annotations: {metallb.io/address-pool: dual}}
spec:
  type: LoadBalancer
  clusterIPs: [10.96.0.5, "fd00::5"]
  ipFamilies: [IPv4, IPv6]
  ipFamilyPolicy: RequireDualStack
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: requested, namespace: demo, annotations: {metallb.io/loadBalancerIPs: 198.51.100.9}}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.6], ipFamilies: [IPv4], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: outside, namespace: demo}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.7], ipFamilies: [IPv4], loadBalancerIP: 192.0.2.0, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: unknown-pool, namespace: demo, annotations: {metallb.io/address-pool: nope}}
spec: {type: LoadBalancer, clusterIPs: [10.96.0.8], ipFamilies: [IPv4], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: internal, namespace: demo}
spec: {type: ClusterIP, clusterIPs: [10.96.0.9], ipFamilies: [IPv4], ports: [{port: 80}]}
`;

function summary(r: AllocationResult | undefined): string {
  if (r === undefined) return 'none';
  if (r.status === 'assigned') return `${r.pool} ${r.ips.map(formatIP).join(',')}`;
  if (r.status === 'failed') return `failed: ${r.event}`;
  return `skipped ${r.reason}`;
}

describe('file mode and controller agree', () => {
  const snapshot = snapshotOf(CONFIG);
  const file = allocateFile(snapshot);
  const cluster = new Cluster(snapshot.pools).put(...servicesOf(CONFIG));
  const out = cluster.pass();

  it('on every Service’s addresses, pool and failure text', () => {
    const fromController = new Map(out.decisions.map((d) => [d.service, summary(d.result)]));
    const fromFile = new Map([...file.results].map(([k, r]) => [k, r.status === 'skipped' ? 'skipped notLoadBalancer' : summary(r)]));
    fromController.set('demo/internal', 'skipped notLoadBalancer');
    expect(fromController).toEqual(fromFile);
    // The input really exercises success, pinning, dual stack, requests and failures.
    expect([...fromFile.values()].sort()).toEqual([
      'dual 198.51.100.8,2001:db8::',
      'dual 198.51.100.9',
      'failed: Failed to allocate IP for "demo/outside": ["192.0.2.0"] is not allowed in config',
      'failed: Failed to allocate IP for "demo/unknown-pool": unknown pool "nope"',
      'pinned 203.0.113.0',
      'skipped notLoadBalancer',
      'web 192.0.2.1',
      'web 192.0.2.2',
      'web 192.0.2.3',
    ]);
  });

  it('the AllocationFailed events carry the texts `mlb validate` reports for the file', () => {
    const warnings = out.decisions.flatMap((d) => d.events.filter((e) => e.reason === 'AllocationFailed').map((e) => e.message));
    const problems = allocationProblems(snapshot, file).map((p) => p.message);
    expect(warnings.map((w) => w.replace(/^Failed to allocate IP for "([^"]+)": /, 'service $1 gets no IP: '))).toEqual(
      problems.map((p) => p.replace(/ \(.*\)$/, '')).sort(),
    );
  });

  it('the status written is what the file mode allocates', () => {
    expect(cluster.ingress('demo/dual')).toEqual(['198.51.100.8', '2001:db8::']);
    expect(cluster.allocatedFrom('team/pinned')).toBe('pinned');
  });
});
