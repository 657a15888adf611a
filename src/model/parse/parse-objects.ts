/**
 * The configuration parser for objects that arrive as data rather than text: the Kubernetes API's JSON objects
 * (metallb.io resources, v1 Services and Nodes). Each object becomes a YAML document built from the value, so it
 * is read by exactly the readers and checks a file is (parse-config.ts): the same errors, the same warnings, the
 * same Snapshot. Only two things differ, both because the objects come from the API server:
 * - no positions: there is no file and line; every diagnostic names its object instead;
 * - a field mlb does not know is a warning, not an error (DiagnosticSink's warnOnly).
 * Pure and synchronous.
 */
import { Document } from 'yaml';
import type { AnyObject } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import { DiagnosticSink } from './diagnostic-sink';
import { readDocument } from './objects';
import { type ParseOptions, type ParseResult, finishParse } from './parse-config';
import { type Parsed, type ParsedObjects, emptyParsedObjects } from './parsed-objects';
import { type YamlDocument, sourceText } from './yaml-documents';

/** Codes that are warnings for API objects (see the file comment). */
const API_WARN_ONLY = new Set([DiagnosticCode.unknownField]);

/** Where API objects "start": they have no text, the value only fills a required field of YamlDocument. */
const NO_TEXT_START = { file: '', line: 0, column: 0 };

/**
 * Reads `objects` (plain JSON, each with apiVersion and kind, as the API server returns them); `origin` names
 * where they came from (the API server's address) for the objects' scope. Same result shape as parseConfig.
 */
export function parseApiObjects(objects: readonly unknown[], origin: string, options: ParseOptions = {}): ParseResult {
  const sink = new DiagnosticSink({ warnOnly: API_WARN_ONLY, positions: false });
  const source = sourceText(origin);
  const parsed = emptyParsedObjects();
  for (const object of objects) readDocument(source, documentOf(object), sink, parsed);
  withoutPositions(parsed);
  return finishParse(parsed, sink, options);
}

function documentOf(object: unknown): YamlDocument {
  // A document built from a value is what the composer would have made of the same JSON text, minus ranges.
  const doc = new Document(object) as unknown as Document.Parsed;
  const root = doc.contents ?? undefined;
  return { doc, root, syntaxError: false, start: NO_TEXT_START, explicitStart: false };
}

/** Positions the readers took from nodes that have none: dropped, so nothing points at a line that does not exist. */
function withoutPositions(parsed: ParsedObjects): void {
  strip(parsed.pools);
  strip(parsed.l2Advertisements);
  strip(parsed.bgpAdvertisements);
  strip(parsed.bgpPeers);
  strip(parsed.bfdProfiles);
  strip(parsed.communities);
  strip(parsed.services);
  strip(parsed.nodes);
}

function strip<T extends AnyObject, P extends Parsed<T>>(list: P[]): void {
  list.forEach((entry, index) => {
    const { position: _position, ...meta } = entry.object.meta;
    // Copied field by field, in order: a `delete` would turn each of 10,000 Services into a slow dictionary
    // object, and a spread followed by more fields gives each its own hidden class.
    const source = entry.object as unknown as Record<string, unknown>;
    const object: Record<string, unknown> = {};
    for (const key of Object.keys(source)) if (key !== 'fieldPositions') object[key] = key === 'meta' ? meta : source[key];
    list[index] = { ...entry, object: object as unknown as T };
  });
}
