// Choosing the pool and the address: MetalLB's Allocate / AllocateFromPool / getIPFromCIDR behaviours.
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { type AllocationResult, allocateService, allocateServices } from '../../src/allocator';
import { DUAL, PREFER_DUAL, V6, pool, selector, service } from './factories';

function got(r: AllocationResult | undefined): string {
  if (r === undefined) return 'missing';
  if (r.status === 'assigned') return `${r.pool} ${r.ips.map(formatIP).join(',')} (${r.reason})`;
  if (r.status === 'failed') return `failed: ${r.error}`;
  return `skipped: ${r.reason}`;
}

function run(...args: Parameters<typeof allocateServices>): Map<string, string> {
  const { results } = allocateServices(...args);
  return new Map([...results].map(([k, r]) => [k, got(r)]));
}

describe('addresses inside a pool', () => {
  it('takes CIDRs in the order written, lowest address first', () => {
    const p = pool('p', ['10.0.5.0/30', '10.0.1.0/31']);
    const services = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => service(n));
    const r = run({ pools: [p], services });
    expect([...r.values()]).toEqual([
      'p 10.0.5.0 (autoAssign)',
      'p 10.0.5.1 (autoAssign)',
      'p 10.0.5.2 (autoAssign)',
      'p 10.0.5.3 (autoAssign)',
      'p 10.0.1.0 (autoAssign)',
      'p 10.0.1.1 (autoAssign)',
      'failed: no available IPs',
    ]);
  });

  it('skips .0 and .255 with avoidBuggyIPs, across /24 boundaries', () => {
    const p = pool('p', ['10.0.0.254-10.0.1.1'], { avoidBuggyIPs: true });
    const r = run({ pools: [p], services: ['a', 'b', 'c'].map((n) => service(n)) });
    expect([...r.values()]).toEqual(['p 10.0.0.254 (autoAssign)', 'p 10.0.1.1 (autoAssign)', 'failed: no available IPs']);
  });

  it('reuses a shareable address before a free one, and skips one it may not share', () => {
    const p = pool('p', ['10.0.0.0/29']);
    const r = run({
      pools: [p],
      services: [
        service('a', { share: 'k', ports: [80] }),
        service('b', { share: 'k', ports: [443] }), // shares a's address
        service('c', { share: 'k', ports: [80] }), // port 80 taken on .0: next address
        service('d', { ports: [53] }), // no key: a free address
      ],
    });
    expect([...r.values()]).toEqual([
      'p 10.0.0.0 (autoAssign)',
      'p 10.0.0.0 (autoAssign)',
      'p 10.0.0.1 (autoAssign)',
      'p 10.0.0.2 (autoAssign)',
    ]);
  });

  it('shares only with the same backend key under externalTrafficPolicy=Local', () => {
    const p = pool('p', ['10.0.0.0/29']);
    const local = { share: 'k', externalTrafficPolicy: 'Local' as const };
    const r = run({
      pools: [p],
      services: [
        service('a', { ...local, ports: [80], selector: { app: 'x' } }),
        service('b', { ...local, ports: [81], selector: { app: 'y' } }),
        service('c', { ...local, ports: [82], selector: { app: 'x' } }),
      ],
    });
    expect([...r.values()]).toEqual(['p 10.0.0.0 (autoAssign)', 'p 10.0.0.1 (autoAssign)', 'p 10.0.0.0 (autoAssign)']);
  });

  it('finds the next free address in a nearly full /16 quickly and hands out a /64 in order', () => {
    const v4 = pool('big', ['10.1.0.0/16']);
    const services = Array.from({ length: 65536 }, (_, i) => service(`s${String(i).padStart(5, '0')}`));
    const { results, usage, state } = allocateServices({ pools: [v4], services });
    expect(got(results.get('demo/s00000'))).toBe('big 10.1.0.0 (autoAssign)');
    expect(got(results.get('demo/s65535'))).toBe('big 10.1.255.255 (autoAssign)');
    expect(usage[0]).toMatchObject({ total: 65536n, inUse: 65536, availableIPv4: 0n });
    // One more service against the full /16, fed incrementally.
    expect(got(allocateService(state, service('zzz')).result)).toBe('failed: no available IPs');
    // Free one address in the middle: the next service gets exactly that one.
    const freed = state.unassign('demo/s40000');
    expect(got(allocateService(freed, service('zzz')).result)).toBe('big 10.1.156.64 (autoAssign)');

    const v6 = pool('v6', ['fc00::/64']);
    const r = run({ pools: [v6], services: ['a', 'b', 'c'].map((n) => service(n, V6)) });
    expect([...r.values()]).toEqual(['v6 fc00:: (autoAssign)', 'v6 fc00::1 (autoAssign)', 'v6 fc00::2 (autoAssign)']);
  });
});

