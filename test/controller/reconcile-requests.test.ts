// Requested addresses, pool annotations, deprecated annotations and dual stack, as MetalLB's controller
// converges them (texts byte for byte).
import { describe, expect, it } from 'vitest';
import { Cluster, decision, pool, poolsOf, svc } from './api-fixtures';

const POOLS = poolsOf(pool('main', ['192.0.2.10-192.0.2.12']) + pool('extra', ['198.51.100.0/30']));

describe('requested addresses', () => {
  it('spec.loadBalancerIP and metallb.io/loadBalancerIPs are assigned exactly', () => {
    const cluster = new Cluster(POOLS).put(
      svc('spec', { loadBalancerIP: '192.0.2.12' }),
      svc('anno', { annotations: { 'metallb.io/loadBalancerIPs': '198.51.100.2' } }),
    );
    cluster.pass();
    expect([cluster.ingress('default/spec'), cluster.allocatedFrom('default/spec')]).toEqual([['192.0.2.12'], 'main']);
    expect([cluster.ingress('default/anno'), cluster.allocatedFrom('default/anno')]).toEqual([['198.51.100.2'], 'extra']);
  });

  it('both set: AllocationFailed on a fresh Service, LoadBalancerFailed on one that holds an IP', () => {
    const both = { loadBalancerIP: '192.0.2.12', annotations: { 'metallb.io/loadBalancerIPs': '192.0.2.11' } };
    const out = new Cluster(POOLS).put(svc('fresh', both), svc('holding', { ...both, ingress: [{ ip: '192.0.2.10' }] })).pass();
    const text = 'service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP';
    expect(decision(out, 'default/fresh').events).toEqual([
      { type: 'Warning', reason: 'AllocationFailed', message: `Failed to allocate IP for "default/fresh": ${text}` },
    ]);
    expect(decision(out, 'default/holding').events).toEqual([
      { type: 'Warning', reason: 'LoadBalancerFailed', message: `invalid requested loadbalancer IPs: ${text}` },
    ]);
  });

  it('an address of the wrong family fails with MetalLB’s text', () => {
    const d = decision(new Cluster(POOLS).put(svc('v4', { loadBalancerIP: '2001:db8::5' })).pass(), 'default/v4');
    expect(d.events.map((e) => e.message)).toEqual([
      'Failed to allocate IP for "default/v4": requested loadBalancer IP(s) ["2001:db8::5"] does not match the ipFamily of the service',
    ]);
  });

  it('changing the requested address moves the Service to it', () => {
    const cluster = new Cluster(POOLS).put(svc('a', { loadBalancerIP: '192.0.2.11' }));
    cluster.pass();
    cluster.put({ ...cluster.get('default/a'), spec: { ...cluster.get('default/a').spec, loadBalancerIP: '192.0.2.12' } });
    const d = decision(cluster.pass(), 'default/a');
    expect(d.events.map((e) => e.message)).toEqual(['Assigned IP ["192.0.2.12"]']);
    expect(cluster.ingress('default/a')).toEqual(['192.0.2.12']);
  });
});

