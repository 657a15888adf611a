import { describe, expect, it } from 'vitest';
import { formatCIDR, parseIP } from '../../src/ip';
import { parsePoolAddress } from '../../src/model';
import { L2_ALL, POOL, fixture, parseErrors, parseOk, where } from './parse-helpers';

describe('IPAddressPool', () => {
  it("reads a tutorial lab's pool: the range split into covering CIDRs in address order, defaults applied", () => {
    const snapshot = parseOk(fixture('valid', 'tutorial-l2.yaml'));
    const pool = snapshot.pools[0];
    expect(pool?.meta).toMatchObject({ name: 'default', namespace: 'metallb-system' });
    expect(pool?.addresses).toEqual(['192.168.10.200-192.168.10.220']);
    expect(pool?.cidrs.map(formatCIDR)).toEqual(['192.168.10.200/29', '192.168.10.208/29', '192.168.10.216/30', '192.168.10.220/32']);
    expect(pool?.addressSet.size(4)).toBe(21n);
    expect(pool?.addressSet.has(parseIP('192.168.10.221')!)).toBe(false);
    expect(pool?.autoAssign).toBe(true);
    expect(pool?.avoidBuggyIPs).toBe(false);
    expect(pool?.serviceAllocation).toBeUndefined();
  });

  it('reads every field of a full pool, ranges with spaces and IPv6 included', () => {
    const pool = parseOk(fixture('valid', 'full-featured.yaml')).pools[0];
    expect(pool?.cidrs.map(formatCIDR)).toEqual([
      '203.0.113.0/28',
      '203.0.113.20/30',
      '203.0.113.24/30',
      '203.0.113.28/31',
      '203.0.113.30/32',
      '2001:db8:1::/120',
    ]);
    expect(pool?.autoAssign).toBe(false);
    expect(pool?.avoidBuggyIPs).toBe(true);
    expect(pool?.meta.labels).toEqual({ tier: 'public' });
    expect(pool?.serviceAllocation).toEqual({
      priority: 10,
      namespaces: ['web', 'shop'],
      namespaceSelectors: [{ matchLabels: { team: 'web' }, matchExpressions: [] }],
      serviceSelectors: [{ matchLabels: {}, matchExpressions: [{ key: 'app', operator: 'In', values: ['nginx', 'caddy'] }] }],
    });
  });

  it('masks a CIDR written with host bits, as Go does', () => {
    const pool = parseOk(POOL('p', '10.0.0.7/24') + '---\n' + L2_ALL).pools[0];
    expect(pool?.cidrs.map(formatCIDR)).toEqual(['10.0.0.0/24']);
  });

  it('words address problems as MetalLB does', () => {
    const r = parsePoolAddress('10.0.0.1-10.0.0.x', 'p');
    expect(r.ok ? '' : r.message).toBe(
      'invalid CIDR "10.0.0.1-10.0.0.x" in pool "p": invalid IP range "10.0.0.1-10.0.0.x": invalid end IP "10.0.0.x"',
    );
    const single = parsePoolAddress('10.0.0.5-10.0.0.5', 'p');
    expect(single.ok && single.cidrs.map(formatCIDR)).toEqual(['10.0.0.5/32']);
  });

  it('reports every bad entry of a pool, not just the first', () => {
    const errors = parseErrors(POOL('p', '10.0.0.0/33', '10.0.1.9-10.0.1.1', 'fd00::/64'));
    expect(where(errors)).toEqual(['7:7 invalidCIDR', '8:7 reversedRange']);
  });

  it('checks overlaps across pools in file order, naming both entries as written, both pools and where the first is', () => {
    const errors = parseErrors(POOL('a', '10.0.0.0/24') + '---\n' + POOL('b', '10.0.1.0/24', '10.0.0.128-10.0.0.130'));
    expect(errors.map((e) => e.message)).toEqual([
      'CIDR "10.0.0.128-10.0.0.130" in pool "b" overlaps with already defined CIDR "10.0.0.0/24" in pool "a" (defined at test.yaml:7:7)',
    ]);
  });

  it('accepts adjacent pools and IPv4 next to IPv6', () => {
    const snapshot = parseOk(`${POOL('a', '10.0.0.0/25')}---\n${POOL('b', '10.0.0.128/25', 'fd00::/64')}---\n${L2_ALL}`);
    expect(snapshot.pools.map((p) => p.meta.name)).toEqual(['a', 'b']);
  });

  it('refuses duplicate namespaces in serviceAllocation', () => {
    const errors = parseErrors(`${POOL('p', '10.0.0.0/24')}  serviceAllocation:\n    namespaces: [a, a]\n`);
    expect(errors.map((e) => e.message)).toEqual(['duplicate definition in namespaces field: "a"']);
  });
});
