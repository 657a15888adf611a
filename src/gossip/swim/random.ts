/**
 * A small seeded PRNG (xoshiro128**, seeded through splitmix32) whose whole state is four 32-bit words, so it
 * lives inside the reducer's state and a run is reproducible from its seed. Not for cryptography: memberlist
 * uses math/rand for the same choices (probe order, random offsets, gossip targets, staggers).
 */
export type RngState = readonly [number, number, number, number];

function splitmix32(seed: number): [number, number] {
  const next = (seed + 0x9e3779b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** Any integer seed gives a usable state (never all zero). */
export function seedRng(seed: number): RngState {
  let s = seed >>> 0;
  const words: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [nextSeed, word] = splitmix32(s);
    s = nextSeed;
    words.push(word);
  }
  if (!words.some((w) => w !== 0)) words[0] = 1;
  return [words[0]!, words[1]!, words[2]!, words[3]!];
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** One step: a uniformly distributed unsigned 32-bit value and the next state. */
function nextUint32(state: RngState): [number, RngState] {
  const [s0, s1, s2, s3] = state;
  const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
  const t = (s1 << 9) >>> 0;
  let n2 = (s2 ^ s0) >>> 0;
  let n3 = (s3 ^ s1) >>> 0;
  const n1 = (s1 ^ n2) >>> 0;
  const n0 = (s0 ^ n3) >>> 0;
  n2 = (n2 ^ t) >>> 0;
  n3 = rotl(n3, 11);
  return [result, [n0, n1, n2, n3]];
}

/**
 * A mutable cursor over an RngState, for the duration of one reducer step: the step reads `state` back into
 * the new SwimState when it ends.
 */
export class Random {
  constructor(public state: RngState) {}

  uint32(): number {
    const [value, next] = nextUint32(this.state);
    this.state = next;
    return value;
  }

  /** An integer in [0, n); 0 when n <= 0 (memberlist randomOffset). */
  int(n: number): number {
    if (n <= 0) return 0;
    // Two draws give 53 random bits: no visible modulo bias for any n we use.
    const hi = this.uint32() >>> 5;
    const lo = this.uint32() >>> 6;
    const unit = (hi * 67108864 + lo) / 9007199254740992;
    return Math.floor(unit * n);
  }

  /** A duration in [0, ms): the stagger memberlist puts before its tickers so nodes do not synchronise. */
  stagger(ms: number): number {
    return this.int(Math.max(1, Math.floor(ms)));
  }

  /** Fisher-Yates in place. */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
  }

  /**
   * pick(k, pool, () => true) without copying `pool` (which it leaves as it is): the same draws, the same
   * choice, in O(k). For a pool the caller keeps (the gossip round's census).
   */
  pickFrom<T>(k: number, pool: readonly T[]): T[] {
    const count = Math.min(k, pool.length);
    const swapped = new Map<number, T>();
    const at = (i: number): T => (swapped.has(i) ? (swapped.get(i) as T) : pool[i]!);
    const chosen: T[] = [];
    for (let i = 0; i < count; i++) {
      const j = i + this.int(pool.length - i);
      const picked = at(j);
      swapped.set(j, at(i));
      chosen.push(picked);
    }
    return chosen;
  }

  /** Up to k distinct items chosen uniformly among those `eligible` accepts (memberlist kRandomNodes). */
  pick<T>(k: number, items: readonly T[], eligible: (item: T) => boolean): T[] {
    const pool = items.filter(eligible);
    const count = Math.min(k, pool.length);
    for (let i = 0; i < count; i++) {
      const j = i + this.int(pool.length - i);
      const tmp = pool[i]!;
      pool[i] = pool[j]!;
      pool[j] = tmp;
    }
    return pool.slice(0, count);
  }
}
