// The pieces under the allocator: the persistent map, used-address runs, request parsing, Go quoting,
// pool capacity and sharing keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { MAX_INT64, backendKey, isBuggyIP, poolCapacity, requestedIPs, serviceFamily } from '../../src/allocator';
import { goQuote, goQuoteIPs } from '../../src/allocator/go-format';
import { PersistentMap, compareBigints } from '../../src/allocator/persistent-map';
import { UsedAddresses } from '../../src/allocator/used-addresses';
import { ip, pool, service } from './factories';

type Op = { kind: 'set'; key: number; value: number } | { kind: 'delete'; key: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 60 }), value: fc.integer() }),
  fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 60 }) }),
);

describe('PersistentMap', () => {
  it('behaves like a sorted Map, and old versions never change', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), fc.integer({ min: -1, max: 61 }), (ops, probe) => {
        let map = PersistentMap.empty<number, number>((a, b) => a - b);
        const model = new Map<number, number>();
        const snapshots: [PersistentMap<number, number>, [number, number][]][] = [];
        for (const op of ops) {
          if (op.kind === 'set') {
            map = map.set(op.key, op.value);
            model.set(op.key, op.value);
          } else {
            map = map.delete(op.key);
            model.delete(op.key);
          }
          snapshots.push([map, [...model.entries()].sort((a, b) => a[0] - b[0])]);
        }
        const sorted = [...model.entries()].sort((a, b) => a[0] - b[0]);
        expect([...map.entries()]).toEqual(sorted);
        expect(map.size).toBe(model.size);
        const floor = [...sorted].reverse().find(([k]) => k <= probe);
        const ceiling = sorted.find(([k]) => k >= probe);
        expect(map.floor(probe)).toEqual(floor);
        expect(map.ceiling(probe)).toEqual(ceiling);
        expect([...map.entries(probe)]).toEqual(sorted.filter(([k]) => k >= probe));
        for (const [snap, expected] of snapshots) expect([...snap.entries()]).toEqual(expected);
      }),
    );
  });

  it('stays balanced: 100,000 ascending inserts', () => {
    let map = PersistentMap.empty<bigint, bigint>(compareBigints);
    for (let i = 0n; i < 100_000n; i++) map = map.set(i, i);
    expect(map.size).toBe(100_000);
    expect(map.floor(99_999n)).toEqual([99_999n, 99_999n]);
  });
});

describe('UsedAddresses', () => {
  it('agrees with a plain set on membership and on the first free address', () => {
    const ops = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 150 });
    fc.assert(
      fc.property(ops, fc.integer({ min: 0, max: 42 }), (list, probe) => {
        let used = UsedAddresses.empty;
        const model = new Set<number>();
        for (const [add, n] of list) {
          const a = { family: 4 as const, value: BigInt(n) };
          used = add ? used.add(a) : used.remove(a);
          if (add) model.add(n);
          else model.delete(n);
        }
        for (let n = 0; n <= 42; n++) expect(used.has({ family: 4, value: BigInt(n) })).toBe(model.has(n));
        let free = probe;
        while (model.has(free)) free++;
        expect(used.firstFreeAtOrAfter(4, BigInt(probe))).toBe(BigInt(free));
        // The other family is untouched.
        expect(used.firstFreeAtOrAfter(6, BigInt(probe))).toBe(BigInt(probe));
      }),
    );
  });
});

