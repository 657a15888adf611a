/**
 * The subset reader (block-yaml-subset.ts) must read every document it accepts into exactly the nodes the `yaml`
 * package composes: same kinds, values, scalar styles and start offsets (positions in messages come from them).
 * Checked over every YAML file in the repository's fixtures and examples plus texts at the subset's edges; and
 * a large file's error must still name the line and column it is on.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Composer, type Node as YamlNode, Parser, isMap, isPair, isScalar, isSeq } from 'yaml';
import { describe, expect, it } from 'vitest';
import { UNSUPPORTED, subsetDocuments } from '../../src/model/parse/block-yaml-subset';
import { parseConfig } from '../../src/model';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

/** A node as a comparable tree: kind, start offset, and for scalars the value, style, source text and format. */
function shape(node: unknown): unknown {
  if (node === null || node === undefined) return null;
  if (isScalar(node)) {
    const value = node.value === null ? null : node.value;
    return [
      'scalar',
      node.range?.[0],
      typeof value === 'number' && Number.isNaN(value) ? 'NaN' : value,
      node.type ?? null,
      node.source,
      node.format ?? null,
    ];
  }
  if (isMap(node))
    return ['map', node.range?.[0], node.items.map((pair) => (isPair(pair) ? [shape(pair.key), shape(pair.value)] : 'not a pair'))];
  if (isSeq(node)) return ['seq', node.range?.[0], node.items.map((item) => shape(item))];
  return ['other'];
}

function emptyRoot(node: YamlNode | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}

/** Documents the subset reader read, each beside the package's reading of the same document. */
function compare(text: string): number {
  const composed = [...new Composer().compose(new Parser().parse(text))];
  let read = 0;
  for (const document of subsetDocuments(text)) {
    if (document === UNSUPPORTED) break;
    const theirs = composed[read];
    expect(theirs, `document ${read} of ${JSON.stringify(text.slice(0, 80))}`).toBeDefined();
    expect(theirs?.errors ?? [], 'the package found an error in a document the subset reader accepted').toEqual([]);
    const theirRoot = theirs?.contents ?? null;
    expect(shape(document.root), `document ${read}`).toEqual(emptyRoot(theirRoot as YamlNode | null) ? null : shape(theirRoot));
    expect(document.explicitStart).toBe(theirs?.directives?.docStart === true);
    if (document.explicitStart) expect(document.start).toBe(theirs?.range[0]);
    read++;
  }
  return read;
}

const EDGES = [
  'a: 1\n',
  'a: 1\n---\n',
  '# leading comment\n---\na: 1\n',
  '\n\na: 1\n---\n# only a comment\n---\nb:\n  - x\n  -\n  - c: 1\n    d: "q"\n',
  'k:\n- a\n- b\nz: 3\n',
  "k: x # c\nz: 'it''s'\ny: \"a#b\" # c\n",
  'n: 0x1F\no: 0o17\nf: 1.5\ne: 1e3\ni: .inf\nnan: .nan\nt: True\nf2: FALSE\nnu: ~\nnl: Null\nneg: -12\npos: +7\nzero: 007\n',
  'ip: 10.0.0.1\nurl: http://127.0.0.1:8080/healthz\nweird: a:b\nhash: a#b\n',
  '80: port\ntrue: yes\n',
  '  indented: root\n  second: 2\n',
  'list:\n  - - nested\n',
  'a: [1, 2]\n',
  'a: &x 1\nb: *x\n',
  'a: |\n  text\n',
  'a: b\n  c\n',
  'a: 1\na: 2\n',
  'a: b: c\n',
  'a:\tb\n',
  'a: "esc\\n"\n',
  'a: "open\n  more"\n',
  '- x\n- y: 1\n  z: 2\n-\n  w: 3\n',
  'a: 1\n...\n---\nb: 2\n',
  'a: 1\n...\nb: 2\n...\n',
  '---\n...\n---\nc: 3\n',
  '# c\n...\n# d\na: 1\n',
  'a: 1\n... # end\nb: 2\n',
  '--- \na: 1\n',
  '---\n',
  '',
  '# only\n',
  'a:\n  b:\n    c:\n      - d: 1\n        e:\n          - f\n',
  'a: -x\nb: -1\nc: :x\n',
  'a: 1\n  # deeper comment\nb: 2\n',
  'key with space: 1\n',
  'a: x\n- b\n',
];

describe('the subset reader', () => {
  it('reads every fixture and example the way the yaml package composes it', () => {
    const files = [...yamlFiles('test/fixtures'), ...yamlFiles('examples')];
    expect(files.length).toBeGreaterThan(20);
    let read = 0;
    for (const file of files) read += compare(readFileSync(file, 'utf8'));
    // Most configuration files are within the subset: the fast path is the common one.
    expect(read).toBeGreaterThan(files.length);
  });

  it('reads texts at the edges of the subset the same way, or leaves them to the package', () => {
    for (const text of EDGES) compare(text);
  });

  it('leaves a document with a syntax error to the package', () => {
    const documents = [...subsetDocuments('a: 1\n---\nb: [1\n')];
    expect(documents.at(-1)).toBe(UNSUPPORTED);
    expect(documents).toHaveLength(2);
  });
});

describe('a large file', () => {
  const services = 10_000;
  const serviceText = (i: number, port: string): string =>
    `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-${i}\n  namespace: demo\nspec:\n  type: LoadBalancer\n  ports:\n    - name: http\n      port: ${port}\n      protocol: TCP\n`;
  const head = 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: lan\nspec:\n  addresses:\n    - 10.0.0.0/16\n';

  it('names the line and column of an error far into it', () => {
    const bad = 7_777;
    let text = head;
    let badLine = 0;
    for (let i = 0; i < services; i++) {
      if (i === bad) badLine = text.split('\n').length - 1 + 11;
      text += serviceText(i, i === bad ? '"eighty"' : '80');
    }
    const result = parseConfig(text, 'big.yaml');
    expect(result.ok).toBe(false);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.position).toEqual({ file: 'big.yaml', line: badLine, column: 13 });
    expect(errors[0]?.message).toContain('"port"');
  });

  it('gives the same result whether a syntax error late in it sends the rest to the package or not', () => {
    let text = head;
    for (let i = 0; i < 50; i++) text += serviceText(i, '80');
    const clean = parseConfig(text, 'big.yaml');
    const withFlow = parseConfig(
      `${text}---\napiVersion: v1\nkind: Service\nmetadata: {name: late, namespace: demo}\nspec:\n  type: LoadBalancer\n  ports: [{port: 81}]\n`,
      'big.yaml',
    );
    expect(clean.ok && withFlow.ok).toBe(true);
    if (clean.ok && withFlow.ok) {
      expect(withFlow.snapshot.services).toHaveLength(clean.snapshot.services.length + 1);
      expect(withFlow.snapshot.services.filter((s) => s.meta.name !== 'late')).toEqual(clean.snapshot.services);
    }
  });
});
