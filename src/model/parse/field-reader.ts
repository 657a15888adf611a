/**
 * Typed accessors over one YAML mapping. Every accessor marks its key as known and records where the value was
 * written (by field path, e.g. "spec.addresses[1]"), so checks that run after reading can still point at the
 * offending value. Keys nobody asked for are reported by finish() as unknown fields with a suggestion.
 */
import { type Document, type Node as YamlNode, type YAMLMap, isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { SourcePosition } from '../types';
import { DiagnosticCode, type DiagnosticCodeName } from './diagnostic-codes';
import type { DiagnosticSink } from './diagnostic-sink';
import { didYouMean } from './did-you-mean';
import { type DurationResult, parseDuration } from './duration';
import { PositionTable } from './position-table';
import { type SourceText, positionOfNode, resolveAlias } from './yaml-documents';

/** Everything the readers of one object share. */
export class ObjectScope {
  /** "Kind/namespace/name", filled in once metadata is read; attached to every diagnostic. */
  object: string | undefined;
  private readers: MapReader[] = [];
  /** The YAML document while it is read; dropped by finishAll (see there). */
  private document: Document.Parsed | undefined;

  constructor(
    readonly source: SourceText,
    doc: Document.Parsed | undefined,
    readonly sink: DiagnosticSink,
    readonly kind: string,
    /** Value positions by field path; "" is the document itself. Written while the object is read, then only read. */
    readonly positions = new PositionTable(),
  ) {
    this.document = doc;
  }

  /**
   * This scope, read to the end, reporting into another parse: an object read in an earlier parse and reused
   * (document-cache.ts), whose checks after reading (cross-checks, warnings) report into the new parse's sink. The
   * positions are shared: nothing writes them once the object is read.
   */
  reportingTo(source: SourceText, sink: DiagnosticSink): ObjectScope {
    const moved = new ObjectScope(source, undefined, sink, this.kind, this.positions);
    moved.object = this.object;
    return moved;
  }

  get doc(): Document.Parsed {
    if (this.document === undefined) throw new Error(`the ${this.kind} document was already read to the end`);
    return this.document;
  }

  positionOf(node: YamlNode): SourcePosition {
    return positionOfNode(this.source, node);
  }

  /** The node an alias names; an alias to nothing is reported and read as "not set". */
  resolve(node: YamlNode): YamlNode | undefined {
    const resolved = resolveAlias(this.doc, node);
    if (resolved === undefined) {
      this.error(
        DiagnosticCode.yamlSyntax,
        `YAML alias *${isAlias(node) ? node.source : ''} names no anchor defined before it in this document`,
        this.positionOf(node),
      );
    }
    return resolved;
  }

  error(code: DiagnosticCodeName, message: string, position: SourcePosition | undefined): void {
    this.sink.error(code, message, position, this.object);
  }

  warning(code: DiagnosticCodeName, message: string, position: SourcePosition | undefined): void {
    this.sink.warning(code, message, position, this.object);
  }

  note(code: DiagnosticCodeName, message: string, position: SourcePosition | undefined): void {
    this.sink.note(code, message, position, this.object);
  }

  register(reader: MapReader): void {
    this.readers.push(reader);
  }

  /**
   * Reports unknown fields of every mapping read for this object, then lets go of the YAML document and its
   * readers: the scope lives on with the parsed object (checks after reading need its positions), and a file of
   * many objects must not keep every syntax tree alive until the end of the parse.
   */
  finishAll(): void {
    for (const reader of this.readers) reader.finish();
    this.readers = [];
    this.document = undefined;
  }
}

export interface ListItem<T> {
  readonly value: T;
  readonly index: number;
  readonly path: string;
  readonly position: SourcePosition;
}

interface Entry {
  readonly key: YamlNode;
  readonly value: YamlNode | undefined;
}

/** How a YAML value looks, for "must be a boolean, not the string "yes"" messages. */
function describeNode(node: YamlNode): string {
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
    if (typeof v === 'number' || typeof v === 'bigint') return `the number ${node.source ?? String(v)}`;
    if (typeof v === 'boolean') return `the boolean ${String(v)}`;
    if (v === null) return 'null';
  }
  return 'an unsupported value';
}

