import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  AddressSet,
  cidrContains,
  cidrLast,
  cidrSize,
  cidrsOverlap,
  formatCIDR,
  formatIP,
  parseCIDR,
  parseIP,
  parseIPRange,
  rangeToCIDRs,
} from '../../src/ip';

const ip = (t: string) => {
  const v = parseIP(t);
  if (!v) throw new Error(`bad test IP ${t}`);
  return v;
};
const cidr = (t: string) => {
  const v = parseCIDR(t);
  if (!v) throw new Error(`bad test CIDR ${t}`);
  return v;
};

describe('parseCIDR', () => {
  it('masks the address to the network, as Go net.ParseCIDR does', () => {
    expect(formatCIDR(cidr('192.168.10.7/24'))).toBe('192.168.10.0/24');
    expect(formatCIDR(cidr('2001:DB8::1/64'))).toBe('2001:db8::/64');
    expect(formatCIDR(cidr('10.0.0.1/32'))).toBe('10.0.0.1/32');
    expect(formatCIDR(cidr('0.0.0.0/0'))).toBe('0.0.0.0/0');
  });

  it('reads IPv4-mapped IPv6 prefixes as the IPv4 network they map', () => {
    expect(formatCIDR(cidr('::ffff:10.1.2.3/120'))).toBe('10.1.2.0/24');
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/-1', '10.0.0.0/a', 'x/24', '10.0.0.0/24/1', '::ffff:1.2.3.4/64'])(
    'refuses %j',
    (text) => expect(parseCIDR(text)).toBeUndefined(),
  );

  it('knows its size, last address and members', () => {
    const net = cidr('192.168.10.0/30');
    expect(cidrSize(net)).toBe(4n);
    expect(formatIP(cidrLast(net))).toBe('192.168.10.3');
    expect(cidrContains(net, ip('192.168.10.3'))).toBe(true);
    expect(cidrContains(net, ip('192.168.10.4'))).toBe(false);
    expect(cidrContains(net, ip('::ffff:192.168.10.1'))).toBe(true);
    expect(cidrsOverlap(cidr('10.0.0.0/8'), cidr('10.1.0.0/16'))).toBe(true);
    expect(cidrsOverlap(cidr('10.0.0.0/16'), cidr('10.1.0.0/16'))).toBe(false);
  });
});

describe('ranges', () => {
  it('reads "a-b" with spaces around the dash', () => {
    const r = parseIPRange('192.168.10.200 - 192.168.10.220');
    expect(r.ok && formatIP(r.first)).toBe('192.168.10.200');
    expect(r.ok && formatIP(r.last)).toBe('192.168.10.220');
  });

  it('says why a range is unreadable', () => {
    expect(parseIPRange('192.168.10.210-192.168.10.200')).toMatchObject({ ok: false, problem: 'reversed' });
    expect(parseIPRange('10.0.0.1-2001:db8::1')).toMatchObject({ ok: false, problem: 'mixedFamilies' });
    expect(parseIPRange('10.0.0.x-10.0.0.9')).toMatchObject({ ok: false, problem: 'badStart', startText: '10.0.0.x' });
    expect(parseIPRange('10.0.0.1-10.0.0.9-10.0.0.10')).toMatchObject({ ok: false, problem: 'notARange' });
  });

  it('splits 192.168.10.200-192.168.10.220 into the covering CIDRs, in address order', () => {
    const cidrs = rangeToCIDRs(ip('192.168.10.200'), ip('192.168.10.220')).map(formatCIDR);
    expect(cidrs).toEqual(['192.168.10.200/29', '192.168.10.208/29', '192.168.10.216/30', '192.168.10.220/32']);
  });

  it('covers exactly first..last for any range (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 5000 }), (start, length) => {
        const end = Math.min(start + length, 0xffffffff);
        const first = { family: 4 as const, value: BigInt(start) };
        const last = { family: 4 as const, value: BigInt(end) };
        const cidrs = rangeToCIDRs(first, last);
        let next = first.value;
        for (const c of cidrs) {
          expect(c.ip.value).toBe(next);
          next = cidrLast(c).value + 1n;
        }
        expect(next).toBe(last.value + 1n);
        const total = cidrs.reduce((n, c) => n + cidrSize(c), 0n);
        expect(total).toBe(last.value - first.value + 1n);
      }),
    );
  });
});

describe('AddressSet', () => {
  it('merges, tests membership, counts and detects overlap per family', () => {
    const a = AddressSet.fromCIDRs([cidr('10.0.0.0/30'), cidr('10.0.0.4/30'), cidr('2001:db8::/126')]);
    expect(a.toIntervals()).toHaveLength(2);
    expect(a.size(4)).toBe(8n);
    expect(a.size(6)).toBe(4n);
    expect(a.has(ip('10.0.0.7'))).toBe(true);
    expect(a.has(ip('10.0.0.8'))).toBe(false);
    expect(a.has(ip('2001:db8::3'))).toBe(true);
    expect(a.overlaps(AddressSet.fromIPs([ip('10.0.0.5')]))).toBe(true);
    expect(a.overlaps(AddressSet.fromIPs([ip('10.0.0.9'), ip('2001:db8::4')]))).toBe(false);
  });

  it('has() agrees with a linear scan (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 1000 }), fc.integer({ min: 28, max: 32 })), { maxLength: 12 }),
        fc.nat({ max: 1100 }),
        (nets, probe) => {
          const cidrs = nets
            .map(([v, p]) => ({ ip: { family: 4 as const, value: BigInt(v) }, prefix: p }))
            .map((c) => parseCIDR(`${formatIP(c.ip)}/${c.prefix}`)!);
          const set = AddressSet.fromCIDRs(cidrs);
          const target = { family: 4 as const, value: BigInt(probe) };
          expect(set.has(target)).toBe(cidrs.some((c) => cidrContains(c, target)));
        },
      ),
    );
  });
});
