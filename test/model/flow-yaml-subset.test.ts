/**
 * Flow collections on one line ("[a, b]", "{ k: v }") are read by the subset reader (flow-yaml-subset.ts) into the
 * nodes the `yaml` package composes, so a file written the way kubectl examples and the scale bench write it stays
 * on the fast path; and a file's errors name the same line, column and words on either path.
 */
import { Composer, Parser, isMap, isPair, isScalar, isSeq } from 'yaml';
import { describe, expect, it } from 'vitest';
import { UNSUPPORTED, subsetDocuments } from '../../src/model/parse/block-yaml-subset';
import { parseConfig } from '../../src/model';

/** A node as a comparable tree: kind, start offset, flow style, and for scalars the value, style, source and format. */
function shape(node: unknown): unknown {
  if (node === null || node === undefined) return null;
  if (isScalar(node)) return ['scalar', node.range?.[0], node.value, node.type ?? null, node.source, node.format ?? null];
  if (isMap(node))
    return ['map', node.range?.[0], node.flow === true, node.items.map((p) => (isPair(p) ? [shape(p.key), shape(p.value)] : 'not a pair'))];
  if (isSeq(node)) return ['seq', node.range?.[0], node.flow === true, node.items.map((item) => shape(item))];
  return ['other'];
}

/** How many documents of `text` the subset reader read, each checked against the package's reading. */
function readAlike(text: string): number {
  const composed = [...new Composer().compose(new Parser().parse(text))];
  let read = 0;
  for (const document of subsetDocuments(text)) {
    if (document === UNSUPPORTED) break;
    const theirs = composed[read];
    expect(theirs?.errors ?? [], `the package found an error in ${JSON.stringify(text)}`).toEqual([]);
    expect(shape(document.root), JSON.stringify(text)).toEqual(shape(theirs?.contents));
    read++;
  }
  return read;
}

const READ_BY_THE_SUBSET = [
  'a: [1, 2]\n',
  'a: []\nb: {}\n',
  'metadata: { name: scale, namespace: metallb-system }\n',
  'spec:\n  ports: [{ port: 80, protocol: TCP }]\n',
  'spec: { addresses: [10.0.0.0/16, "fc00::/64", fc01::/64] } # comment\n',
  'a: [\'x\', "y", z]\nb: [{a: 1}, {b: [true, null, ~, 0x1F, 1.5, -3, .inf]}]\n',
  '- [a, b]\n- {k: v}\n',
  'a: [ spaced , items ]\n',
  'a: {x: a-b.c/d_e}\n',
];

const LEFT_TO_THE_PACKAGE = [
  'a: [1,\n  2]\n',
  'a: [1, 2,]\n',
  'a: {k}\n',
  'a: {k:v}\n',
  'a: [k: v]\n',
  'a: {a: 1, a: 2}\n',
  'a: [&x 1, *x]\n',
  'a: [!!str 1]\n',
  'a: [1] trailing\n',
  'a: [x # c]\n',
  'a: ["esc\\n"]\n',
  'a: [1\n',
  'a: {b: [c}\n',
];

describe('flow collections in the subset reader', () => {
  it('reads one-line flow collections into the nodes the yaml package composes', () => {
    for (const text of READ_BY_THE_SUBSET) expect(readAlike(text), JSON.stringify(text)).toBe(1);
  });

  it('leaves everything else in flow context to the package', () => {
    for (const text of LEFT_TO_THE_PACKAGE) expect(readAlike(text), JSON.stringify(text)).toBe(0);
  });
});

/**
 * The same documents, read by the subset reader (FAST_HEAD) or by the package (PACKAGE_HEAD: an anchor sends
 * the whole text to it). Both heads are one pool on the same lines, so every later position is the same.
 */
const FAST_HEAD =
  'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: { name: lan, namespace: metallb-system }\nspec: { addresses: [10.0.0.0/16] }\n';
const PACKAGE_HEAD =
  'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: { name: lan, namespace: metallb-system }\nspec: { addresses: [&a 10.0.0.0/16] }\n';
const service = (spec: string, metadata = '{ name: web, namespace: demo }'): string =>
  `---\napiVersion: v1\nkind: Service\nmetadata: ${metadata}\nspec: ${spec}\n`;

const BAD_INPUTS = [
  service('{ type: LoadBalancer, ports: [{ port: eighty, protocol: TCP }] }'),
  service('{ type: LoadBalancer, ports: [{ port: 80, protocol: SCTPX }] }'),
  service('{ type: LoadBalancer, prots: [{ port: 80 }] }'),
  service('{ type: LoadBalancer, ports: [{ port: 80 }], loadBalancerIP: 300.1.1.1 }'),
  service('{ type: LoadBalancer, ports: [{ port: 80 }] }', '{ name: Web_Bad, namespace: demo }'),
  service('{ type: LoadBalancer, ports: [80] }'),
  service('{ type: LoadBalancer, ipFamilies: [IPv7], ports: [{ port: 80 }] }'),
  '---\napiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata: { name: l2, namespace: metallb-system }\nspec: { ipAddressPools: [lann], interfaces: [eth0, 5] }\n',
  '---\napiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: { name: two, namespace: metallb-system }\nspec: { addresses: [10.0.0.0/33, 10.1.0.0/16], autoAsign: false }\n',
  `${service('{ type: LoadBalancer, ports: [{ port: 80 }] }')}${service('{ type: LoadBalancer, ports: [{ port: 80 }] }')}`,
];

describe('errors in flow collections', () => {
  it('name the same line, column and words whether the subset reader or the package read the file', () => {
    for (const body of BAD_INPUTS) {
      const fast = parseConfig(FAST_HEAD + body, 'mlb.yaml');
      const slow = parseConfig(PACKAGE_HEAD + body, 'mlb.yaml');
      expect(fast.ok, body).toBe(false);
      expect(fast.diagnostics, body).toEqual(slow.diagnostics);
    }
  });

  it('the subset reader is the one that read them', () => {
    for (const body of BAD_INPUTS) expect([...subsetDocuments(FAST_HEAD + body)], body).not.toContain(UNSUPPORTED);
  });
});