describe('which pool (MetalLB Allocate)', () => {
  it('uses pinned pools by priority (0 last, then name) before default pools', () => {
    const pools = [
      pool('default', ['10.0.0.0/30']),
      pool('p-zero', ['10.0.1.0/30'], { serviceAllocation: { namespaces: ['demo'] } }),
      pool('p-20', ['10.0.2.0/30'], { serviceAllocation: { priority: 20, namespaces: ['demo'] } }),
      pool('p-10', ['10.0.3.0/32'], { serviceAllocation: { priority: 10, namespaces: ['demo'] } }),
      pool('other-ns', ['10.0.4.0/30'], { serviceAllocation: { priority: 1, namespaces: ['other'] } }),
    ];
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n'];
    const r = run({ pools, services: names.map((n) => service(n)) });
    expect([...r.values()].map((v) => v.split(' ')[0])).toEqual([
      'p-10', // priority 10
      'p-20',
      'p-20',
      'p-20',
      'p-20', // priority 20
      'p-zero',
      'p-zero',
      'p-zero',
      'p-zero', // priority 0 sorts last among pinned
      'default',
      'default',
      'default',
      'default', // only when no pinned pool can serve
      'failed:',
    ]);
  });

  it('pins by service selector; an empty serviceAllocation pins everyone and leaves the default group', () => {
    const pools = [
      pool('default', ['10.0.0.0/30']),
      pool('team', ['10.0.1.0/30'], { serviceAllocation: { serviceSelectors: [selector({ team: 'a' })] } }),
      pool('everyone', ['10.0.2.0/30'], { serviceAllocation: { priority: 5 } }),
    ];
    const r = run({
      pools,
      services: [service('x', { labels: { team: 'a' } }), service('y')],
    });
    expect(r.get('demo/x')).toBe('everyone 10.0.2.0 (pinnedPool)');
    expect(r.get('demo/y')).toBe('everyone 10.0.2.1 (pinnedPool)');
  });

  it('never hands out autoAssign=false pools automatically, but does on request', () => {
    const pools = [pool('manual', ['10.0.0.0/30'], { autoAssign: false })];
    const r = run({
      pools,
      services: [service('auto'), service('ip', { requestIPs: '10.0.0.2' }), service('named', { addressPool: 'manual' })],
    });
    expect(r.get('demo/auto')).toBe('failed: no available IPs');
    expect(r.get('demo/ip')).toBe('manual 10.0.0.2 (requested)');
    expect(r.get('demo/named')).toBe('manual 10.0.0.0 (poolRequested)');
  });

  it('resolves namespaceSelectors through namespaceLabels', () => {
    const pools = [
      pool('default', ['10.0.0.0/30']),
      pool('prod', ['10.0.1.0/30'], {
        serviceAllocation: { namespaceSelectors: [selector({ env: 'prod' })] },
      }),
    ];
    const services = [service('a', { namespace: 'shop' }), service('b', { namespace: 'dev' })];
    const known = run({
      pools,
      services,
      namespaceLabels: new Map([
        ['shop', { env: 'prod' }],
        ['dev', { env: 'dev' }],
      ]),
    });
    expect(known.get('shop/a')).toBe('prod 10.0.1.0 (pinnedPool)');
    expect(known.get('dev/b')).toBe('default 10.0.0.0 (autoAssign)');
    // Unknown labels: the selector pins nobody (MetalLB resolves selectors against known namespaces only).
    const unknown = run({ pools, services });
    expect(unknown.get('shop/a')).toMatch(/^default /);
  });

  it('needs both the namespace and a service selector when a pool lists both', () => {
    const pools = [
      pool('default', ['10.0.0.0/30']),
      pool('both', ['10.0.1.0/30'], {
        serviceAllocation: { priority: 1, namespaces: ['shop'], serviceSelectors: [selector({ team: 'a' })] },
      }),
    ];
    const r = run({
      pools,
      services: [
        service('yes', { namespace: 'shop', labels: { team: 'a' } }),
        service('ns-only', { namespace: 'shop', labels: { team: 'b' } }),
        service('label-only', { namespace: 'dev', labels: { team: 'a' } }),
      ],
    });
    expect(r.get('shop/yes')).toBe('both 10.0.1.0 (pinnedPool)');
    expect(r.get('shop/ns-only')).toMatch(/^default /);
    expect(r.get('dev/label-only')).toMatch(/^default /);
  });

  it('keeps MetalLB’s quirk: namespaceSelectors matching no known namespace pin nobody but admit requests from anywhere', () => {
    const pools = [pool('sel', ['10.0.1.0/30'], { serviceAllocation: { namespaceSelectors: [selector({ env: 'prod' })] } })];
    const r = run({ pools, services: [service('auto'), service('asks', { requestIPs: '10.0.1.1' })] });
    expect(r.get('demo/auto')).toBe('failed: no available IPs');
    expect(r.get('demo/asks')).toBe('sel 10.0.1.1 (requested)');
  });

  it('allocates from the annotated pool, which must admit the service', () => {
    const pools = [
      pool('default', ['10.0.0.0/30']),
      pool('empty', ['10.0.9.0/32']),
      pool('ns-only', ['10.0.1.0/30'], { serviceAllocation: { namespaces: ['other'] } }),
    ];
    const r = run({
      pools,
      services: [service('a', { addressPool: 'empty' }), service('b', { addressPool: 'empty' }), service('c', { addressPool: 'ns-only' })],
    });
    expect(r.get('demo/a')).toBe('empty 10.0.9.0 (poolRequested)');
    expect(r.get('demo/b')).toBe('failed: no available IPs in pool empty');
    expect(r.get('demo/c')).toBe('failed: pool ns-only not compatible for ip assignment');
  });
});

