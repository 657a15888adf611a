// The table codec: what one node encodes another decodes to the same table; anything else (garbage, damage,
// a table from a newer format, an oversized one) is refused with a reason and never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALLOCATION_TABLE_FORMAT,
  AllocationTableError,
  MAX_ALLOCATION_TABLE_BYTES,
  type AllocationTable,
  decodeAllocationTable,
  emptyAllocationTable,
  encodeAllocationTable,
  makeAllocationTable,
  readAllocationTable,
  sameAllocationTable,
} from '../../../src/daemon/allocation';
import { entry, tableArb } from './arbitraries';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const reasonOf = (text: string): string | undefined => {
  const r = readAllocationTable(utf8(text));
  return r.ok ? undefined : r.reason;
};

describe('allocation table codec', () => {
  it('round-trips any table', () => {
    fc.assert(
      fc.property(tableArb, (table) => {
        const decoded = decodeAllocationTable(encodeAllocationTable(table));
        return decoded !== undefined && sameAllocationTable(decoded, table);
      }),
      { numRuns: 500 },
    );
  });

  it('encodes equal tables to equal bytes (built in any order)', () => {
    const e1 = entry(['192.0.2.1'], 1, 'node-1');
    const e2 = entry(['2001:db8::1', '192.0.2.9'], 2, 'node-2', { released: true });
    const a = makeAllocationTable(2, 'node-2', [
      ['demo/a', e1],
      ['demo/b', e2],
    ]);
    const b = makeAllocationTable(2, 'node-2', [
      ['demo/b', e2],
      ['demo/a', e1],
    ]);
    expect(encodeAllocationTable(a)).toEqual(encodeAllocationTable(b));
  });

  it('writes one entry per line with writers named once', () => {
    const table = makeAllocationTable(7, 'node-b', [
      ['demo/web', entry(['192.0.2.10'], 5, 'node-a', { at: 1718000000000 })],
      ['demo/old', entry(['192.0.2.11'], 7, 'node-b', { at: 1718000300000, released: true })],
    ]);
    expect(new TextDecoder().decode(encodeAllocationTable(table))).toBe(
      '{"format":1,"version":7,"allocator":"node-b","writers":["node-a","node-b"],"entries":[\n' +
        '["demo/old",["192.0.2.11"],7,1,1718000300000,1],\n' +
        '["demo/web",["192.0.2.10"],5,0,1718000000000]\n' +
        ']}\n',
    );
    expect(new TextDecoder().decode(encodeAllocationTable(emptyAllocationTable()))).toBe(
      '{"format":1,"version":0,"allocator":"","writers":[],"entries":[]}\n',
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const r = readAllocationTable(bytes);
        return r.ok || typeof r.reason === 'string';
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on damaged encodings, and what it accepts re-encodes to itself', () => {
    fc.assert(
      fc.property(
        tableArb,
        fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 4 }),
        (table, edits) => {
          const bytes = encodeAllocationTable(table).slice();
          for (const { at, byte } of edits) bytes[at % bytes.length] = byte;
          const decoded = decodeAllocationTable(bytes);
          if (decoded === undefined) return true;
          return sameAllocationTable(decodeAllocationTable(encodeAllocationTable(decoded)) as AllocationTable, decoded);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never throws on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const r = readAllocationTable(utf8(JSON.stringify(value) ?? 'null'));
        return !r.ok;
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what a peer must not trust, each with its reason', () => {
    const header = `"format":${ALLOCATION_TABLE_FORMAT},"version":3,"allocator":"n","writers":["n"]`;
    expect(reasonOf('{"format":2,"version":0,"allocator":"","writers":[],"entries":[]}')).toBe('unknownFormat');
    expect(reasonOf('{"format":1,"version":-1,"allocator":"","writers":[],"entries":[]}')).toBe('badHeader');
    expect(reasonOf('{"format":1,"version":1.5,"allocator":"","writers":[],"entries":[]}')).toBe('badHeader');
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.0.2.1"],1,0,0],["demo/a",["192.0.2.2"],1,0,0]]}`)).toBe('duplicateService');
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.0.2.1"],4,0,0]]}`)).toBe('entryNewerThanTable');
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.0.2.1"],3,1,0]]}`)).toBe('badEntry'); // writer index out of range
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.000.2.1"],1,0,0]]}`)).toBe('badEntry'); // not canonical
    expect(reasonOf(`{${header},"entries":[["demo/a",["2001:DB8::1"],1,0,0]]}`)).toBe('badEntry'); // not canonical
    expect(reasonOf(`{${header},"entries":[["demo/a",[],1,0,0]]}`)).toBe('badEntry'); // live without addresses
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.0.2.1","192.0.2.2","2001:db8::1"],1,0,0]]}`)).toBe('badEntry');
    expect(reasonOf(`{${header},"entries":[["no-slash",["192.0.2.1"],1,0,0]]}`)).toBe('badEntry');
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.0.2.1"],1,0,0,4]]}`)).toBe('badEntry'); // unknown flag
    expect(reasonOf(`{${header},"entries":[["demo/a",["192.0.2.1"],1,0,0,0]]}`)).toBe('badEntry'); // flags written only when set
    expect(reasonOf('{"format":1,"version":0,"allocator":"","writers":[],"entries":[]')).toBe('notJSON');
    expect(readAllocationTable(Uint8Array.of(0x7b, 0xff, 0x7d))).toMatchObject({ ok: false, reason: 'notUTF8' });
    // A released entry may have no addresses, and is read back as released.
    const ok = readAllocationTable(utf8(`{${header},"entries":[["demo/a",[],1,0,5,1]]}`));
    expect(ok.ok && ok.table.entries.get('demo/a')).toEqual({ ips: [], version: 1, writer: 'n', at: 5, released: true });
  });

  it('reads a restored entry with the version of its earlier life, which does not count against the table', () => {
    // Table version 3; the restored entry says 900 (a file from another life of the cluster).
    const header = `"format":${ALLOCATION_TABLE_FORMAT},"version":3,"allocator":"n","writers":["n"]`;
    const read = readAllocationTable(utf8(`{${header},"entries":[["demo/a",["192.0.2.1"],900,0,5,2],["demo/b",["192.0.2.2"],1,0,5,3]]}`));
    expect(read.ok && read.table.version).toBe(3);
    expect(read.ok && read.table.entries.get('demo/a')).toEqual({
      ips: ['192.0.2.1'],
      version: 900,
      writer: 'n',
      at: 5,
      released: false,
      restored: true,
    });
    expect(read.ok && read.table.entries.get('demo/b')).toMatchObject({ released: true, restored: true });
  });

  it('refuses input over MAX_ALLOCATION_TABLE_BYTES before parsing it, and will not encode a table that large', () => {
    expect(readAllocationTable(new Uint8Array(MAX_ALLOCATION_TABLE_BYTES + 1))).toMatchObject({ ok: false, reason: 'tooLarge' });
    const entries = Array.from(
      { length: 20_000 },
      (_, i) =>
        [
          `namespace-${i}/service-with-a-long-name-${i}`,
          entry([`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`], 1, 'node-1'),
        ] as const,
    );
    const big = makeAllocationTable(1, 'node-1', entries);
    expect(() => encodeAllocationTable(big)).toThrow(AllocationTableError);
    // Half of it fits, and decodes back.
    const half = makeAllocationTable(1, 'node-1', entries.slice(0, 10_000));
    const bytes = encodeAllocationTable(half);
    expect(bytes.length).toBeLessThanOrEqual(MAX_ALLOCATION_TABLE_BYTES);
    expect(decodeAllocationTable(bytes)?.entries.size).toBe(10_000);
  });
});
