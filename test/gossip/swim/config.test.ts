import { describe, expect, test } from 'vitest';
import {
  detectionTime,
  FAST_CONFIG,
  LAN_CONFIG,
  pushPullScale,
  retransmitLimit,
  suspicionParameters,
  suspicionTimeout,
  SwimConfigError,
  validateConfig,
  WAN_CONFIG,
} from '../../../src/gossip/swim';

describe('profiles', () => {
  test('LAN is memberlist DefaultLANConfig (docs/memberlist-wire.md section 7)', () => {
    expect(LAN_CONFIG).toMatchObject({
      probeInterval: 1000,
      probeTimeout: 500,
      suspicionMult: 4,
      suspicionMaxTimeoutMult: 6,
      gossipInterval: 200,
      gossipNodes: 3,
      gossipToTheDeadTime: 30_000,
      pushPullInterval: 30_000,
      retransmitMult: 4,
      awarenessMaxMultiplier: 8,
      indirectChecks: 3,
      tcpTimeout: 10_000,
      udpBufferSize: 1400,
      disableTcpPings: false,
      deadNodeReclaimTime: 0,
    });
  });

  test('WAN is memberlist DefaultWANConfig', () => {
    expect(WAN_CONFIG).toMatchObject({
      probeInterval: 5000,
      probeTimeout: 3000,
      suspicionMult: 6,
      suspicionMaxTimeoutMult: 6,
      gossipInterval: 500,
      gossipNodes: 4,
      gossipToTheDeadTime: 60_000,
      pushPullInterval: 60_000,
      retransmitMult: 4,
      awarenessMaxMultiplier: 8,
      indirectChecks: 3,
      tcpTimeout: 30_000,
    });
  });

  test('every profile validates', () => {
    for (const config of [LAN_CONFIG, WAN_CONFIG, FAST_CONFIG]) expect(validateConfig(config)).toBe(config);
  });

  test('invalid configurations throw SwimConfigError', () => {
    expect(() => validateConfig({ ...LAN_CONFIG, probeInterval: 0 })).toThrow(SwimConfigError);
    expect(() => validateConfig({ ...LAN_CONFIG, probeTimeout: 2000 })).toThrow(/probeTimeout/);
    expect(() => validateConfig({ ...LAN_CONFIG, gossipNodes: -1 })).toThrow(/gossipNodes/);
    expect(() => validateConfig({ ...LAN_CONFIG, udpBufferSize: 60 })).toThrow(/udpBufferSize/);
  });
});

describe('timing helpers (memberlist util.go)', () => {
  test('suspicionTimeout: mult x max(1, log10 n) x interval, the scale kept to 3 decimals', () => {
    const perMult: Record<number, number> = { 1: 1000, 5: 1000, 10: 1000, 50: 1698, 100: 2000, 500: 2698, 1000: 3000 };
    for (const [n, expected] of Object.entries(perMult)) {
      expect(suspicionTimeout(3, Number(n), 1000) / 3).toBe(expected);
    }
    expect(suspicionTimeout(4, 20, 1000)).toBe(5204); // log10 20 = 1.30103 -> 1.301
    expect(suspicionTimeout(3, 3, 200)).toBe(600);
    expect(suspicionTimeout(4, 0, 1000)).toBe(4000);
  });

  test('retransmitLimit: mult x ceil(log10(n + 1))', () => {
    expect(retransmitLimit(3, 0)).toBe(0);
    expect(retransmitLimit(3, 1)).toBe(3);
    expect(retransmitLimit(3, 9)).toBe(3);
    expect(retransmitLimit(3, 10)).toBe(6);
    expect(retransmitLimit(3, 99)).toBe(6);
    expect(retransmitLimit(4, 100)).toBe(12);
  });

  test('pushPullScale: unchanged up to 32 nodes, then +1 interval per doubling', () => {
    for (let n = 0; n <= 32; n++) expect(pushPullScale(1000, n)).toBe(1000);
    for (let n = 33; n <= 64; n++) expect(pushPullScale(1000, n)).toBe(2000);
    for (let n = 65; n <= 128; n++) expect(pushPullScale(1000, n)).toBe(3000);
  });

  test('suspicion parameters: k = mult - 2, or 0 when n - 2 < k', () => {
    expect(suspicionParameters(LAN_CONFIG, 3)).toEqual({ k: 0, min: 4000, max: 24_000 });
    expect(suspicionParameters(LAN_CONFIG, 4)).toEqual({ k: 2, min: 4000, max: 24_000 });
    expect(suspicionParameters(LAN_CONFIG, 20)).toEqual({ k: 2, min: 5204, max: 31_224 });
    expect(suspicionParameters(FAST_CONFIG, 2)).toEqual({ k: 0, min: 600, max: 1800 });
    expect(suspicionParameters(FAST_CONFIG, 3)).toEqual({ k: 1, min: 600, max: 1800 });
    expect(suspicionParameters(WAN_CONFIG, 3)).toEqual({ k: 0, min: 30_000, max: 180_000 });
  });
});

describe('detection time formula', () => {
  test('FAST in 3 nodes: about 1 s typical', () => {
    const t = detectionTime(FAST_CONFIG, 3);
    expect(t.typical).toBe(100 + 200 + 600 + 100);
    expect(t.worst).toBe(3 * 200 + 200 + 1800 + 2 * 100);
  });

  test('LAN in 3 nodes: 5-6 s typical (suspicion exactly 4 s, as measured against Go)', () => {
    const t = detectionTime(LAN_CONFIG, 3);
    expect(t.typical).toBe(500 + 1000 + 4000 + 200);
    expect(t.worst).toBe(3 * 1000 + 1000 + 4000 + 2 * 200);
  });
});
