/**
 * Errors an operator can act on at once: overlaps and duplicates name both definitions as written and where the
 * first one is, a subnet list names each subnet once, a missing myASN names the field, and a tab or a stray "---"
 * gives one error at its line instead of knock-on errors and "pool does not exist" warnings.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/model';
import { L2_ALL, POOL, peerYaml, where } from './parse-helpers';

const parse = (text: string) => parseConfig(text, 'test.yaml');
const texts = (text: string) => parse(text).diagnostics.map((d) => `${d.position?.line}:${d.position?.column} ${d.severity}: ${d.message}`);

/** An advertisement naming pool "lan" (line 7), then pool "lan" from line 9. */
const AD_THEN_POOL = `${L2_ALL}spec:\n  ipAddressPools:\n    - lan\n---\n${POOL('lan', '192.168.10.200-192.168.10.220')}`;

describe('overlapping and duplicate pools', () => {
  it('name both entries as written (not a CIDR block cut from a range), both pools and where the first entry is', () => {
    const text = `${POOL('lan', '192.168.10.200-192.168.10.220')}---\n${POOL('more', '192.168.10.205-192.168.10.210')}---\n${L2_ALL}`;
    expect(texts(text)).toEqual([
      '15:7 error: CIDR "192.168.10.205-192.168.10.210" in pool "more" overlaps with already defined CIDR ' +
        '"192.168.10.200-192.168.10.220" in pool "lan" (defined at test.yaml:7:7)',
    ]);
  });

  it('say where the first definition of a duplicated name is', () => {
    const text = `${POOL('lan', '10.0.0.0/24')}---\n${POOL('lan', '10.1.0.0/24')}---\n${L2_ALL}`;
    expect(texts(text)).toEqual(['12:9 error: duplicate definition of pool "lan" (first defined at test.yaml:4:9)']);
  });
});

describe('the subnet warning', () => {
  it('names a subnet every node shares once, not once per node', () => {
    const node = (name: string) =>
      `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  annotations:\n    mlb.io/subnets: 192.168.10.0/24\n`;
    const text = `${POOL('lan', '192.168.20.0/28')}---\n${L2_ALL}---\n${node('a')}---\n${node('b')}---\n${node('c')}`;
    const [warning] = parse(text).diagnostics;
    expect(warning?.message).toContain('outside every known node subnet (192.168.10.0/24);');
  });
});

describe('a BGPPeer without myASN', () => {
  it('names the field to set', () => {
    const [error] = parse(peerYaml({ peerASN: 64512, peerAddress: '10.0.0.1' })).diagnostics;
    expect(error).toMatchObject({ code: 'missingLocalASN', message: expect.stringContaining('missing local ASN: set spec.myASN') });
  });
});

describe('a tab in the indentation', () => {
  it('is one error that says to use spaces, without "pool does not exist" for the pool it broke', () => {
    const text = AD_THEN_POOL.replace('  addresses:\n    - 192', '  addresses:\n\t- 192');
    expect(texts(text)).toEqual([
      '15:1 error: YAML syntax error: a tab indents line 15; YAML indents with spaces only: replace the tab with spaces',
    ]);
  });
});

describe('a stray "---"', () => {
  it('between metadata and spec is one error at its line, not an empty pool, a missing kind and a missing pool', () => {
    const text = AD_THEN_POOL.replace('  name: lan\nspec:', '  name: lan\n---\nspec:');
    expect(texts(text)).toEqual([
      '13:1 error: "---" on line 13 cuts IPAddressPool "lan" (from line 9) in two: what follows it (spec) has no ' +
        'apiVersion and kind. Remove this "---"; if a new object starts here, give it apiVersion and kind',
    ]);
    expect(parse(text).diagnostics[0]?.code).toBe('splitDocument');
  });

  it('inside the address list, or between apiVersion and kind, is one error too', () => {
    const inList = AD_THEN_POOL.replace('  addresses:\n    - 192', '  addresses:\n---\n    - 192');
    expect(where(parse(inList).diagnostics)).toEqual(['15:1 splitDocument']);
    expect(parse(inList).diagnostics[0]?.message).toContain('what follows it is a bare list');
    const inHeader = AD_THEN_POOL.replace(
      'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool',
      'apiVersion: metallb.io/v1beta1\n---\nkind: IPAddressPool',
    );
    expect(where(parse(inHeader).diagnostics)).toEqual(['10:1 splitDocument']);
    expect(parse(inHeader).diagnostics[0]?.message).toContain('(kind, metadata, spec) has no apiVersion');
  });

  it('indented is one error that says so', () => {
    const text = AD_THEN_POOL.replace('  addresses:\n    - 192', '  addresses:\n  ---\n    - 192');
    expect(parse(text).diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', code: 'yamlSyntax', message: expect.stringContaining('"---" on line 15 is indented') }),
    ]);
  });

  it('that makes an empty document changes nothing, and a new object that forgot apiVersion is not taken for half of one', () => {
    expect(parse(`${AD_THEN_POOL}---\n---\n`).ok).toBe(true);
    const forgot = `${AD_THEN_POOL}---\n${POOL('other', '10.0.0.0/24').replace('apiVersion: metallb.io/v1beta1\n', '')}`;
    expect(where(parse(forgot).diagnostics)).toEqual(['17:1 missingField']);
  });
});

describe('an object whose document has an error', () => {
  it('is not reported missing again where it is referred to, while warnings about other objects stay', () => {
    const text = `${AD_THEN_POOL.replace('kind: IPAddressPool', 'kind: IPAdressPool')}---\n${POOL('spare', '10.0.0.0/24')}`;
    expect(where(parse(text).diagnostics)).toEqual(['10:7 unknownKind', '20:9 poolNotAdvertised']);
    const typo = text.replace('    - lan\n', '    - lan-typo\n');
    expect(where(parse(typo).diagnostics)).toEqual(['7:7 poolNotFound', '10:7 unknownKind', '20:9 poolNotAdvertised']);
  });
});
