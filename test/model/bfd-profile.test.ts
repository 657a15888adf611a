import { describe, expect, it } from 'vitest';
import { BFD_LIMITS } from '../../src/model';
import { fixture, parseErrors, parseOk, where } from './parse-helpers';

const profile = (spec: string): string => `apiVersion: metallb.io/v1beta1\nkind: BFDProfile\nmetadata:\n  name: p\n${spec}`;

describe('BFDProfile', () => {
  it('applies the documented defaults when spec is absent', () => {
    expect(parseOk(profile('')).bfdProfiles[0]).toMatchObject({
      receiveInterval: 300,
      transmitInterval: 300,
      detectMultiplier: 3,
      echoInterval: 50,
      echoMode: false,
      passiveMode: false,
      minimumTtl: 254,
    });
  });

  it('reads every field', () => {
    expect(parseOk(fixture('valid', 'full-featured.yaml')).bfdProfiles[0]).toMatchObject({
      receiveInterval: 100,
      transmitInterval: 150,
      detectMultiplier: 5,
      echoInterval: 60,
      echoMode: false,
      passiveMode: true,
      minimumTtl: 250,
    });
  });

  it('echoMode: read on a profile no peer uses, refused on the peer that uses it (mlb has no echo mode)', () => {
    const echo = profile('spec:\n  echoMode: true\n');
    expect(parseOk(echo).bfdProfiles[0]?.echoMode).toBe(true);
    const peer =
      '---\napiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata:\n  name: tor\nspec:\n' +
      '  myASN: 64512\n  peerASN: 64513\n  peerAddress: 192.168.10.1\n  bfdProfile: p\n';
    const errors = parseErrors(`${echo}${peer}`);
    expect(where(errors)).toEqual(['16:15 bfdEchoModeUnsupported']);
    expect(errors[0]?.message).toBe(
      "peer tor uses bfd profile p, which enables echoMode: mlb's BFD does not implement echo mode (MetalLB runs it only with FRR): set echoMode: false in BFDProfile p",
    );
    expect(parseOk(`${profile('spec:\n  echoMode: false\n')}${peer}`).bgpPeers[0]?.bfdProfile).toBe('p');
  });

  it.each(Object.entries(BFD_LIMITS))('accepts %s at both bounds and refuses one beyond', (key, rule) => {
    expect(() => parseOk(profile(`spec:\n  ${key}: ${rule.min}\n`))).not.toThrow();
    expect(() => parseOk(profile(`spec:\n  ${key}: ${rule.max}\n`))).not.toThrow();
    expect(parseErrors(profile(`spec:\n  ${key}: ${rule.max + 1}\n`))[0]?.message).toBe(
      `invalid ${rule.words} value: invalid value ${rule.max + 1}, must be in ${rule.min}-${rule.max} range`,
    );
    expect(parseErrors(profile(`spec:\n  ${key}: ${rule.min - 1}\n`))[0]?.code).toBe('outOfRange');
  });
});
