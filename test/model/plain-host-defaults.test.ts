/**
 * What mlb fills in on plain hosts in the place of Kubernetes, in the model so the daemon and `mlb validate`
 * agree: a Service's ipFamilies from the addresses it requests (the API server's job in a cluster), and the
 * kubelet's kubernetes.io/hostname and kubernetes.io/os labels on every Node, documented or only a live member.
 */
import { describe, expect, it } from 'vitest';
import { electionNodes } from '../../src/daemon/cluster-decision';
import { encodeNodeMeta } from '../../src/gossip/node-meta';
import { memberFacts } from '../../src/gossip/member-facts';
import { parseConfig } from '../../src/model';
import { parseOk } from './parse-helpers';

const service = (metadata: string, spec: string, type = 'LoadBalancer'): string =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n${metadata}spec:\n  type: ${type}\n  ports: [{ port: 80 }]\n${spec}`;
const annotated = (value: string, key = 'metallb.io/loadBalancerIPs') => `  annotations:\n    ${key}: "${value}"\n`;

function families(text: string): { policy: string; families: readonly string[]; notes: string[] } {
  const result = parseConfig(text, 'test.yaml');
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  const [svc] = result.snapshot.services;
  return {
    policy: svc!.ipFamilyPolicy,
    families: svc!.ipFamilies,
    notes: result.diagnostics.filter((d) => d.severity === 'note').map((d) => d.message),
  };
}

describe('ipFamilies of a Service that writes none', () => {
  it('takes the family of spec.loadBalancerIP or of the annotation (legacy prefix too)', () => {
    expect(families(service('', '  loadBalancerIP: "2001:db8::5"\n'))).toMatchObject({ policy: 'SingleStack', families: ['IPv6'] });
    expect(families(service(annotated('2001:db8::5', 'metallb.universe.tf/loadBalancerIPs'), ''))).toMatchObject({
      families: ['IPv6'],
      notes: ['service default/web: ipFamilies defaulted to [IPv6] (none written; from metallb.universe.tf/loadBalancerIPs)'],
    });
  });

  it('takes both families, in the order requested, under PreferDualStack unless a policy is written', () => {
    expect(families(service(annotated('2001:db8::5, 192.0.2.5'), ''))).toMatchObject({
      policy: 'PreferDualStack',
      families: ['IPv6', 'IPv4'],
    });
    expect(families(service(annotated('192.0.2.5,2001:db8::5'), '  ipFamilyPolicy: RequireDualStack\n'))).toMatchObject({
      policy: 'RequireDualStack',
      families: ['IPv4', 'IPv6'],
    });
    // SingleStack keeps one family; the allocator then refuses the request and says why.
    expect(families(service(annotated('192.0.2.5,2001:db8::5'), '  ipFamilyPolicy: SingleStack\n'))).toMatchObject({
      policy: 'SingleStack',
      families: ['IPv4'],
    });
  });

  it('falls back to IPv4 when nothing, or nothing the allocator accepts, is requested', () => {
    expect(families(service('', '')).families).toEqual(['IPv4']);
    expect(families(service(annotated('192.0.2.5,192.0.2.6'), '')).families).toEqual(['IPv4']);
    expect(families(service(annotated('2001:db8::5'), '  loadBalancerIP: "2001:db8::6"\n')).families).toEqual(['IPv4']);
    expect(families(service('', '  ipFamilyPolicy: RequireDualStack\n')).families).toEqual(['IPv4', 'IPv6']);
  });

  it('leaves written ipFamilies alone, and notes only LoadBalancer Services', () => {
    expect(families(service('', '  ipFamilies: [IPv4]\n  loadBalancerIP: "2001:db8::5"\n'))).toMatchObject({
      families: ['IPv4'],
      notes: [],
    });
    expect(families(service('', '', 'ClusterIP')).notes).toEqual([]);
  });
});

describe("the kubelet's labels on plain-host Nodes", () => {
  it('gives a Node document kubernetes.io/hostname and kubernetes.io/os; labels written win', () => {
    const [a, b] = parseOk(
      'apiVersion: v1\nkind: Node\nmetadata: { name: a }\n---\n' +
        'apiVersion: v1\nkind: Node\nmetadata: { name: b, labels: { kubernetes.io/hostname: b.example.com, rack: r1 } }\n',
    ).nodes;
    expect(a?.meta.labels).toEqual({ 'kubernetes.io/hostname': 'a', 'kubernetes.io/os': 'linux' });
    expect(b?.meta.labels).toEqual({ 'kubernetes.io/hostname': 'b.example.com', 'kubernetes.io/os': 'linux', rack: 'r1' });
  });

  it('gives them to a live member that no Node document describes, and to one only known by name', () => {
    const meta = encodeNodeMeta({ labels: { zone: 'z1' }, conditions: [], draining: false, warmingUp: false });
    const facts = memberFacts([{ name: 'node-1', meta }]);
    const nodes = electionNodes(parseOk('apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata: { name: l2 }\n'), facts, [
      { name: 'node-2' },
    ]);
    expect(nodes.map((n) => [n.meta.name, n.meta.labels])).toEqual([
      ['node-2', { 'kubernetes.io/hostname': 'node-2', 'kubernetes.io/os': 'linux' }],
      ['node-1', { 'kubernetes.io/hostname': 'node-1', 'kubernetes.io/os': 'linux', zone: 'z1' }],
    ]);
  });
});
