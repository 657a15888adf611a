/**
 * Reads every document of a file into `parsed`, and keeps one slip from turning into a page of errors: a stray
 * "---" inside an object. YAML then sees two documents (YAML 1.2 section 9.1.3): the first half lacks the fields
 * after the marker ("pool has no prefixes defined"), the second lacks apiVersion and kind ("missing required
 * field"), and every reference to the object reports it missing. Instead, the "---" is named once, and both
 * halves are set aside. Documents with errors are remembered with their kind and name (parsed.broken), so the
 * warnings after reading do not report an object missing whose own document already has an error.
 */
import { type Node as YamlNode, isMap, isScalar, isSeq } from 'yaml';
import type { SourcePosition } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { DiagnosticSink } from './diagnostic-sink';
import { readDocument } from './objects';
import type { BrokenDocument, ParsedObjects } from './parsed-objects';
import { type SourceText, type YamlDocument, positionOfNode, yamlDocuments } from './yaml-documents';

/** The top level of a document, as far as it can be seen without reading it. */
interface DocumentShape {
  /** Top-level keys of a mapping; undefined for a list, a scalar or an empty document. */
  readonly keys: readonly string[] | undefined;
  readonly list: boolean;
  readonly kind?: string;
  readonly name?: string;
  readonly position: SourcePosition | undefined;
}

function scalarString(node: unknown): string | undefined {
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

function shapeOf(source: SourceText, document: YamlDocument): DocumentShape {
  const root = document.root as YamlNode | undefined;
  const position = root === undefined ? undefined : positionOfNode(source, root);
  if (!isMap(root)) return { keys: undefined, list: isSeq(root), position };
  const keys = root.items.map((item) => (isScalar(item.key) ? String(item.key.value) : ''));
  const metadata = root.get('metadata', true);
  const kind = scalarString(root.get('kind', true));
  const name = isMap(metadata) ? scalarString(metadata.get('name', true)) : undefined;
  return { keys, list: false, position, ...(kind !== undefined && { kind }), ...(name !== undefined && { name }) };
}

/** Where the reading of the previous document began, to undo it when it turns out to be half an object. */
interface Previous {
  readonly shape: DocumentShape;
  readonly syntaxError: boolean;
  readonly sinkMark: number;
  readonly lengths: readonly number[];
  readonly brokenLength: number;
}

const LISTS = ['pools', 'l2Advertisements', 'bgpAdvertisements', 'bgpPeers', 'bfdProfiles', 'communities', 'services', 'nodes'] as const;

const lengthsOf = (parsed: ParsedObjects): number[] => LISTS.map((list) => parsed[list].length);

function truncateTo(parsed: ParsedObjects, lengths: readonly number[]): void {
  LISTS.forEach((list, i) => {
    parsed[list].length = lengths[i] ?? parsed[list].length;
  });
}

/**
 * The second half of a cut object: after a "---", a bare list, or a mapping without apiVersion or kind whose keys
 * the mapping before it does not have (a new object that merely forgot its kind repeats metadata and spec).
 */
function isSecondHalf(previous: Previous | undefined, document: YamlDocument, shape: DocumentShape): previous is Previous {
  if (previous === undefined || previous.syntaxError || document.syntaxError || !document.explicitStart) return false;
  const before = previous.shape.keys;
  if (before === undefined || before.length === 0) return false;
  if (shape.list) return true;
  if (shape.keys === undefined) return false;
  const headless = !shape.keys.includes('apiVersion') || !shape.keys.includes('kind');
  return headless && shape.keys.every((key) => !before.includes(key));
}

function splitMessage(document: YamlDocument, before: DocumentShape, after: DocumentShape): string {
  const object = before.kind !== undefined ? `${before.kind}${before.name === undefined ? '' : ` "${before.name}"`}` : 'the document';
  const from = before.position === undefined ? '' : ` (from line ${before.position.line})`;
  const rest = after.list
    ? 'is a bare list, not an object'
    : `(${(after.keys ?? []).join(', ')}) has no ${['apiVersion', 'kind'].filter((k) => !after.keys?.includes(k)).join(' and ')}`;
  return (
    `"---" on line ${document.start.line} cuts ${object}${from} in two: what follows it ${rest}. ` +
    'Remove this "---"; if a new object starts here, give it apiVersion and kind'
  );
}

export function readDocuments(text: string, source: SourceText, sink: DiagnosticSink, parsed: ParsedObjects): void {
  let previous: Previous | undefined;
  for (const document of yamlDocuments(text, source, sink)) {
    const shape = shapeOf(source, document);
    if (isSecondHalf(previous, document, shape)) {
      sink.dropSince(previous.sinkMark);
      truncateTo(parsed, previous.lengths);
      parsed.broken.length = previous.brokenLength;
      parsed.broken.push(brokenEntry(previous.shape));
      sink.error(DiagnosticCode.splitDocument, splitMessage(document, previous.shape, shape), document.start);
      previous = undefined;
      continue;
    }
    const current: Previous = {
      shape,
      syntaxError: document.syntaxError,
      sinkMark: sink.count,
      lengths: lengthsOf(parsed),
      brokenLength: parsed.broken.length,
    };
    // A document with a syntax error has had its error; its half-parsed content is not read.
    if (!document.syntaxError) readDocument(source, document, sink, parsed);
    if (document.syntaxError || sink.errorSince(current.sinkMark)) parsed.broken.push(brokenEntry(shape));
    previous = current;
  }
}

function brokenEntry(shape: DocumentShape): BrokenDocument {
  return { ...(shape.kind !== undefined && { kind: shape.kind }), ...(shape.name !== undefined && { name: shape.name }) };
}
