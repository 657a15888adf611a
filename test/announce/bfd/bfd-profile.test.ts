/**
 * BFDProfile -> session timers: MetalLB's defaults and ranges, and what is ignored (echo) with why.
 */
import { describe, expect, it } from 'vitest';
import { BfdError } from '../../../src/announce/bfd/bfd-error';
import { bfdTimersFromProfile } from '../../../src/announce/bfd/bfd-profile';

describe('bfdTimersFromProfile', () => {
  it("takes MetalLB's defaults: 300 ms both ways, multiplier 3, active", () => {
    expect(bfdTimersFromProfile({})).toEqual({
      config: { desiredMinTxUs: 300_000, requiredMinRxUs: 300_000, detectMult: 3, passive: false },
      ignored: [],
    });
  });

  it('maps receiveInterval, transmitInterval (ms -> us), detectMultiplier and passiveMode', () => {
    const m = bfdTimersFromProfile({
      receiveInterval: 150,
      transmitInterval: 200,
      detectMultiplier: 5,
      passiveMode: true,
      minimumTtl: 254,
    });
    expect(m.config).toEqual({ desiredMinTxUs: 200_000, requiredMinRxUs: 150_000, detectMult: 5, passive: true });
  });

  it('says echo mode is not implemented instead of pretending', () => {
    const m = bfdTimersFromProfile({ echoMode: true, echoInterval: 50 });
    expect(m.ignored).toHaveLength(1);
    expect(m.ignored[0]).toMatch(/echoMode/);
  });

  it('refuses values outside the ranges MetalLB documents', () => {
    for (const bad of [
      { receiveInterval: 9 },
      { transmitInterval: 60_001 },
      { detectMultiplier: 1 },
      { detectMultiplier: 256 },
      { receiveInterval: 10.5 },
    ]) {
      let caught: unknown;
      try {
        bfdTimersFromProfile(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(BfdError);
      expect((caught as BfdError).code).toBe('invalidProfile');
    }
    expect(bfdTimersFromProfile({ receiveInterval: 10, transmitInterval: 60_000, detectMultiplier: 255 }).config.detectMult).toBe(255);
  });
});
