/**
 * Flow collections on one line, as configuration files write them (`ports: [{ port: 80, protocol: TCP }]`,
 * `metadata: { name: a, namespace: b }`, `addresses: [10.0.0.0/24]`), for the subset reader (block-yaml-subset.ts):
 * the `yaml` package's own YAMLSeq, YAMLMap, Pair and Scalar nodes with the start offsets and values its Composer
 * gives (YAML 1.2.2 section 7.4). Anything else in flow context (a collection over several lines, a key without
 * ": ", an implicit null, a trailing comma, a plain scalar holding a flow indicator, a comment inside) throws
 * Unsupported: the document then goes to the package, with its exact errors. Pure.
 */
import { type Node as YamlNode, type Scalar, type YAMLMap, YAMLSeq } from 'yaml';
import { newMap, newPair, newSeq } from './subset-nodes';
import { MAX_IMPLICIT_KEY_LENGTH, PLAIN_KEY, plainScalar, quotedScalar, unsupported } from './subset-scalars';

/** Characters that end a plain scalar in flow context, or that it may not hold (YAML 1.2.2 section 7.3.3). */
const FLOW_INDICATORS = /[[\]{},]/;

/** Characters that cannot start a plain scalar here (indicators, or something only the package reads). */
const NOT_PLAIN_START = new Set(['[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', ':', '-', '"', "'"]);

/**
 * How deep collections may nest inside one flow collection before the package reads it instead: configuration
 * files nest two deep (a list of port mappings); the bound keeps a crafted line from exhausting the stack.
 */
const MAX_FLOW_DEPTH = 16;

class FlowLineReader {
  at: number;

  constructor(
    private readonly text: string,
    start: number,
    private readonly end: number,
  ) {
    this.at = start;
  }

  private skipSpaces(): void {
    while (this.at < this.end && this.text[this.at] === ' ') this.at++;
  }

  collection(depth: number): YamlNode {
    if (depth > MAX_FLOW_DEPTH) unsupported();
    const open = this.text[this.at];
    const start = this.at;
    this.at++;
    this.skipSpaces();
    const node = open === '[' ? newSeq() : newMap();
    node.flow = true;
    const close = open === '[' ? ']' : '}';
    if (this.text[this.at] === close) {
      this.at++;
      node.range = [start, this.at, this.at];
      return node;
    }
    for (;;) {
      if (node instanceof YAMLSeq) node.items.push(this.value(depth));
      else this.pairInto(node, depth);
      this.skipSpaces();
      const next = this.text[this.at];
      this.at++;
      if (next === close) break;
      if (next !== ',') unsupported();
      this.skipSpaces();
      // A trailing comma, or a collection that runs on to another line: the package's rules.
      if (this.at >= this.end || this.text[this.at] === close) unsupported();
    }
    node.range = [start, this.at, this.at];
    return node;
  }

  private pairInto(map: YAMLMap, depth: number): void {
    const keyStart = this.at;
    const colon = this.text.slice(keyStart, this.end).indexOf(': ');
    if (colon === -1) unsupported();
    const keyText = this.text.slice(keyStart, keyStart + colon);
    if (!PLAIN_KEY.test(keyText) || keyText.length > MAX_IMPLICIT_KEY_LENGTH) unsupported();
    const key = plainScalar(keyText, keyStart);
    if (map.items.some((pair) => (pair.key as Scalar).value === key.value)) unsupported(); // the package's error
    this.at = keyStart + colon + 1;
    this.skipSpaces();
    map.items.push(newPair(key, this.value(depth)));
  }

  /** "-3", "-x": a dash followed by more of the scalar starts a plain scalar, not a list item. */
  private isSignedPlain(): boolean {
    const second = this.text[this.at + 1] ?? ' ';
    return this.text[this.at] === '-' && this.at + 1 < this.end && second !== ' ' && !FLOW_INDICATORS.test(second);
  }

  private value(depth: number): YamlNode {
    const first = this.text[this.at] ?? '';
    if (first === '[' || first === '{') return this.collection(depth + 1);
    if (first === '"' || first === "'") {
      const scalar = quotedScalar(this.text, this.at, this.end, first);
      this.at = scalar.range?.[1] ?? unsupported();
      return scalar;
    }
    if (this.at >= this.end || (NOT_PLAIN_START.has(first) && !this.isSignedPlain())) unsupported();
    const start = this.at;
    let stop = start;
    while (stop < this.end && !FLOW_INDICATORS.test(this.text[stop] ?? '')) stop++;
    let last = stop;
    while (last > start && this.text[last - 1] === ' ') last--;
    const raw = this.text.slice(start, last);
    // A comment, a nested key or a colon at the end inside a flow collection: the package's rules.
    if (raw.includes(' #') || raw.includes(': ') || raw.endsWith(':') || raw.includes('\t')) unsupported();
    this.at = stop;
    return plainScalar(raw, start);
  }
}

/**
 * The flow collection starting at `start` (its "[" or "{") and closing on its line (`end`), followed by nothing
 * but spaces or a comment.
 */
export function flowCollectionLine(text: string, start: number, end: number): YamlNode {
  const reader = new FlowLineReader(text, start, end);
  const node = reader.collection(0);
  if (!/^( *| +#.*)$/.test(text.slice(reader.at, end))) unsupported();
  return node;
}
