import { describe, expect, it } from 'vitest';
import { LeavingHandover } from '../../src/daemon/leaving-handover';

const held = Array.from({ length: 30 }, (_, i) => `192.0.2.${i + 1}`);

describe('LeavingHandover', () => {
  it('keeps answering only for the held IPs no successor has announced, counting each claim once', () => {
    const handover = new LeavingHandover(held, 0);
    expect(handover.unclaimed()).toEqual(held);
    expect(handover.claim('192.0.2.3')).toBe(true);
    expect(handover.claim('192.0.2.3')).toBe(false); // its next gratuitous ARP
    expect(handover.claim('198.51.100.1')).toBe(false); // not one this node held
    expect(handover.unclaimed()).toEqual(held.filter((ip) => ip !== '192.0.2.3'));
  });

  it('logs the first 20 claims at info and the rest at debug (a stop of thousands of IPs stays readable)', () => {
    const handover = new LeavingHandover(held, 0);
    const levels = held.map((ip) => (handover.claim(ip), handover.claimLogLevel()));
    expect(levels.slice(0, 20).every((l) => l === 'info')).toBe(true);
    expect(levels.slice(20).every((l) => l === 'debug')).toBe(true);
    expect(handover.unclaimed()).toEqual([]);
  });
});
