/**
 * Bit for bit against Go: for thousands of generated cases, mlb's canonical IP text (src/ip formatIP(parseIP))
 * and L2 hash ranking (src/election) must equal what Go computes with net.ParseIP(...).String() and MetalLB's
 * comparator sort (test/interop/go/election-order/main.go). A single differing character would elect a
 * different owner in a mixed MetalLB / mlb cluster.
 *
 * Spellings avoid 5+ digit IPv6 groups: Go 1.19 (Debian's golang-go here) accepts them, Go >= 1.22 (MetalLB
 * v0.16's toolchain, and mlb) rejects them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatIP, parseIP } from '../../src/ip';
import { rankNodes } from '../../src/election';
import { buildGoProgram, goMissingMessage, goToolchain, runGoProgram } from './go-program';

const CASES = 10_000;
const SEED = Number(process.env.MLB_INTEROP_SEED ?? 20261017);
const MAX_NODES = 64;

const go = goToolchain();
if (!go.available) {
  if (process.env.CI) throw new Error(`${goMissingMessage()} (CI is set, so this is a failure)`);
  console.warn(`skipping test/interop/election-order.test.ts: ${goMissingMessage()}`);
}

// ------------------------------------------------------------------------------------------ generators

const octet = fc.integer({ min: 0, max: 255 });
const dotted = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
/** Groups biased towards zero so "::" runs, ties between runs and single zero groups are common. */
const group = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 0xf }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
);
const groups = fc.oneof(
  fc.array(group, { minLength: 8, maxLength: 8 }),
  // IPv4-mapped and IPv4-compatible prefixes, with random tails.
  fc
    .tuple(fc.constantFrom([0, 0, 0, 0, 0, 0xffff], [0, 0, 0, 0, 0, 0], [0x64, 0xff9b, 0, 0, 0, 0]), group, group)
    .map(([head, a, b]) => [...head, a, b]),
);

/** One non-canonical spelling of 8 groups: case, leading zeros (never beyond 4 digits), where "::" goes, IPv4 tail. */
const spelling = fc
  .record({
    groups,
    widths: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 8, maxLength: 8 }),
    upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    compress: fc.nat(),
    v4Tail: fc.boolean(),
  })
  .map(({ groups: g, widths, upper, compress, v4Tail }) => {
    const text = (i: number) => {
      const h = (g[i] as number).toString(16).padStart(widths[i] as number, '0');
      return upper[i] ? h.toUpperCase() : h;
    };
    const tailV4 = v4Tail ? `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}` : undefined;
    const last = tailV4 ? 6 : 8; // groups written as hex
    // Candidate "::" runs: every run of zero groups among the hex-written ones (any length >= 1), or none.
    const runs: [number, number][] = [];
    for (let s = 0; s < last; s++) for (let e = s + 1; e <= last && g[e - 1] === 0; e++) runs.push([s, e]);
    const run = runs.length > 0 && compress % 3 !== 0 ? runs[compress % runs.length] : undefined;
    const hex = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => text(from + k));
    const tail = (parts: string[]) => (tailV4 ? [...parts, tailV4] : parts);
    if (!run) return tail(hex(0, last)).join(':');
    const [s, e] = run;
    return `${hex(0, s).join(':')}::${tail(hex(e, last)).join(':')}`;
  });
const badSpelling = fc.constantFrom(
  ':::',
  '1::2::3',
  '1.2.3',
  '01.2.3.4',
  '1.2.3.256',
  '1:2:3:4:5:6:7:8:9',
  '::g',
  'fe80::1%eth0',
  '[::1]',
  '10.0.0.1/32',
  '',
  ' 10.0.0.1',
  '::ffff:01.2.3.4',
  '1:2:3:4:5:6:7::8',
);
const ipText = fc.oneof({ weight: 3, arbitrary: dotted }, { weight: 8, arbitrary: spelling }, { weight: 1, arbitrary: badSpelling });

const dnsName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?){0,3}$/);
const anyName = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 16 });
const nodeSet = fc.uniqueArray(fc.oneof({ weight: 4, arbitrary: dnsName }, { weight: 1, arbitrary: anyName }), {
  maxLength: MAX_NODES,
  size: 'max',
});

// ------------------------------------------------------------------------------------------ the test

describe.skipIf(!go.available)('election order and canonical IP text, bit for bit against Go', () => {
  it(`agrees with ${go.version || 'go'} on ${CASES} cases (seed ${SEED})`, () => {
    const cases = fc.sample(fc.record({ ip: ipText, nodes: nodeSet }), { seed: SEED, numRuns: CASES });
    // Named regressions ride along with the generated cases.
    cases.push(
      { ip: '2001:db8:0:0:1:0:0:1', nodes: ['a', 'b'] }, // tie between zero runs: the first is compressed
      { ip: '2001:DB8:0:1:1:1:1:1', nodes: ['n'] }, // a single zero group stays "0"
      { ip: '::ffff:10.0.0.1', nodes: ['worker-a', 'worker-b'] }, // IPv4-mapped prints dotted
      { ip: '::1.2.3.4', nodes: ['x'] }, // IPv4-compatible prints hex
      { ip: '10.0.0.1', nodes: ['node-123098', 'node-497308'] }, // 37-bit hash prefix collision
    );
    if (process.env.MLB_INTEROP_VERBOSE)
      console.log(
        cases
          .slice(0, 40)
          .map((c) => `${c.ip} (${c.nodes.length} nodes)`)
          .join('\n'),
      );
    const binary = buildGoProgram('election-order');
    const goResults = JSON.parse(runGoProgram(binary, JSON.stringify(cases))) as { canonical: string | null; order: string[] | null }[];
    expect(goResults).toHaveLength(cases.length);
    let mismatches = 0;
    cases.forEach((c, i) => {
      const raw = goResults[i]!;
      // Go encodes an empty node list (a nil slice after append) as null.
      const theirs = { canonical: raw.canonical, order: raw.canonical === null ? null : (raw.order ?? []) };
      const parsed = parseIP(c.ip);
      const canonical = parsed ? formatIP(parsed) : null;
      const order = canonical === null ? null : rankNodes(c.nodes, canonical);
      if (canonical !== theirs.canonical || JSON.stringify(order) !== JSON.stringify(theirs.order)) {
        mismatches++;
        if (mismatches <= 5) {
          expect({ ip: c.ip, canonical, order }, `case ${i}`).toEqual({ ip: c.ip, canonical: theirs.canonical, order: theirs.order });
        }
      }
    });
    expect(mismatches).toBe(0);
    // The generator must really exercise what the test claims.
    expect(cases.filter((c) => c.ip.includes('::')).length).toBeGreaterThan(CASES / 4);
    expect(cases.filter((c) => /[A-F]/.test(c.ip)).length).toBeGreaterThan(CASES / 10);
    expect(cases.filter((c) => /:\d+\.\d+/.test(c.ip)).length).toBeGreaterThan(CASES / 20);
    expect(goResults.filter((r) => r.canonical === null).length).toBeGreaterThan(0);
    expect(cases.filter((c) => c.nodes.length >= MAX_NODES / 2).length).toBeGreaterThan(CASES / 4);
  });
});
