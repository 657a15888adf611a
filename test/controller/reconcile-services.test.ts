// The controller's pass over every Service: what it writes (status + ip-allocated-from-pool annotation, PUT on
// /status), when it writes nothing, which Services it leaves alone, and what it clears.
import { describe, expect, it } from 'vitest';
import { Cluster, decision, pool, poolsOf, svc } from './api-fixtures';

const POOLS = poolsOf(pool('main', ['192.0.2.10-192.0.2.12']));

describe('a new LoadBalancer Service', () => {
  it('gets status.loadBalancer.ingress with the IP only and the ip-allocated-from-pool annotation, with IPAllocated', () => {
    const cluster = new Cluster(POOLS).put(svc('web'));
    const out = cluster.pass();
    const d = decision(out, 'default/web');
    expect(d.write?.status?.loadBalancer).toEqual({ ingress: [{ ip: '192.0.2.10' }] });
    expect(d.write?.metadata.annotations).toEqual({ 'metallb.io/ip-allocated-from-pool': 'main' });
    expect(d.write?.metadata.resourceVersion).toBe('1');
    expect(d.write?.spec).toEqual(svc('web').spec);
    expect(d.differences).toEqual(['status.loadBalancer', 'metadata.annotations']);
    expect(d.events).toEqual([{ type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["192.0.2.10"]' }]);
  });

  it('needs no second write, even after the API server defaulted ipMode: VIP', () => {
    const cluster = new Cluster(POOLS).put(svc('web'));
    cluster.pass();
    expect(cluster.get('default/web').status?.loadBalancer?.ingress).toEqual([{ ipMode: 'VIP', ip: '192.0.2.10' }]);
    const again = decision(cluster.pass(), 'default/web');
    expect(again.write).toBeUndefined();
    expect(again.events).toEqual([]);
    expect(again.reason).toBe('allocated');
  });

  it('is rewritten when another writer replaced the ingress (ports, another ipMode) or removed the annotation', () => {
    const cluster = new Cluster(POOLS).put(svc('web'));
    cluster.pass();
    const s = cluster.get('default/web');
    cluster.put({
      ...s,
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10', ipMode: 'Proxy' }] } },
      metadata: { ...s.metadata, annotations: {} },
    });
    const d = decision(cluster.pass(), 'default/web');
    expect(d.differences).toEqual(['status.loadBalancer', 'metadata.annotations']);
    expect(d.write?.status?.loadBalancer).toEqual({ ingress: [{ ip: '192.0.2.10' }] });
    expect(d.events).toEqual([]);
  });

  it('decides nothing before a configuration was ever loaded', () => {
    const out = new Cluster(undefined).put(svc('web')).pass();
    expect(out.waiting).toBe('no configuration loaded yet');
    expect(out.decisions).toEqual([]);
  });
});

describe('loadBalancerClass (--lb-class), both ways', () => {
  it('without --lb-class, Services with a class are not touched, even holding a foreign address', () => {
    const foreign = svc('other', { lbClass: 'vendor.example/lb', ingress: [{ ip: '198.51.100.1' }] });
    const out = new Cluster(POOLS).put(foreign, svc('mine')).pass();
    expect(out.decisions.map((d) => d.service)).toEqual(['default/mine']);
  });

  it('with --lb-class, only Services of exactly that class are handled', () => {
    const out = new Cluster(POOLS, 'mlb').put(svc('classless'), svc('ours', { lbClass: 'mlb' }), svc('theirs', { lbClass: 'x' })).pass();
    expect(out.decisions.map((d) => [d.service, d.write?.status?.loadBalancer])).toEqual([
      ['default/ours', { ingress: [{ ip: '192.0.2.10' }] }],
    ]);
  });
});

describe('deletes', () => {
  it('a Service this controller never handled leaves no trace; a handled one releases its IP', () => {
    const cluster = new Cluster(POOLS, 'mlb').put(
      svc('theirs', { lbClass: 'x', ingress: [{ ip: '192.0.2.10' }] }),
      svc('ours', { lbClass: 'mlb' }),
    );
    cluster.pass();
    cluster.delete('default/theirs');
    expect(cluster.pass().released).toEqual([]);
    cluster.delete('default/ours');
    expect(cluster.pass().released.map((r) => r.message)).toEqual(['service default/ours deleted: released 192.0.2.10']);
  });

  it('a Service deleted and created again under the same name (new uid) does not inherit the old memory', () => {
    const cluster = new Cluster(POOLS).put(svc('a'), svc('b'));
    cluster.pass();
    cluster.delete('default/a').put(svc('a', { uid: 'uid-a-2', loadBalancerIP: '192.0.2.12' }));
    const d = decision(cluster.pass(), 'default/a');
    expect(d.write?.status?.loadBalancer).toEqual({ ingress: [{ ip: '192.0.2.12' }] });
  });
});

describe('clearing', () => {
  it('a Service that is not a LoadBalancer loses status.loadBalancer and the annotation, without an event', () => {
    const stale = svc('old', {
      type: 'ClusterIP',
      ingress: [{ ip: '192.0.2.11' }],
      annotations: { 'metallb.io/ip-allocated-from-pool': 'main', keep: 'me' },
    });
    const d = decision(new Cluster(POOLS).put(stale).pass(), 'default/old');
    expect(d.reason).toBe('notLoadBalancer');
    expect(d.write?.status?.loadBalancer).toEqual({});
    expect(d.write?.metadata.annotations).toEqual({ keep: 'me' });
    expect(d.events).toEqual([]);
  });

  it('a type change away from LoadBalancer frees the IP for the next Service', () => {
    const pools = poolsOf(pool('one', ['192.0.2.50/32']));
    const cluster = new Cluster(pools).put(svc('a'));
    cluster.pass();
    const a = cluster.get('default/a');
    cluster.put({ ...a, spec: { ...a.spec, type: 'NodePort' } }, svc('b'));
    const out = cluster.pass();
    expect(decision(out, 'default/a').write?.status?.loadBalancer).toEqual({});
    expect(cluster.ingress('default/b')).toEqual(['192.0.2.50']);
    expect(cluster.allocatedFrom('default/a')).toBeUndefined();
  });

  it('a pool change that no longer holds the IP clears it with ClearAssignment and allocates anew', () => {
    const cluster = new Cluster(POOLS).put(svc('web'));
    cluster.pass();
    cluster.pools = poolsOf(pool('next', ['203.0.113.0/30']));
    const d = decision(cluster.pass(), 'default/web');
    expect(d.events).toEqual([
      {
        type: 'Normal',
        reason: 'ClearAssignment',
        message:
          'current IP for "default/web" not allowed by config, will attempt for new IP assignment: ["192.0.2.10"] is not allowed in config',
      },
      { type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["203.0.113.0"]' },
    ]);
    expect(cluster.ingress('default/web')).toEqual(['203.0.113.0']);
    expect(cluster.allocatedFrom('default/web')).toBe('next');
  });

  it('removing every pool strips every Service of its IP and annotation, without events (MetalLB: noConfig)', () => {
    const cluster = new Cluster(POOLS).put(svc('web'), svc('api'));
    cluster.pass();
    cluster.pools = [];
    const out = cluster.pass();
    expect(out.decisions.map((d) => [d.service, d.reason, d.result?.status === 'failed' && d.result.code, d.events])).toEqual([
      ['default/api', 'allocationFailed', 'noPools', []],
      ['default/web', 'allocationFailed', 'noPools', []],
    ]);
    expect(cluster.ingress('default/web')).toEqual([]);
    expect(cluster.allocatedFrom('default/api')).toBeUndefined();
  });

  it('a Service without cluster IPs is cleared (noClusterIPs), without an event', () => {
    const d = decision(
      new Cluster(POOLS).put(svc('headless', { clusterIPs: [], ingress: [{ ip: '192.0.2.10' }] })).pass(),
      'default/headless',
    );
    expect([d.reason, d.write?.status?.loadBalancer, d.events]).toEqual(['noClusterIPs', {}, []]);
  });
});

describe('events: a transition once, a failure on every pass', () => {
  it('a failing Service warns on every pass while it fails (MetalLB records each failing reconcile), with the new text when it changes', () => {
    const cluster = new Cluster(POOLS).put(svc('x', { annotations: { 'metallb.io/address-pool': 'nope' } }));
    const nope = { type: 'Warning', reason: 'AllocationFailed', message: 'Failed to allocate IP for "default/x": unknown pool "nope"' };
    expect(decision(cluster.pass(), 'default/x').events).toEqual([nope]);
    expect(decision(cluster.pass(), 'default/x').events).toEqual([nope]);
    cluster.put(svc('x', { annotations: { 'metallb.io/address-pool': 'gone' } }));
    expect(decision(cluster.pass(), 'default/x').events.map((e) => e.message)).toEqual([
      'Failed to allocate IP for "default/x": unknown pool "gone"',
    ]);
  });

  it('an allocated Service says IPAllocated once, not on every pass', () => {
    const cluster = new Cluster(POOLS).put(svc('x'));
    expect(decision(cluster.pass(), 'default/x').events.map((e) => e.reason)).toEqual(['IPAllocated']);
    expect(decision(cluster.pass(), 'default/x').events).toEqual([]);
  });

  it('held addresses without a family warn nolbIPsIPFamily, then are replaced', () => {
    const d = decision(new Cluster(POOLS).put(svc('x', { ingress: [{ ip: '192.0.2.10' }, { ip: '192.0.2.11' }] })).pass(), 'default/x');
    expect(d.events).toEqual([
      {
        type: 'Warning',
        reason: 'nolbIPsIPFamily',
        message:
          'Failed to retrieve LBIPs IPFamily for ["192.0.2.10" "192.0.2.11"]: IPFamilyForAddresses: same address family ["192.0.2.10" "192.0.2.11"]',
      },
      { type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["192.0.2.10"]' },
    ]);
  });
});