describe('dual stack', () => {
  const dualPool = pool('dual', ['10.0.0.0/31', 'fc00::/127']);
  const v4only = pool('v4only', ['10.0.1.0/31'], { serviceAllocation: { priority: 1, namespaces: ['demo'] } });

  it('takes both families from one pool, IPv4 first whatever ipFamilies says', () => {
    const r = run({
      pools: [dualPool],
      services: [service('a', DUAL), service('b', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] })],
    });
    expect(r.get('demo/a')).toBe('dual 10.0.0.0,fc00:: (autoAssign)');
    expect(r.get('demo/b')).toBe('dual 10.0.0.1,fc00::1 (autoAssign)');
    const { results } = allocateServices({ pools: [dualPool], services: [service('a', DUAL)] });
    expect(results.get('demo/a')).toMatchObject({
      events: [{ type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["10.0.0.0" "fc00::"]' }],
    });
  });

  it('RequireDualStack skips a one-family pool; PreferDualStack falls back to it only if no pool has both', () => {
    const r = run({ pools: [dualPool, v4only], services: [service('a', DUAL), service('b', PREFER_DUAL)] });
    expect(r.get('demo/a')).toBe('dual 10.0.0.0,fc00:: (autoAssign)');
    // v4only is pinned but offers one family; PreferDualStack accepts it because no pinned pool has both.
    expect(r.get('demo/b')).toBe('v4only 10.0.1.0 (pinnedPool)');
    const onlyV4 = run({ pools: [v4only], services: [service('a', DUAL)] });
    expect(onlyV4.get('demo/a')).toBe('failed: no available IPs');
  });

  it('PreferDualStack prefers the primary family when falling back', () => {
    const v4 = pool('a-v4', ['10.0.1.0/31']);
    const v6 = pool('b-v6', ['fc00:1::/127']);
    const r = run({
      pools: [v4, v6],
      services: [service('x', PREFER_DUAL), service('y', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv6', 'IPv4'] })],
    });
    expect(r.get('demo/x')).toBe('a-v4 10.0.1.0 (autoAssign)');
    expect(r.get('demo/y')).toBe('b-v6 fc00:1:: (autoAssign)');
  });

  it('completes a kept PreferDualStack address with the other family from its pool', () => {
    const { results } = allocateServices({
      pools: [dualPool],
      services: [service('a', { ...PREFER_DUAL, ingress: ['10.0.0.1'] })],
    });
    expect(got(results.get('demo/a'))).toBe('dual 10.0.0.1,fc00:: (kept)');
    expect(results.get('demo/a')).toMatchObject({
      events: [{ type: 'Normal', reason: 'IPAllocated', message: 'Assigned additional IP "fc00::"' }],
    });
  });

  it('reports a requested family that is not the service family', () => {
    const r = run({
      pools: [dualPool],
      services: [service('a', { requestIPs: 'fc00::1' }), service('b', { ...DUAL, requestIPs: '10.0.0.1' })],
    });
    expect(r.get('demo/a')).toBe('failed: requested loadBalancer IP(s) ["fc00::1"] does not match the ipFamily of the service');
    expect(r.get('demo/b')).toBe('failed: requested loadBalancer IP(s) ["10.0.0.1"] does not match the ipFamily of the service');
  });

  it('names the missing family when the annotated pool lacks it', () => {
    const r = run({ pools: [pool('v4', ['10.0.0.0/31'])], services: [service('a', { ...V6, addressPool: 'v4' })] });
    expect(r.get('demo/a')).toBe('failed: no available IPs in pool v4 for ipv6 IPFamily');
  });
});
