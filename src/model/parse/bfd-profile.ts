/** BFDProfile (metallb.io/v1beta1, api/v1beta1/bfdprofile_types.go); ranges from the CRD and config.go. */
import type { BFDProfile, ObjectMeta } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { MapReader } from './field-reader';

interface IntervalRule {
  readonly min: number;
  readonly max: number;
  readonly default: number;
  /** config.go's wording for the field ("invalid detect multiplier value"). */
  readonly words: string;
}

/** Bounds and defaults (FRR's bfdd defaults, which MetalLB documents as its own). */
export const BFD_LIMITS = {
  receiveInterval: { min: 10, max: 60000, default: 300, words: 'receive interval' },
  transmitInterval: { min: 10, max: 60000, default: 300, words: 'transmit interval' },
  detectMultiplier: { min: 2, max: 255, default: 3, words: 'detect multiplier' },
  echoInterval: { min: 10, max: 60000, default: 50, words: 'echo interval' },
  /** 254: a multi-hop packet may have crossed one router; 255 would demand a direct neighbour. */
  minimumTtl: { min: 1, max: 254, default: 254, words: 'minimum ttl' },
} as const satisfies Record<string, IntervalRule>;

function readBounded(spec: MapReader | undefined, key: keyof typeof BFD_LIMITS): number {
  const rule = BFD_LIMITS[key];
  const value = spec?.integer(key);
  if (spec === undefined || value === undefined) return rule.default;
  if (value < rule.min || value > rule.max) {
    spec.error(
      DiagnosticCode.outOfRange,
      `invalid ${rule.words} value: invalid value ${value}, must be in ${rule.min}-${rule.max} range`,
      key,
    );
    return rule.default;
  }
  return value;
}

export function readBFDProfile(top: MapReader, meta: ObjectMeta): BFDProfile {
  const spec = top.map('spec');
  return {
    kind: 'BFDProfile',
    meta,
    receiveInterval: readBounded(spec, 'receiveInterval'),
    transmitInterval: readBounded(spec, 'transmitInterval'),
    detectMultiplier: readBounded(spec, 'detectMultiplier'),
    echoInterval: readBounded(spec, 'echoInterval'),
    echoMode: spec?.boolean('echoMode') ?? false,
    passiveMode: spec?.boolean('passiveMode') ?? false,
    minimumTtl: readBounded(spec, 'minimumTtl'),
  };
}
