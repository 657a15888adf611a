// Shared addresses across Services (allow-shared-ip, ports, backend keys) and the restart ordering that keeps
// a pending Service from taking an address a holder has not been seen with yet (metallb#1774, #2443).
import { describe, expect, it } from 'vitest';
import { Cluster, decision, pool, poolsOf, svc } from './api-fixtures';

const ONE = poolsOf(pool('one', ['192.0.2.7/32']));
const share = (name: string, port: number, extra: Parameters<typeof svc>[1] = {}) =>
  svc(name, { annotations: { 'metallb.io/allow-shared-ip': 'k' }, ports: [{ port, protocol: 'TCP' }], ...extra });

describe('sharing keys', () => {
  it('Services with one key and distinct ports share the address; a port clash is refused with MetalLB’s text', () => {
    const cluster = new Cluster(ONE).put(share('a', 80), share('b', 443), share('c', 80));
    const out = cluster.pass();
    expect([cluster.ingress('default/a'), cluster.ingress('default/b')]).toEqual([['192.0.2.7'], ['192.0.2.7']]);
    expect(decision(out, 'default/c').events.map((e) => e.message)).toEqual(['Failed to allocate IP for "default/c": no available IPs']);
  });

  it('backend keys: with externalTrafficPolicy Local only Services selecting the same pods share', () => {
    const local = (name: string, port: number, app: string) => share(name, port, { externalTrafficPolicy: 'Local', selector: { app } });
    const cluster = new Cluster(ONE).put(local('a', 80, 'x'), local('b', 443, 'y'));
    const out = cluster.pass();
    expect(cluster.ingress('default/a')).toEqual(['192.0.2.7']);
    expect(decision(out, 'default/b').result).toMatchObject({ status: 'failed', code: 'noAvailableIPs' });
  });

  it('deleting one of several sharers keeps the IP; deleting the last frees it and a pending Service gets it', () => {
    const cluster = new Cluster(ONE).put(share('a', 80), share('b', 443), svc('pending'));
    const first = cluster.pass();
    expect(decision(first, 'default/pending').events.map((e) => e.reason)).toEqual(['AllocationFailed']);

    cluster.delete('default/a');
    const second = cluster.pass();
    expect(decision(second, 'default/b').write).toBeUndefined();
    expect(decision(second, 'default/pending').result).toMatchObject({ status: 'failed' });

    cluster.delete('default/b');
    const third = cluster.pass();
    expect(third.released.map((r) => r.service)).toEqual(['default/b']);
    expect(decision(third, 'default/pending').events).toEqual([
      { type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["192.0.2.7"]' },
    ]);
    expect(cluster.ingress('default/pending')).toEqual(['192.0.2.7']);
  });
});

describe('restart', () => {
  it('Services holding IPs in their status are re-assigned first: a pending Service listed before them takes nothing', () => {
    // "aaa" sorts (and would be listed) before "zzz"; only zzz's status says it holds the one address.
    const cluster = new Cluster(ONE).put(
      svc('aaa'),
      svc('zzz', { ingress: [{ ip: '192.0.2.7', ipMode: 'VIP' }], annotations: { 'metallb.io/ip-allocated-from-pool': 'one' } }),
    );
    const out = cluster.restart().pass();
    expect(decision(out, 'default/zzz')).toMatchObject({ reason: 'allocated', events: [], differences: [] });
    expect(decision(out, 'default/zzz').write).toBeUndefined();
    expect(decision(out, 'default/aaa').events.map((e) => e.message)).toEqual([
      'Failed to allocate IP for "default/aaa": no available IPs',
    ]);
  });

  it('after a restart a steady cluster writes nothing and emits nothing', () => {
    const pools = poolsOf(pool('main', ['192.0.2.0/28']));
    const cluster = new Cluster(pools).put(svc('a'), svc('b', { loadBalancerIP: '192.0.2.9' }), share('c', 80), share('d', 81));
    cluster.pass();
    const out = cluster.restart().pass();
    expect(out.decisions.filter((d) => d.write !== undefined || d.events.length > 0)).toEqual([]);
  });
});
