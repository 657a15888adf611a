import { describe, expect, it } from 'vitest';
import { parseCIDR } from '../../src/ip';
import { L2_ALL, POOL, parseOk } from './parse-helpers';

const node = (name: string, labels: Record<string, string>): string =>
  `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  labels:\n${Object.entries(labels)
    .map(([k, v]) => `    ${k}: "${v}"\n`)
    .join('')}`;
const EXCLUDE = 'node.kubernetes.io/exclude-from-external-load-balancers';

describe('warnings', () => {
  it('warns when every node of the file is excluded and the advertisement selects all nodes', () => {
    const snapshot = parseOk(`${POOL('p', '10.0.0.0/24')}---\n${L2_ALL}---\n${node('a', { [EXCLUDE]: '' })}`);
    expect(snapshot.warnings.map((w) => w.code)).toEqual(['excludedNodesOnly']);
    expect(snapshot.warnings[0]?.message).toContain('selects every node (no nodeSelectors)');
  });

  it('stays quiet when one selected node can announce, or when no Node is known', () => {
    expect(
      parseOk(`${POOL('p', '10.0.0.0/24')}---\n${L2_ALL}---\n${node('a', { [EXCLUDE]: '' })}---\n${node('b', { x: 'y' })}`).warnings,
    ).toEqual([]);
    expect(parseOk(`${POOL('p', '10.0.0.0/24')}---\n${L2_ALL}`).warnings).toEqual([]);
  });

  it('uses caller-known subnets for the L2 subnet check, per family', () => {
    const text = `${POOL('p', '10.0.0.0/28', 'fd00::/120')}---\n${L2_ALL}`;
    expect(parseOk(text).warnings).toEqual([]);
    const inside = parseOk(text, { knownSubnets: [parseCIDR('10.0.0.0/24')!] });
    expect(inside.warnings).toEqual([]);
    const outside = parseOk(text, { knownSubnets: [parseCIDR('192.168.1.0/24')!] });
    expect(outside.warnings.map((w) => `${w.position?.line}:${w.position?.column} ${w.code}`)).toEqual(['7:7 addressOutsideSubnets']);
  });

  it('does not apply the subnet check to BGP-only pools (they belong outside the node subnet)', () => {
    const text = `${POOL('p', '192.168.20.0/28')}---\napiVersion: metallb.io/v1beta1\nkind: BGPAdvertisement\nmetadata:\n  name: b\n`;
    expect(parseOk(text, { knownSubnets: [parseCIDR('192.168.10.0/24')!] }).warnings).toEqual([]);
  });

  it('counts a pool reached through a selector as advertised', () => {
    const pool = POOL('p', '10.0.0.0/24').replace('  name: p\n', '  name: p\n  labels:\n    tier: a\n');
    const ad =
      'apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: l2\nspec:\n  ipAddressPoolSelectors:\n    - matchLabels:\n        tier: a\n';
    expect(parseOk(`${pool}---\n${ad}`).warnings).toEqual([]);
  });
});