describe('address-pool annotation', () => {
  it('a change of the annotation moves the Service to the other pool (no ClearAssignment, as MetalLB)', () => {
    const cluster = new Cluster(POOLS).put(svc('a'));
    cluster.pass();
    expect(cluster.allocatedFrom('default/a')).toBe('extra');
    const a = cluster.get('default/a');
    cluster.put({ ...a, metadata: { ...a.metadata, annotations: { ...a.metadata.annotations, 'metallb.io/address-pool': 'main' } } });
    const d = decision(cluster.pass(), 'default/a');
    expect(d.events).toEqual([{ type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["192.0.2.10"]' }]);
    expect(cluster.allocatedFrom('default/a')).toBe('main');
  });

  it('the deprecated metallb.universe.tf/ form is read, and warned about on the pass that writes', () => {
    const cluster = new Cluster(POOLS).put(svc('old', { annotations: { 'metallb.universe.tf/address-pool': 'extra' } }));
    const d = decision(cluster.pass(), 'default/old');
    expect(cluster.ingress('default/old')).toEqual(['198.51.100.0']);
    expect(d.events).toEqual([
      { type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["198.51.100.0"]' },
      { type: 'Warning', reason: 'deprecatedAnnotation', message: 'Service uses deprecated annotation metallb.universe.tf/address-pool' },
    ]);
    expect(decision(cluster.pass(), 'default/old').events).toEqual([]);
  });

  it('metallb.io/ wins over metallb.universe.tf/ when both are there', () => {
    const annotations = { 'metallb.io/address-pool': 'main', 'metallb.universe.tf/address-pool': 'extra' };
    const cluster = new Cluster(POOLS).put(svc('both', { annotations }));
    cluster.pass();
    expect(cluster.allocatedFrom('default/both')).toBe('main');
  });
});

describe('dual stack', () => {
  const DUAL = poolsOf(
    pool('v4', ['192.0.2.0/30']) +
      pool('v6', ['2001:db8::/126']) +
      pool('both', ['203.0.113.0/30', '2001:db8:1::/126'], '  autoAssign: false'),
  );

  it('RequireDualStack with one cluster IP: "not enough clusterips" and nothing assigned', () => {
    const s = svc('req', { ipFamilyPolicy: 'RequireDualStack', clusterIPs: ['10.96.0.1'], ingress: [{ ip: '192.0.2.1' }] });
    const d = decision(new Cluster(DUAL).put(s).pass(), 'default/req');
    expect(d.events).toEqual([
      { type: 'Warning', reason: 'not enough clusterips', message: 'Service requires dual stack but not enough clusterips [10.96.0.1]' },
    ]);
    expect(d.write?.status?.loadBalancer).toEqual({});
  });

  it('the family comes from clusterIPs, not from spec.ipFamilies', () => {
    const cluster = new Cluster(DUAL).put(svc('six', { clusterIPs: ['fd00::10'], ipFamilies: ['IPv4'] }));
    cluster.pass();
    expect(cluster.ingress('default/six')).toEqual(['2001:db8::']);
  });

  it('RequireDualStack with two cluster IPs gets one address of each family from one pool', () => {
    const s = svc('dual', {
      ipFamilyPolicy: 'RequireDualStack',
      clusterIPs: ['10.96.0.1', 'fd00::1'],
      annotations: { 'metallb.io/address-pool': 'both' },
    });
    const cluster = new Cluster(DUAL).put(s);
    const d = decision(cluster.pass(), 'default/dual');
    expect(cluster.ingress('default/dual')).toEqual(['203.0.113.0', '2001:db8:1::']);
    expect(d.events.map((e) => e.message)).toEqual(['Assigned IP ["203.0.113.0" "2001:db8:1::"]']);
  });

  it('PreferDualStack on a one-family pool gets one address, and the other once the pool gains that family', () => {
    const only4 = poolsOf(pool('p', ['192.0.2.0/30']));
    const s = svc('pref', { ipFamilyPolicy: 'PreferDualStack', clusterIPs: ['10.96.0.1', 'fd00::1'] });
    const cluster = new Cluster(only4).put(s);
    cluster.pass();
    expect(cluster.ingress('default/pref')).toEqual(['192.0.2.0']);
    cluster.pools = poolsOf(pool('p', ['192.0.2.0/30', '2001:db8::/126']));
    const d = decision(cluster.pass(), 'default/pref');
    expect(d.events).toEqual([{ type: 'Normal', reason: 'IPAllocated', message: 'Assigned additional IP "2001:db8::"' }]);
    expect(cluster.ingress('default/pref')).toEqual(['192.0.2.0', '2001:db8::']);
  });

  it('PreferDualStack with IPv6 primary (ipFamilies [IPv6, IPv4]) falls back to the IPv6 pool first', () => {
    const s = svc('pref6', { ipFamilyPolicy: 'PreferDualStack', clusterIPs: ['fd00::1', '10.96.0.1'], ipFamilies: ['IPv6', 'IPv4'] });
    const cluster = new Cluster(poolsOf(pool('a4', ['192.0.2.0/30']) + pool('b6', ['2001:db8::/126']))).put(s);
    cluster.pass();
    expect([cluster.ingress('default/pref6'), cluster.allocatedFrom('default/pref6')]).toEqual([['2001:db8::'], 'b6']);
  });
});

describe('serviceAllocation namespaceSelectors', () => {
  it('read the labels of the Service’s Namespace', async () => {
    const { reconcileServices, EMPTY_MEMORY } = await import('../../src/controller/reconcile-services');
    const pools = poolsOf(
      pool('general', ['192.0.2.0/30']) +
        pool('team', ['198.51.100.0/30'], '  serviceAllocation: {priority: 1, namespaceSelectors: [{matchLabels: {team: blue}}]}'),
    );
    const run = (labels: Record<string, string>) =>
      reconcileServices({
        pools,
        namespaceLabels: new Map([['apps', labels]]),
        services: [svc('web', { namespace: 'apps' })],
        options: {},
        memory: EMPTY_MEMORY,
      }).decisions[0]?.desired;
    expect(run({ team: 'blue' })).toMatchObject({ kind: 'assigned', pool: 'team' });
    expect(run({})).toMatchObject({ kind: 'assigned', pool: 'general' });
  });
});