export class MapReader {
  private readonly asked = new Set<string>();
  private readonly entries = new Map<string, Entry>();
  /** Extra words for unknown fields that are known elsewhere (e.g. a v1beta2-only field in a v1beta1 object). */
  hints: Readonly<Record<string, string>> = {};

  constructor(
    readonly scope: ObjectScope,
    readonly node: YAMLMap,
    /** For messages: "IPAddressPool spec", "Service spec.ports[0]". */
    readonly where: string,
    /** Field path of this mapping: "spec", "spec.ports[0]"; "" for the document. */
    readonly path: string,
  ) {
    scope.register(this);
    for (const pair of node.items) {
      const key = pair.key as YamlNode | null;
      if (key === null) continue;
      const keyNode = scope.resolve(key) ?? key;
      const name = isScalar(keyNode) ? String(keyNode.value) : '';
      const raw = pair.value as YamlNode | null;
      let value = raw === null ? undefined : scope.resolve(raw);
      // `field:` and `field: null` mean "not set", as JSON null does for the Kubernetes API.
      if (value !== undefined && isScalar(value) && value.value === null) value = undefined;
      this.entries.set(name, { key: keyNode, value });
    }
  }

  get position(): SourcePosition {
    return this.scope.positionOf(this.node);
  }

  fieldPath(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  fieldWhere(key: string): string {
    return `${this.where}${this.path === '' ? ' ' : '.'}${key}`;
  }

  /** The value node of a key that is set (not absent, not null); marks the key known. */
  raw(key: string): YamlNode | undefined {
    this.asked.add(key);
    const entry = this.entries.get(key);
    if (entry?.value === undefined) return undefined;
    this.scope.positions.set(this.fieldPath(key), this.entryPosition(entry));
    return entry.value;
  }

  has(key: string): boolean {
    return this.raw(key) !== undefined;
  }

  /** Marks keys as known without reading them (Kubernetes bookkeeping fields mlb has no use for). */
  ignore(...keys: string[]): void {
    for (const key of keys) this.asked.add(key);
  }

  keyPosition(key: string): SourcePosition {
    const entry = this.entries.get(key);
    return entry ? this.scope.positionOf(entry.key) : this.position;
  }

  /** Where the key's value was written (the key itself for a mapping or list), else this mapping. */
  valuePosition(key: string): SourcePosition {
    const entry = this.entries.get(key);
    return entry ? this.entryPosition(entry) : this.position;
  }

  /** A scalar is pointed at where it is written; a block mapping or list by its key, where a reader looks. */
  private entryPosition(entry: Entry): SourcePosition {
    if (entry.value === undefined || isMap(entry.value) || isSeq(entry.value)) return this.scope.positionOf(entry.key);
    return this.scope.positionOf(entry.value);
  }

  error(code: DiagnosticCodeName, message: string, key?: string): void {
    this.scope.error(code, message, key === undefined ? this.position : this.valuePosition(key));
  }

  warning(code: DiagnosticCodeName, message: string, key?: string): void {
    this.scope.warning(code, message, key === undefined ? this.position : this.valuePosition(key));
  }

  wrongType(key: string, expected: string, node: YamlNode, position?: SourcePosition): void {
    this.scope.error(
      DiagnosticCode.wrongType,
      `"${key}" in ${this.where} must be ${expected}, not ${describeNode(node)}`,
      position ?? this.scope.positionOf(node),
    );
  }

  missing(key: string): void {
    this.scope.error(DiagnosticCode.missingField, `missing required field "${key}" in ${this.where}`, this.position);
  }

  string(key: string, options: { required?: boolean } = {}): string | undefined {
    const node = this.raw(key);
    if (node === undefined) {
      if (options.required) this.missing(key);
      return undefined;
    }
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    this.wrongType(key, isScalar(node) ? 'a string (quote it)' : 'a string', node);
    return undefined;
  }

  boolean(key: string): boolean | undefined {
    const node = this.raw(key);
    if (node === undefined) return undefined;
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.wrongType(key, 'a boolean (true or false)', node);
    return undefined;
  }

  /** A whole number; range checks are the caller's, since several have MetalLB's own wording. */
  integer(key: string, options: { required?: boolean } = {}): number | undefined {
    const node = this.raw(key);
    if (node === undefined) {
      if (options.required) this.missing(key);
      return undefined;
    }
    if (isScalar(node) && typeof node.value === 'number' && Number.isSafeInteger(node.value)) return node.value;
    this.wrongType(key, 'a whole number', node);
    return undefined;
  }

  /** A whole number in min..max (inclusive), else an outOfRange error and undefined. */
  integerInRange(key: string, min: number, max: number): number | undefined {
    const value = this.integer(key);
    if (value === undefined) return undefined;
    if (value < min || value > max) {
      this.error(DiagnosticCode.outOfRange, `"${key}" in ${this.where} must be between ${min} and ${max}, got ${value}`, key);
      return undefined;
    }
    return value;
  }

  /** A metav1.Duration string, in milliseconds, with the text as written for messages. */
  duration(key: string): { readonly ms: number; readonly text: string } | undefined {
    const node = this.raw(key);
    if (node === undefined) return undefined;
    if (!isScalar(node) || typeof node.value !== 'string') {
      this.wrongType(key, 'a duration string such as "90s" or "1m30s"', node);
      return undefined;
    }
    const parsed: DurationResult = parseDuration(node.value);
    if (!parsed.ok) {
      this.error(DiagnosticCode.invalidDuration, `invalid duration "${node.value}" for "${key}" in ${this.where}: ${parsed.reason}`, key);
      return undefined;
    }
    return { ms: parsed.milliseconds, text: node.value };
  }

  map(key: string, options: { required?: boolean } = {}): MapReader | undefined {
    const node = this.raw(key);
    if (node === undefined) {
      if (options.required) this.missing(key);
      return undefined;
    }
    if (isMap(node)) return new MapReader(this.scope, node, this.fieldWhere(key), this.fieldPath(key));
    this.wrongType(key, 'a mapping', node);
    return undefined;
  }

  /** The items of a list, aliases resolved and positions recorded as "path[i]". */
  list(key: string): ListItem<YamlNode>[] | undefined {
    const node = this.raw(key);
    if (node === undefined) return undefined;
    if (!isSeq(node)) {
      this.wrongType(key, 'a list', node);
      return undefined;
    }
    const base = this.fieldPath(key);
    const items: ListItem<YamlNode>[] = [];
    node.items.forEach((item, index) => {
      const value = this.scope.resolve(item as YamlNode);
      if (value === undefined) return;
      const path = `${base}[${index}]`;
      const position = this.scope.positionOf(value);
      this.scope.positions.set(path, position);
      items.push({ value, index, path, position });
    });
    return items;
  }

  stringList(key: string): ListItem<string>[] {
    const out: ListItem<string>[] = [];
    for (const item of this.list(key) ?? []) {
      if (isScalar(item.value) && typeof item.value.value === 'string') {
        out.push({ ...item, value: item.value.value });
      } else {
        this.wrongType(`${key}[${item.index}]`, 'a string', item.value, item.position);
      }
    }
    return out;
  }

  mapList(key: string): ListItem<MapReader>[] {
    const out: ListItem<MapReader>[] = [];
    for (const item of this.list(key) ?? []) {
      if (isMap(item.value)) {
        const where = `${this.fieldWhere(key)}[${item.index}]`;
        out.push({ ...item, value: new MapReader(this.scope, item.value, where, item.path) });
      } else {
        this.wrongType(`${key}[${item.index}]`, 'a mapping', item.value, item.position);
      }
    }
    return out;
  }

  /** A string-to-string mapping (labels, annotations, selectors' matchLabels). */
  stringMap(key: string): Record<string, string> {
    const reader = this.map(key);
    if (!reader) return {};
    // Entries, not assignment: a key called "__proto__" must stay a key, not replace the prototype.
    const entries: [string, string][] = [];
    for (const name of reader.keys()) {
      const value = reader.string(name);
      if (value !== undefined) entries.push([name, value]);
    }
    return Object.fromEntries(entries);
  }

  /** The keys present, in file order (each marked known by the caller's reads). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  finish(): void {
    for (const [name, entry] of this.entries) {
      if (this.asked.has(name)) continue;
      const hint = this.hints[name];
      const suffix = hint !== undefined ? ` (${hint})` : didYouMean(name, this.asked);
      this.scope.error(DiagnosticCode.unknownField, `unknown field "${name}" in ${this.where}${suffix}`, this.scope.positionOf(entry.key));
    }
  }
}
