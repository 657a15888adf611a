import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatIP, ipFromBytes, ipToBytes, parseIP } from '../../src/ip';

const canonical = (text: string) => {
  const ip = parseIP(text);
  return ip ? formatIP(ip) : undefined;
};

describe('parseIP + formatIP match Go net.IP.String()', () => {
  it.each([
    ['192.168.10.200', '192.168.10.200'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    // RFC 5952 4.2.2: a single zero group is not compressed.
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    // RFC 5952 4.2.3: the longest run wins; the first on ties.
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1:0:0:0:0:0:0:0', '1::'],
    ['fe80::0:1', 'fe80::1'],
    // IPv4-mapped addresses print as IPv4 (Go's To4), other embedded forms as hex.
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::FFFF:a00:1', '10.0.0.1'],
    ['0:0:0:0:0:ffff:192.168.1.1', '192.168.1.1'],
    ['::1.2.3.4', '::102:304'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
  ])('%s -> %s', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4', // leading zeros are refused since Go 1.17
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1::2::3',
    ':::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4::5:6:7:8', // "::" must stand for at least one group
    '12345::',
    'fe80::1%eth0',
    '[::1]',
    '::1.2.3',
    '1.2.3.4::',
    '::ffff:1.2.3.256',
    'g::1',
    '1:2:3:4:5:6:7',
    ':1',
    '1:',
    'localhost',
  ])('refuses %j', (input) => {
    expect(parseIP(input)).toBeUndefined();
  });

  it('round-trips any IPv4 address through bytes and text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 4 }), (bytes) => {
        const ip = ipFromBytes(bytes);
        expect(ipToBytes(ip)).toEqual(bytes);
        expect(parseIP(formatIP(ip))).toEqual(ip);
      }),
    );
  });

  it('round-trips any IPv6 address, and its text is already canonical', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const ip = ipFromBytes(bytes);
        const text = formatIP(ip);
        expect(parseIP(text)).toEqual(ip);
        expect(canonical(text)).toBe(text);
        expect(text).toBe(text.toLowerCase());
      }),
    );
  });

  it('reads the same address whatever the spelling: expanded, uppercase, compressed', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (groups) => {
        const expanded = groups.map((g) => g.toString(16).padStart(4, '0').toUpperCase()).join(':');
        const short = groups.map((g) => g.toString(16)).join(':');
        expect(canonical(expanded)).toBe(canonical(short));
      }),
    );
  });
});
