import { describe, expect, it } from 'vitest';
import { PositionTable } from '../../src/model/parse/position-table';

const at = (line: number, column: number, file = 'mlb.yaml') => ({ file, line, column });

describe('PositionTable', () => {
  it('gives back where each field was written, and nothing for a field never seen', () => {
    const table = new PositionTable();
    table.set('', at(1, 1));
    table.set('metadata.name', at(3, 9));
    table.set('spec.ports[0].port', at(7, 15));
    expect(table.get('metadata.name')).toEqual(at(3, 9));
    expect(table.get('')).toEqual(at(1, 1));
    expect(table.get('spec.ports[0].port')).toEqual(at(7, 15));
    expect(table.get('spec.loadBalancerIP')).toBeUndefined();
    expect(table.size).toBe(3);
  });

  it('replaces a field written again, as a Map would', () => {
    const table = new PositionTable();
    table.set('spec.type', at(5, 9));
    table.set('spec.type', at(6, 11));
    expect(table.get('spec.type')).toEqual(at(6, 11));
    expect(table.size).toBe(1);
  });

  it('keeps every entry of a long list findable, replaced in place (an indexed table)', () => {
    const table = new PositionTable();
    for (let i = 0; i < 10_000; i++) table.set(`spec.addresses[${i}]`, at(10 + i, 7));
    table.set('spec.addresses[9999]', at(1, 2));
    expect(table.size).toBe(10_000);
    expect(table.get('spec.addresses[0]')).toEqual(at(10, 7));
    expect(table.get('spec.addresses[5000]')).toEqual(at(5010, 7));
    expect(table.get('spec.addresses[9999]')).toEqual(at(1, 2));
  });

  it("names each position's own file when one object spans two files of a --config directory", () => {
    const table = new PositionTable();
    table.set('', at(40, 1, 'a.yaml'));
    table.set('metadata.name', at(42, 9, 'a.yaml'));
    table.set('spec.addresses[0]', at(1, 5, 'b.yaml'));
    table.set('metadata.name', at(43, 9, 'a.yaml'));
    expect(table.get('')).toEqual(at(40, 1, 'a.yaml'));
    expect(table.get('spec.addresses[0]')).toEqual(at(1, 5, 'b.yaml'));
    expect(table.get('metadata.name')).toEqual(at(43, 9, 'a.yaml'));
  });
});
