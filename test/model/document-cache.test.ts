// A reload that reuses what the previous parse read of each document (document-cache.ts) gives exactly what a
// fresh parse of the same text gives: the same snapshot, positions included, and the same diagnostics, after any
// sequence of edits of a multi-document file (documents added, removed, changed in place or with more lines,
// invalid YAML, unknown kinds, a stray "---" cutting an object, comments, a --config directory of two files).
// And it does reuse: unchanged objects come back as the very objects of the previous snapshot.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DocumentCache, type ParseOptions, parseConfig, parseConfigReusing } from '../../src/model';

const NAMES = ['a', 'b', 'c'];
const name = fc.constantFrom(...NAMES);
const cidr = fc.constantFrom('192.0.2.0/28', '192.0.2.16/28', '198.51.100.0/24', '192.0.2.0/99');

const pool = fc
  .tuple(name, cidr, fc.boolean())
  .map(
    ([n, c, autoAssign]) =>
      `apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: ${n}\nspec:\n  addresses:\n    - ${c}\n  autoAssign: ${autoAssign}\n`,
  );
/** Refers to pools that may be missing (a warning about another document) or broken (no warning then). */
const l2 = fc
  .tuple(name, name)
  .map(([n, p]) => `apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata:\n  name: ${n}\nspec:\n  ipAddressPools: [${p}]\n`);
