// The health report other nodes receive: a versioned, bounded codec that never throws on garbage; a table that
// keeps each node's newest report whatever order gossip delivers them in; and who may hold a service's IP.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HEALTH_REPORT_MAX_BYTES,
  type HealthReport,
  HealthReportError,
  decodeHealthReport,
  encodeHealthReport,
  healthVerdicts,
  mergeHealthReport,
  retainHealthReports,
  servingNodes,
} from '../../../src/daemon/health/health-report';

const report = (node: string, epoch: number, seq: number, results: Record<string, boolean>): HealthReport => ({
  node,
  epoch,
  seq,
  results,
});

/** No lone surrogates (String.prototype.isWellFormed is ES2024, beyond this project's lib). */
const wellFormed = (s: string): boolean => !/[\ud800-\udfff]/u.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));

const arbKey = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/))
  .map(([ns, name]) => `${ns}/${name}`);
const arbReport: fc.Arbitrary<HealthReport> = fc.record({
  node: fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }).filter((s) => new TextEncoder().encode(s).length <= 255),
  epoch: fc.maxSafeNat(),
  seq: fc.maxSafeNat(),
  results: fc.dictionary(fc.oneof(arbKey, fc.string({ minLength: 1, maxLength: 30, unit: 'binary' }).filter(wellFormed)), fc.boolean(), {
    maxKeys: 40,
  }),
});

describe('health report codec', () => {
  it('round-trips any report (fast-check)', () => {
    fc.assert(
      fc.property(arbReport, (r) => {
        expect(decodeHealthReport(encodeHealthReport(r))).toEqual(r);
      }),
      { numRuns: 500 },
    );
  });

  it('has one encoding per report: key order does not matter', () => {
    const a = encodeHealthReport(report('n', 1, 2, { 'b/x': true, 'a/y': false }));
    const b = encodeHealthReport(report('n', 1, 2, { 'a/y': false, 'b/x': true }));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it('lays out magic, version, node, epoch, seq and sorted entries as documented', () => {
    const bytes = encodeHealthReport(report('a', 0x0102, 3, { 'z/z': false, 'd/w': true }));
    expect(Buffer.from(bytes).toString('hex')).toBe(
      [
        '6d6c6268',
        '01',
        '01',
        '61',
        '0000000000000102',
        '0000000000000003',
        '0002',
        '01',
        '03',
        Buffer.from('d/w').toString('hex'),
        '00',
        '03',
        Buffer.from('z/z').toString('hex'),
      ].join(''),
    );
  });

  it('never throws on garbage and accepts nothing that is not a report (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const decoded = decodeHealthReport(bytes);
        if (decoded !== undefined) expect(encodeHealthReport(decoded).length).toBeLessThanOrEqual(bytes.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on damaged reports: every truncation and bit flip of a real one (fast-check)', () => {
    fc.assert(
      fc.property(arbReport, fc.nat(), fc.nat(), (r, at, bit) => {
        const bytes = encodeHealthReport(r);
        expect(decodeHealthReport(bytes.subarray(0, at % bytes.length))).toBeUndefined();
        const flipped = Uint8Array.from(bytes);
        const i = at % bytes.length;
        flipped[i] = (flipped[i] as number) ^ (1 << (bit % 8));
        decodeHealthReport(flipped);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses another payload, a newer version, a too-large message, unsorted or duplicate keys, unknown status', () => {
    const good = encodeHealthReport(report('n', 1, 1, { 'a/a': true, 'b/b': true }));
    const mutate = (f: (b: Uint8Array) => void) => {
      const b = Uint8Array.from(good);
      f(b);
      return decodeHealthReport(b);
    };
    expect(decodeHealthReport(good)).toBeDefined();
    expect(
      mutate((b) => {
        b[0] = 0x4d;
      }),
    ).toBeUndefined(); // "Mlbh"
    expect(
      mutate((b) => {
        b[4] = 2;
      }),
    ).toBeUndefined(); // version 2
    const first = good.length - 2 * 5 + 2; // the first key's first byte
    expect(
      mutate((b) => {
        b[first] = 0x63;
      }),
    ).toBeUndefined(); // "c/a" before "b/b": out of order
    expect(
      mutate((b) => {
        b[good.length - 3] = 0x61;
        b[good.length - 1] = 0x61;
      }),
    ).toBeUndefined(); // "a/a" twice
    expect(
      mutate((b) => {
        b[good.length - 5] = 2;
      }),
    ).toBeUndefined(); // status 2
    const huge = new Uint8Array(HEALTH_REPORT_MAX_BYTES + 1);
    huge.set(good);
    expect(decodeHealthReport(huge)).toBeUndefined();
    // Appended fields of a later compatible version are ignored.
    expect(decodeHealthReport(Uint8Array.from([...good, 9, 9]))).toEqual(decodeHealthReport(good));
  });

  it('refuses to encode what it could not decode, with a stable code', () => {
    const code = (r: HealthReport) => {
      try {
        encodeHealthReport(r);
        return 'encoded';
      } catch (e) {
        return (e as HealthReportError).code;
      }
    };
    expect(code(report('', 1, 1, {}))).toBe('invalidReport');
    expect(code(report('n', -1, 1, {}))).toBe('invalidReport');
    expect(code(report('n', 1, 2 ** 53, {}))).toBe('invalidReport');
    expect(code(report('x'.repeat(256), 1, 1, {}))).toBe('stringTooLong');
    expect(code(report('n', 1, 1, { '\ud800': true }))).toBe('invalidReport');
    const many = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`namespace-${i}/service-name-${i}`.padEnd(120, 'x'), true]));
    expect(code(report('n', 1, 1, many))).toBe('reportTooLarge');
    expect(new HealthReportError('reportTooLarge', 'm')).toBeInstanceOf(Error);
  });
});

describe('mergeHealthReport', () => {
  it('keeps the newest report per node: a higher epoch (a restart) beats any seq', () => {
    let table: ReadonlyMap<string, HealthReport> = new Map();
    const steps = [
      report('a', 100, 5, { 's/x': true }),
      report('a', 100, 4, { 's/x': false }),
      report('a', 100, 5, { 's/x': true }),
      report('a', 200, 0, { 's/x': false }),
      report('a', 100, 99, { 's/x': true }),
      report('b', 1, 1, {}),
    ];
    const reasons = steps.map((r) => {
      const merged = mergeHealthReport(table, r);
      table = merged.table;
      return [merged.reason, merged.changed];
    });
    expect(reasons).toEqual([
      ['firstReport', true],
      ['stale', false],
      ['duplicate', false],
      ['newer', true],
      ['stale', false],
      ['firstReport', true],
    ]);
    expect(table.get('a')).toEqual(report('a', 200, 0, { 's/x': false }));
    expect([...table.keys()].sort()).toEqual(['a', 'b']);
  });

  it('does not modify the table it was given', () => {
    const table = new Map([['a', report('a', 1, 1, {})]]);
    mergeHealthReport(table, report('a', 1, 2, {}));
    expect(table.get('a')?.seq).toBe(1);
  });

  it('property: every delivery order (duplicates included) ends in the same table', () => {
    const arbSmall = fc.record({
      node: fc.constantFrom('a', 'b', 'c'),
      epoch: fc.integer({ min: 0, max: 3 }),
      seq: fc.integer({ min: 0, max: 3 }),
      results: fc.dictionary(fc.constantFrom('s/1', 's/2'), fc.boolean()),
    });
    fc.assert(
      fc.property(
        fc
          .array(arbSmall, { maxLength: 20 })
          .chain((rs) => fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length }))),
        ([inOrder, shuffled]) => {
          const fold = (rs: HealthReport[]) =>
            rs.reduce<ReadonlyMap<string, HealthReport>>((t, r) => mergeHealthReport(t, r).table, new Map());
          const canonical = (t: ReadonlyMap<string, HealthReport>) => [...t].sort(([x], [y]) => (x < y ? -1 : 1));
          expect(canonical(fold(shuffled))).toEqual(canonical(fold([...inOrder, ...inOrder])));
        },
      ),
    );
  });

  it('retainHealthReports drops nodes that are gone', () => {
    const table = new Map([
      ['a', report('a', 1, 1, {})],
      ['b', report('b', 1, 1, {})],
    ]);
    expect([...retainHealthReports(table, new Set(['b'])).keys()]).toEqual(['b']);
  });
});

