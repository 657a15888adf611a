import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BROADCAST_MAC, formatMAC, isBroadcastMAC, isGroupMAC, macEquals, parseMAC, ZERO_MAC } from '../../../src/announce/l2';

describe('MAC addresses', () => {
  it('parses colon and hyphen forms in either case and formats lowercase with colons', () => {
    expect(formatMAC(parseMAC('52:54:00:3A:10:21')!)).toBe('52:54:00:3a:10:21');
    expect(formatMAC(parseMAC('52-54-00-3a-10-21')!)).toBe('52:54:00:3a:10:21');
  });

  it('refuses anything but six two-digit groups with one separator', () => {
    for (const bad of [
      '',
      '52:54:00:3a:10',
      '52:54:00:3a:10:21:00',
      '52:54-00:3a:10:21',
      '5:54:00:3a:10:21',
      'zz:54:00:3a:10:21',
      '5254003a1021',
      ' 52:54:00:3a:10:21',
    ]) {
      expect(parseMAC(bad), bad).toBeUndefined();
    }
  });

  it('round-trips every address', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 6, maxLength: 6 }), (bytes) => macEquals(parseMAC(formatMAC(bytes))!, bytes)));
  });

  it('knows broadcast and group addresses (I/G bit)', () => {
    expect(isBroadcastMAC(BROADCAST_MAC)).toBe(true);
    expect(isGroupMAC(parseMAC('33:33:ff:00:00:02')!)).toBe(true);
    expect(isGroupMAC(parseMAC('01:00:5e:00:00:01')!)).toBe(true);
    expect(isGroupMAC(parseMAC('52:54:00:3a:10:21')!)).toBe(false);
    expect(isGroupMAC(ZERO_MAC)).toBe(false);
  });

  it('formatMAC refuses a wrong length (a caller bug)', () => {
    expect(() => formatMAC(new Uint8Array(5))).toThrow(RangeError);
  });
});
