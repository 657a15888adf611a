/** Randomness from a seed (the gossip reducers' own PRNG), so a virtual run is reproducible. Not for cryptography. */
import { Random, seedRng } from '../../gossip/swim/random';
import type { Randomness } from '../runtime';

/** random() draws this many bits: a double's whole mantissa, as Math.random offers. */
const FLOAT_BITS = 2 ** 53;

export function seededRandomness(seed: number): Randomness {
  const source = new Random(seedRng(seed));
  return {
    randomInt(maxExclusive) {
      // node:crypto's randomInt refuses these too; a silent 0 would hide a caller's bug.
      if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0)
        throw new RangeError(`randomInt: ${maxExclusive} is not a positive integer`);
      return source.int(maxExclusive);
    },
    random: () => source.int(FLOAT_BITS) / FLOAT_BITS,
  };
}