describe('servingNodes', () => {
  const table = new Map([
    ['a', report('a', 1, 1, { 'web/x': true, 'db/y': false })],
    ['b', report('b', 1, 1, { 'web/x': false })],
    ['c', report('c', 1, 1, {})],
    ['gone', report('gone', 1, 1, { 'web/x': true })],
  ]);
  const live = ['a', 'b', 'c', 'd'];

  it('a health-checked service is served by exactly the live nodes whose latest report passes', () => {
    expect(servingNodes(table, 'web/x', live, true)).toEqual(new Set(['a']));
    expect(servingNodes(table, 'db/y', live, true)).toEqual(new Set());
  });

  it('says why every other live node is not an endpoint; a node without a report is not one', () => {
    expect(Object.fromEntries(healthVerdicts(table, 'web/x', live, true))).toEqual({
      a: { serving: true, reason: 'passing' },
      b: { serving: false, reason: 'failing' },
      c: { serving: false, reason: 'notInReport' },
      d: { serving: false, reason: 'noReport' },
    });
  });

  it('a service without a health check is served by every live node, reports or not', () => {
    expect(servingNodes(table, 'web/x', live, false)).toEqual(new Set(live));
    expect(healthVerdicts(table, 'plain/z', ['d'], false).get('d')).toEqual({ serving: true, reason: 'noHealthCheck' });
  });

  it('without checkedLocally, a service is health-checked when any live node reports on it', () => {
    expect(servingNodes(table, 'web/x', live)).toEqual(new Set(['a']));
    expect(servingNodes(table, 'plain/z', live)).toEqual(new Set(live));
    // Only the dead node reported it: nobody live checks it.
    expect(servingNodes(table, 'web/x', ['c', 'd'])).toEqual(new Set(['c', 'd']));
  });
});