describe('requested addresses (getDesiredLbIPs)', () => {
  const cases: [Parameters<typeof service>[1], string][] = [
    [{}, 'none'],
    [{ requestIPs: '' }, 'none'],
    [{ requestIPs: ' 10.0.0.1 , fc00::0001' }, 'ips dual 10.0.0.1 fc00::1'],
    [{ loadBalancerIP: 'fc00::1' }, 'ips ipv6 fc00::1'],
    [{ loadBalancerIP: ' 10.0.0.1' }, 'invalid invalid spec.loadBalancerIP " 10.0.0.1"'],
    [{ requestIPs: '10.0.0.1,' }, 'invalid invalid metallb.io/loadBalancerIPs: "10.0.0.1,"'],
    [{ requestIPs: '10.0.0.1,10.0.0.2' }, 'invalid IPFamilyForAddresses: same address family ["10.0.0.1" "10.0.0.2"]'],
    [{ requestIPs: '10.0.0.1,fc00::1,10.0.0.3' }, 'invalid IPFamilyForAddresses: invalid ips length 3 ["10.0.0.1" "fc00::1" "10.0.0.3"]'],
    [
      { requestIPs: '10.0.0.1', loadBalancerIP: '10.0.0.1' },
      'invalid service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP',
    ],
    [{ annotations: { 'metallb.io/loadBalancerIPs': '10.0.0.1', 'metallb.universe.tf/loadBalancerIPs': '10.0.0.2' } }, 'ips ipv4 10.0.0.1'],
  ];
  it.each(cases)('%j -> %s', (options, expected) => {
    const r = requestedIPs(service('s', options));
    const text =
      r.kind === 'none' ? 'none' : r.kind === 'ips' ? `ips ${r.family} ${r.ips.map(formatIP).join(' ')}` : `invalid ${r.error.message}`;
    expect(text).toBe(expected);
  });
});

describe('Go formatting', () => {
  it('quotes as strconv.Quote and prints IP slices as %q', () => {
    expect(goQuote('special')).toBe('"special"');
    expect(goQuote('a"b\\c\n\u0001')).toBe('"a\\"b\\\\c\\n\\x01"');
    expect(goQuote('naïve')).toBe('"naïve"');
    expect(goQuoteIPs([ip('192.168.10.200'), ip('FC00:0:0::1')])).toBe('["192.168.10.200" "fc00::1"]');
  });
});

describe('pool capacity (poolCount)', () => {
  it('counts addresses, minus .0/.255 with avoidBuggyIPs', () => {
    expect(poolCapacity(pool('a', ['192.168.10.200-192.168.10.220']))).toEqual({ total: 21n, ipv4: 21n, ipv6: 0n });
    expect(poolCapacity(pool('b', ['10.0.0.0/23'], { avoidBuggyIPs: true })).total).toBe(512n - 4n);
    expect(poolCapacity(pool('c', ['10.0.0.0/25', '10.0.0.128/25'], { avoidBuggyIPs: true })).total).toBe(254n);
    expect(poolCapacity(pool('d', ['10.0.0.0/32'], { avoidBuggyIPs: true })).total).toBe(0n);
    expect(poolCapacity(pool('e', ['fc00::/120'], { avoidBuggyIPs: true }))).toEqual({ total: 256n, ipv4: 0n, ipv6: 256n });
  });

  it('saturates at MaxInt64 for CIDRs with 62 or more host bits', () => {
    expect(poolCapacity(pool('f', ['fc00::/64', '10.0.0.0/30']))).toEqual({ total: MAX_INT64, ipv4: 4n, ipv6: MAX_INT64 });
    expect(poolCapacity(pool('g', ['fc00::/67'])).ipv6).toBe(1n << 61n);
  });

  it('calls only IPv4 .0 and .255 buggy', () => {
    expect(isBuggyIP(ip('10.0.3.0'))).toBe(true);
    expect(isBuggyIP(ip('10.0.3.255'))).toBe(true);
    expect(isBuggyIP(ip('10.0.3.1'))).toBe(false);
    expect(isBuggyIP(ip('fc00::ff'))).toBe(false);
  });
});

describe('service keys and families', () => {
  it('builds the backend key from the selector only under Local (labels.Set.String order)', () => {
    expect(backendKey(service('a', { selector: { b: '2', a: '1' } }))).toBe('');
    expect(backendKey(service('a', { selector: { b: '2', a: '1' }, externalTrafficPolicy: 'Local' }))).toBe('a=1,b=2');
  });

  it('reads the family from ipFamilies and policy', () => {
    expect(serviceFamily(service('a'))).toBe('ipv4');
    expect(serviceFamily(service('a', { ipFamilies: ['IPv6'] }))).toBe('ipv6');
    expect(serviceFamily(service('a', { ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'PreferDualStack' }))).toBe('dual');
    expect(serviceFamily(service('a', { ipFamilies: ['IPv4'], ipFamilyPolicy: 'RequireDualStack' }))).toBe('dual');
    expect(serviceFamily(service('a', { ipFamilies: ['IPv4'], ipFamilyPolicy: 'PreferDualStack' }))).toBe('ipv4');
  });
});
