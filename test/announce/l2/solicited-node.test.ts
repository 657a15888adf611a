import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ALL_NODES_ADDRESS,
  formatMAC,
  ipv6MulticastMAC,
  isLinkLocalIPv6,
  isSolicitedNodeAddress,
  solicitedNodeAddress,
  solicitedNodeMAC,
} from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import { ip } from './l2-fixtures';

describe('solicited-node multicast (RFC 4291 2.7.1, RFC 2464 7)', () => {
  it('keeps the low 24 bits under ff02::1:ff00:0/104', () => {
    expect(formatIP(solicitedNodeAddress(ip('fd00:213:9::2')))).toBe('ff02::1:ff00:2');
    // RFC 4291's own example shape: 4037::01:800:200E:8C6C -> FF02::1:FF0E:8C6C
    expect(formatIP(solicitedNodeAddress(ip('4037::1:800:200e:8c6c')))).toBe('ff02::1:ff0e:8c6c');
    expect(isSolicitedNodeAddress(ip('ff02::1:ff0e:8c6c'))).toBe(true);
    expect(isSolicitedNodeAddress(ip('ff02::1:fe0e:8c6c'))).toBe(false);
  });

  it('maps to 33:33 + the last four octets', () => {
    expect(formatMAC(solicitedNodeMAC(ip('fd00:213:9::2')))).toBe('33:33:ff:00:00:02');
    expect(formatMAC(solicitedNodeMAC(ip('2001:db8::ab:cdef')))).toBe('33:33:ff:ab:cd:ef');
    expect(formatMAC(ipv6MulticastMAC(ALL_NODES_ADDRESS))).toBe('33:33:00:00:00:01');
  });

  it('addresses differing only above the low 24 bits share a group', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 104n) - 1n }), (v, high) => {
        const a = { family: 6 as const, value: v };
        const b = { family: 6 as const, value: (high << 24n) | (v & 0xffffffn) };
        expect(solicitedNodeAddress(a)).toEqual(solicitedNodeAddress(b));
      }),
    );
  });

  it('refuses IPv4 (a caller bug) and recognises fe80::/10', () => {
    expect(() => solicitedNodeAddress(ip('192.168.10.200'))).toThrow(RangeError);
    expect(isLinkLocalIPv6(ip('fe80::1'))).toBe(true);
    expect(isLinkLocalIPv6(ip('febf::1'))).toBe(true);
    expect(isLinkLocalIPv6(ip('fec0::1'))).toBe(false);
  });
});
