import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance, parseConfig, parseDuration } from '../../src/model';
import { L2_ALL, POOL, parseErrors, parseOk, where } from './parse-helpers';

describe('metav1.Duration', () => {
  it.each([
    ['90s', 90_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['-3s', -3000],
    ['2us', 0.002],
    ['1h2m3s4ms', 3_723_004],
    ['.5s', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, milliseconds: ms });
  });

  it.each(['90', '', 's', '1x', '1.s.', '5 s', '1e3s'])('refuses %j', (text) => {
    expect(parseDuration(text).ok).toBe(false);
  });
});

describe('suggestions', () => {
  it('counts a swap of neighbours as one edit and ignores case', () => {
    expect(editDistance('nmae', 'name')).toBe(1);
    expect(editDistance('autoassign', 'autoAssign')).toBe(0);
    expect(closestMatch('peerAdress', ['peerAddress', 'peerASN', 'peerPort'])).toBe('peerAddress');
  });

  it('does not suggest something unrelated', () => {
    expect(closestMatch('vrf', ['ttl', 'myASN'])).toBeUndefined();
    expect(closestMatch('color', ['autoAssign', 'addresses'])).toBeUndefined();
  });
});

describe('documents', () => {
  it('skips empty documents and comments, and reads YAML anchors within a document', () => {
    const sel =
      'apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: l2\nspec:\n  nodeSelectors:\n    - &rack {matchLabels: {rack: r1}}\n  serviceSelectors:\n    - *rack\n';
    const snapshot = parseOk(`---\n# nothing here\n---\n${POOL('a', '10.0.0.0/24')}---\n${sel}---\n`);
    expect(snapshot.l2Advertisements[0]?.serviceSelectors).toEqual([{ matchLabels: { rack: 'r1' }, matchExpressions: [] }]);
  });

  it('refuses an alias to an anchor of another document', () => {
    const text = `${POOL('a', '10.0.0.0/24')}  serviceAllocation: &alloc\n    priority: 5\n---\n${POOL('b', '10.1.0.0/24')}  serviceAllocation: *alloc\n`;
    expect(where(parseErrors(text))).toEqual(['18:22 yamlSyntax']);
  });

  it('an empty file is a valid, empty configuration', () => {
    const result = parseConfig('', 'empty.yaml');
    expect(result.ok && result.snapshot.pools).toEqual([]);
  });

  it('keeps reading after a broken document, and sorts diagnostics by position', () => {
    const broken = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  - item\n';
    const errors = parseErrors(`${POOL('z', '10.0.0.0/99')}---\n${broken}---\n${POOL('a', '10.0.0.0/33')}`);
    expect(where(errors)).toEqual(['7:7 invalidCIDR', '13:1 yamlSyntax', '21:7 invalidCIDR']);
  });

  it('attaches the object to each diagnostic', () => {
    const [error] = parseErrors(POOL('p', 'nope'));
    expect(error?.object).toBe('IPAddressPool/metallb-system/p');
  });
});

describe('Snapshot', () => {
  const text = `${POOL('zeta', '10.0.1.0/24')}---\n${POOL('alpha', '10.0.0.0/24').replace('  name: alpha\n', '  name: alpha\n  namespace: other\n')}---\n${POOL('beta', '10.0.2.0/24')}---\n${L2_ALL}`;

  it('lists objects by namespace, then name, whatever the file order', () => {
    expect(parseOk(text).pools.map((p) => `${p.meta.namespace}/${p.meta.name}`)).toEqual([
      'metallb-system/beta',
      'metallb-system/zeta',
      'other/alpha',
    ]);
  });

  it('is frozen all the way down', () => {
    const snapshot = parseOk(text);
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot.pools)).toBe(true);
    expect(Object.isFrozen(snapshot.pools[0]?.cidrs[0]?.ip)).toBe(true);
    expect(() => (snapshot.pools as unknown as unknown[]).push(1)).toThrow(TypeError);
  });

  it('two parses of one text are equal', () => {
    expect(parseOk(text)).toEqual(parseOk(text));
  });
});
