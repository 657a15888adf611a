import { describe, expect, it } from 'vitest';
import { BFD_LIMITS } from '../../src/model';
import { fixture, parseErrors, parseOk } from './parse-helpers';

const profile = (spec: string): string =>
  `apiVersion: metallb.io/v1beta1\nkind: BFDProfile\nmetadata:\n  name: p\n${spec}`;

describe('BFDProfile', () => {
  it('applies the documented defaults when spec is absent', () => {
    expect(parseOk(profile('')).bfdProfiles[0]).toMatchObject({
      receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3, echoInterval: 50, echoMode: false,
      passiveMode: false, minimumTtl: 254,
    });
  });

  it('reads every field', () => {
    expect(parseOk(fixture('valid', 'full-featured.yaml')).bfdProfiles[0]).toMatchObject({
      receiveInterval: 100, transmitInterval: 150, detectMultiplier: 5, echoInterval: 60, echoMode: true,
      passiveMode: true, minimumTtl: 250,
    });
  });

  it.each(Object.entries(BFD_LIMITS))('accepts %s at both bounds and refuses one beyond', (key, rule) => {
    expect(() => parseOk(profile(`spec:\n  ${key}: ${rule.min}\n`))).not.toThrow();
    expect(() => parseOk(profile(`spec:\n  ${key}: ${rule.max}\n`))).not.toThrow();
    expect(parseErrors(profile(`spec:\n  ${key}: ${rule.max + 1}\n`))[0]?.message)
      .toBe(`invalid ${rule.words} value: invalid value ${rule.max + 1}, must be in ${rule.min}-${rule.max} range`);
    expect(parseErrors(profile(`spec:\n  ${key}: ${rule.min - 1}\n`))[0]?.code).toBe('outOfRange');
  });
});
