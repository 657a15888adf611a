/**
 * What reading each document of a configuration text produced, kept from one parse to the next so that a reload
 * reads again only the documents that changed (read-documents.ts replays the rest). A document is recognised by
 * its exact text and the file and line it starts on: the subset reader's reading of a document depends on its text
 * alone (block-yaml-subset.ts), and its positions on nothing but that line. An append, the usual edit, keeps every
 * earlier document's start; the documents after an edit that adds or removes lines are read again. What looks
 * across documents (the stray "---", cross-checks, warnings) runs on every parse as before.
 *
 * Bounded: a parse's cache holds that parse's documents only, so it does not grow across reloads. Pure data: a
 * value a parse is given and returns.
 */
import type { Diagnostic } from '../diagnostic';
import type { AnyObject } from '../types';
import type { DiagnosticSink } from './diagnostic-sink';
import type { ObjectList, Parsed } from './parsed-objects';
import type { DocumentShape } from './document-shape';
import type { DocumentSpan, SourceText } from './yaml-documents';

/** The objects one document added to one list of ParsedObjects, in order. */
export interface ReadObjects {
  readonly list: ObjectList;
  readonly entries: readonly Parsed<AnyObject>[];
}

/** Everything reading one document did: what it added to ParsedObjects and the sink, and what it looks like. */
export interface DocumentReading {
  /** The document's text (DocumentSpan.text): what must be unchanged for the reading to be reused. */
  readonly text: string;
  /** Its top level, for the stray "---" check against its neighbours. */
  readonly shape: DocumentShape;
  readonly diagnostics: readonly Diagnostic[];
  readonly objects: readonly ReadObjects[];
}

export interface DocumentCache {
  /** The name the text was parsed under (positions and messages name it). */
  readonly file: string;
  /** By where the document starts (documentKey). */
  readonly documents: ReadonlyMap<string, DocumentReading>;
}

/**
 * Where a document starts, as the cache knows it; undefined for one that runs from one file of a --config
 * directory into the next (its positions would also depend on where that file starts).
 */
export function documentKey(span: DocumentSpan): string | undefined {
  if (span.end.file !== span.start.file) return undefined;
  return `${span.start.line}\n${span.start.file}`;
}

/** The reading of `span` in `cache`, when its document was there with the same text at the same start. */
export function cachedReading(cache: DocumentCache | undefined, source: SourceText, span: DocumentSpan): DocumentReading | undefined {
  if (cache === undefined || cache.file !== source.file) return undefined;
  const key = documentKey(span);
  const reading = key === undefined ? undefined : cache.documents.get(key);
  return reading !== undefined && reading.text === span.text ? reading : undefined;
}

/**
 * The same reading with its objects reporting into this parse (`sink`): their checks after reading report there,
 * and the cache does not keep an earlier parse's sink and text alive.
 */
export function rebound(reading: DocumentReading, source: SourceText, sink: DiagnosticSink): DocumentReading {
  return {
    ...reading,
    objects: reading.objects.map(({ list, entries }) => ({
      list,
      entries: entries.map((entry) => ({ ...entry, scope: entry.scope.reportingTo(source, sink) })),
    })),
  };
}
