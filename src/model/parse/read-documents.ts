/**
 * Reads every document of a file into `parsed`, and keeps one slip from turning into a page of errors: a stray
 * "---" inside an object. YAML then sees two documents (YAML 1.2 section 9.1.3): the first half lacks the fields
 * after the marker ("pool has no prefixes defined"), the second lacks apiVersion and kind ("missing required
 * field"), and every reference to the object reports it missing. Instead, the "---" is named once, and both
 * halves are set aside. Documents with errors are remembered with their kind and name (parsed.broken), so the
 * warnings after reading do not report an object missing whose own document already has an error.
 *
 * A reload may reuse what the previous parse read of each unchanged document (readDocumentsReusing,
 * document-cache.ts): its reading is replayed where it would have been read, so the check above sees the same
 * documents in the same order and undoes a replayed reading as it undoes a fresh one.
 */
import type { AnyObject, SourcePosition } from '../types';
import { type DocumentCache, type DocumentReading, type ReadObjects, cachedReading, documentKey, rebound } from './document-cache';
import { DiagnosticCode } from './diagnostic-codes';
import { type DocumentShape, shapeOf } from './document-shape';
import type { DiagnosticSink } from './diagnostic-sink';
import { readDocument } from './objects';
import { type BrokenDocument, OBJECT_LISTS, type Parsed, type ParsedObjects } from './parsed-objects';
import { type DocumentSpan, type KnownDocument, type SourceText, type YamlDocument, yamlDocuments } from './yaml-documents';

/** Where the reading of the previous document began, to undo it when it turns out to be half an object. */
interface Previous {
  readonly shape: DocumentShape;
  readonly syntaxError: boolean;
  readonly sinkMark: number;
  readonly lengths: readonly number[];
  readonly brokenLength: number;
}

const lengthsOf = (parsed: ParsedObjects): number[] => OBJECT_LISTS.map((list) => parsed[list].length);

function truncateTo(parsed: ParsedObjects, lengths: readonly number[]): void {
  OBJECT_LISTS.forEach((list, i) => {
    parsed[list].length = lengths[i] ?? parsed[list].length;
  });
}

/**
 * The second half of a cut object: after a "---", a bare list, or a mapping without apiVersion or kind whose keys
 * the mapping before it does not have (a new object that merely forgot its kind repeats metadata and spec).
 */
function isSecondHalf(
  previous: Previous | undefined,
  document: { readonly syntaxError: boolean; readonly explicitStart: boolean },
  shape: DocumentShape,
): previous is Previous {
  if (previous === undefined || previous.syntaxError || document.syntaxError || !document.explicitStart) return false;
  const before = previous.shape.keys;
  if (before === undefined || before.length === 0) return false;
  if (shape.list) return true;
  if (shape.keys === undefined) return false;
  const headless = !shape.keys.includes('apiVersion') || !shape.keys.includes('kind');
  return headless && shape.keys.every((key) => !before.includes(key));
}

function splitMessage(document: { readonly start: SourcePosition }, before: DocumentShape, after: DocumentShape): string {
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
  readEach(yamlDocuments(text, source, sink), source, sink, parsed, undefined);
}

/**
 * readDocuments, reusing what `previous` (the cache an earlier parse of the same file returned) read of every
 * document that is unchanged and starts on the same line: its objects and diagnostics are replayed in order
 * instead of being read again (document-cache.ts). Returns this parse's cache, to pass to the next one.
 */
export function readDocumentsReusing(
  text: string,
  source: SourceText,
  sink: DiagnosticSink,
  parsed: ParsedObjects,
  previous: DocumentCache | undefined,
): DocumentCache {
  const kept = new Map<string, DocumentReading>();
  const documents = yamlDocuments(text, source, sink, (span) => cachedReading(previous, source, span));
  readEach(documents, source, sink, parsed, (span, reading) => {
    const key = documentKey(span);
    if (key !== undefined) kept.set(key, reading);
  });
  return { file: source.file, documents: kept };
}

type Keep = (span: DocumentSpan, reading: DocumentReading) => void;

function readEach(
  documents: Iterable<YamlDocument | KnownDocument<DocumentReading>>,
  source: SourceText,
  sink: DiagnosticSink,
  parsed: ParsedObjects,
  keep: Keep | undefined,
): void {
  /** A document read before: its reading, reporting into this parse, kept for the next one. */
  const reuse = (document: KnownDocument<DocumentReading>): DocumentReading => {
    const reading = rebound(document.known, source, sink);
    keep?.(document.span, reading);
    return reading;
  };
  let previous: Previous | undefined;
  for (const document of documents) {
    const shape = 'known' in document ? document.known.shape : shapeOf(source, document);
    const syntaxError = 'known' in document ? false : document.syntaxError;
    if (isSecondHalf(previous, { syntaxError, explicitStart: document.explicitStart }, shape)) {
      sink.dropSince(previous.sinkMark);
      truncateTo(parsed, previous.lengths);
      parsed.broken.length = previous.brokenLength;
      parsed.broken.push(brokenEntry(previous.shape));
      sink.error(DiagnosticCode.splitDocument, splitMessage(document, previous.shape, shape), document.start);
      // Not read now, but its reading stays known: the next edit may join it to an object again.
      if ('known' in document) reuse(document);
      previous = undefined;
      continue;
    }
    const current: Previous = {
      shape,
      syntaxError,
      sinkMark: sink.count,
      lengths: lengthsOf(parsed),
      brokenLength: parsed.broken.length,
    };
    if ('known' in document) replay(reuse(document), sink, parsed);
    else {
      // A document with a syntax error has had its error; its half-parsed content is not read.
      if (!document.syntaxError) readDocument(source, document, sink, parsed);
      if (keep !== undefined && document.span !== undefined) keep(document.span, readingSince(document.span, shape, current, sink, parsed));
    }
    if (syntaxError || sink.errorSince(current.sinkMark)) parsed.broken.push(brokenEntry(shape));
    previous = current;
  }
}

/** What reading one document added since `before`. */
function readingSince(
  span: DocumentSpan,
  shape: DocumentShape,
  before: Previous,
  sink: DiagnosticSink,
  parsed: ParsedObjects,
): DocumentReading {
  const objects: ReadObjects[] = [];
  OBJECT_LISTS.forEach((list, i) => {
    const from = before.lengths[i] ?? 0;
    const entries: readonly Parsed<AnyObject>[] = parsed[list];
    if (entries.length > from) objects.push({ list, entries: entries.slice(from) });
  });
  return { text: span.text, shape, diagnostics: sink.since(before.sinkMark), objects };
}

function replay(reading: DocumentReading, sink: DiagnosticSink, parsed: ParsedObjects): void {
  sink.replay(reading.diagnostics);
  for (const { list, entries } of reading.objects) (parsed[list] as Parsed<AnyObject>[]).push(...entries);
}

function brokenEntry(shape: DocumentShape): BrokenDocument {
  return { ...(shape.kind !== undefined && { kind: shape.kind }), ...(shape.name !== undefined && { name: shape.name }) };
}