const service = fc
  .tuple(name, fc.constantFrom('192.0.2.1', '192.0.2.17', '203.0.113.9'), fc.constantFrom(80, 443))
  .map(
    ([n, ip, port]) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-${n}\n  namespace: demo\n  annotations:\n    metallb.io/loadBalancerIPs: ${ip}\n` +
      `spec:\n  type: LoadBalancer\n  ports: [{ port: ${port}, protocol: TCP }]\n`,
  );
const node = name.map((n) => `apiVersion: v1\nkind: Node\nmetadata:\n  name: node-${n}\n  labels:\n    rack: r1\n`);

const oddities = fc.constantFrom(
  // unknown kind, unknown field, missing name
  'apiVersion: v1\nkind: Servise\nmetadata:\n  name: x\n',
  'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: typo\nspec:\n  adresses:\n    - 192.0.2.64/28\n',
  'apiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata: {}\n',
  // invalid YAML: the package reads from here on
  'apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  - item\n',
  'apiVersion: v1\nkind: Service\nmetadata: { name: unclosed\n',
  // outside the subset but valid: an anchor, a block scalar
  'apiVersion: v1\nkind: Node\nmetadata:\n  name: anchored\n  labels: &l\n    rack: r2\n',
  'apiVersion: v1\nkind: Node\nmetadata:\n  name: described\n  annotations:\n    note: |\n      two\n      lines\n',
  // an object cut by a stray "---", and a second half alone (it cuts whatever precedes it)
  'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: cut\n---\nspec:\n  addresses:\n    - 192.0.2.128/28\n',
  'spec:\n  addresses:\n    - 192.0.2.192/28\n',
  '- a bare\n- list\n',
  // comments, empty documents, a document end marker, a List
  '# only a comment\n',
  '\n# a comment\n\napiVersion: v1\nkind: Node\nmetadata:\n  name: commented # trailing\n\n',
  'apiVersion: v1\nkind: Node\nmetadata:\n  name: ended\n...\n',
  'apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata:\n      name: listed\n',
  '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "json"}}\n',
);

const documentArb = fc.oneof(
  { weight: 3, arbitrary: pool },
  { weight: 2, arbitrary: l2 },
  { weight: 4, arbitrary: service },
  { weight: 1, arbitrary: node },
  { weight: 3, arbitrary: oddities },
);

type Edit =
  | { readonly kind: 'insert' | 'replace'; readonly at: number; readonly document: string }
  | { readonly kind: 'remove'; readonly at: number }
  | { readonly kind: 'append'; readonly document: string };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('insert' as const, 'replace' as const), at: fc.nat(), document: documentArb }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), document: documentArb }),
);

function applyEdit(documents: readonly string[], edit: Edit): string[] {
  const next = [...documents];
  if (edit.kind === 'append') next.push(edit.document);
  else if (next.length === 0) next.push(edit.kind === 'remove' ? '# emptied\n' : edit.document);
  else if (edit.kind === 'insert') next.splice(edit.at % (next.length + 1), 0, edit.document);
  else if (edit.kind === 'replace') next.splice(edit.at % next.length, 1, edit.document);
  else next.splice(edit.at % next.length, 1);
  return next;
}

/** How the documents are written down: what comes first, and where a --config directory's second file starts. */
interface Layout {
  readonly lead: string;
  /** Index of the first document of the second file; undefined: one file. */
  readonly split: number | undefined;
}

const layoutArb: fc.Arbitrary<Layout> = fc.record({
  lead: fc.constantFrom('', '---\n', '# header\n'),
  split: fc.option(fc.nat({ max: 6 }), { nil: undefined }),
});

const lineCount = (text: string): number => text.split('\n').length - 1;

/** The text parseConfig is given, and its options: one file, or two joined as config-directory.ts joins them. */
function written(documents: readonly string[], layout: Layout): { text: string; options: ParseOptions } {
  const join = (docs: readonly string[]): string => layout.lead + docs.join('---\n');
  if (layout.split === undefined) return { text: join(documents), options: {} };
  const cut = Math.min(layout.split, documents.length);
  const first = join(documents.slice(0, cut));
  const second = join(documents.slice(cut));
  const parts = [
    { file: 'conf.d/10-a.yaml', lineOffset: 0 },
    { file: 'conf.d/20-b.yaml', lineOffset: lineCount(first) + 1 },
  ];
  return { text: `${first}...\n${second}`, options: { parts } };
}

/** Documents of `now` whose reading is the one `before` kept (the same shape object): not read again. */
function reusedReadings(before: DocumentCache | undefined, now: DocumentCache): number {
  const old = new Set([...(before?.documents.values() ?? [])].map((reading) => reading.shape));
  return [...now.documents.values()].filter((reading) => old.has(reading.shape)).length;
}

describe('a parse that reuses the previous readings', () => {
  it('gives exactly what a fresh parse gives, edit after edit', () => {
    let reused = 0;
    fc.assert(
      fc.property(
        fc.array(documentArb, { maxLength: 8 }),
        // The layout changes now and then (a header line added, the files split elsewhere): all lines shift.
        fc.array(fc.tuple(editArb, fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: layoutArb })), {
          minLength: 1,
          maxLength: 8,
        }),
        layoutArb,
        (first, edits, firstLayout) => {
          let documents = first;
          let cache: DocumentCache | undefined;
          const step = (layout: Layout): void => {
            const { text, options } = written(documents, layout);
            const again = parseConfigReusing(text, 'mlb.yaml', options, cache);
            expect(again.result, text).toStrictEqual(parseConfig(text, 'mlb.yaml', options));
            reused += reusedReadings(cache, again.documents);
            cache = again.documents;
          };
          let layout = firstLayout;
          step(layout);
          for (const [edit, changed] of edits) {
            documents = applyEdit(documents, edit);
            layout = changed ?? layout;
            step(layout);
          }
        },
      ),
      { numRuns: 300 },
    );
    // Not a parse that merely read everything again.
    expect(reused).toBeGreaterThan(100);
  });

  it('replays the findings of reused documents, and checks across documents report on reused objects', () => {
    const service = (n: string): string =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\nspec:\n  type: LoadBalancer\n  typo: 1\n  ports: [{ port: 80 }]\n`;
    const text = `${service('dup')}---\n${service('dup')}`;
    const first = parseConfigReusing(text, 'mlb.yaml', {}, undefined);
    const appended = `${text}---\n${service('other')}`;
    const again = parseConfigReusing(appended, 'mlb.yaml', {}, first.documents);
    const errors = again.result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.position?.line}:${d.code}`);
    expect(errors).toEqual(['7:unknownField', '13:duplicateName', '16:unknownField', '25:unknownField']);
    expect(again.result).toStrictEqual(parseConfig(appended, 'mlb.yaml'));
  });

  it('keeps the objects of unchanged documents: an append changes nothing else', () => {
    const service = (n: string): string =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\nspec:\n  type: LoadBalancer\n  ports: [{ port: 80 }]\n`;
    const text = `${service('one')}---\n${service('two')}`;
    const first = parseConfigReusing(text, 'mlb.yaml', {}, undefined);
    const again = parseConfigReusing(`${text}---\n${service('three')}`, 'mlb.yaml', {}, first.documents);
    if (!first.result.ok || !again.result.ok) throw new Error('expected valid configurations');
    expect(again.result.snapshot.services.map((s) => s.meta.name)).toEqual(['one', 'three', 'two']);
    expect(again.result.snapshot.services.filter((s) => first.result.ok && first.result.snapshot.services.includes(s))).toHaveLength(2);
  });
});
