/**
 * The configuration parser: multi-document YAML text in, a validated Snapshot or the reasons it is not one
 * out. Pure and synchronous (no files, no clock): sources/file reads the file and calls this.
 */
import type { CIDR } from '../../ip';
import type { Diagnostic } from '../diagnostic';
import type { Snapshot } from '../snapshot';
import { buildSnapshot } from './build-snapshot';
import { collectAliases, resolveCommunities } from './community-aliases';
import { runCrossChecks } from './cross-checks';
import { DiagnosticSink } from './diagnostic-sink';
import { type ParsedObjects, emptyParsedObjects } from './parsed-objects';
import { type PeerSecrets, resolvePeerSecrets } from './peer-secrets';
import { collectWarnings } from './warnings';
import type { DocumentCache } from './document-cache';
import { readDocuments, readDocumentsReusing } from './read-documents';
import { type SourcePart, sourceText } from './yaml-documents';

export interface ParseOptions {
  /**
   * Subnets the caller knows hosts are attached to (the daemon passes its own interfaces' networks), added to
   * Nodes' mlb.io/subnets annotations for the addressOutsideSubnets warning. No subnets known: no warning.
   */
  readonly knownSubnets?: readonly CIDR[];
  /** The text is several files joined (sources/file/config-directory.ts): positions name the file they are in. */
  readonly parts?: readonly SourcePart[];
  /**
   * The Secrets of the MetalLB namespace by name, where BGPPeer passwordSecret references are looked up
   * (Kubernetes mode). Undefined: the objects come from a file, which can hold no Secret.
   */
  /** Kubernetes mode: the namespace's Secrets; 'unreadable' when the reader may not list them (no check then). */
  readonly peerSecrets?: PeerSecrets | 'unreadable';
}

export type ParseResult =
  | { readonly ok: true; readonly snapshot: Snapshot; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/**
 * Reads `text` (named `file` in positions and messages). ok: no diagnostic is an error; diagnostics hold every
 * error and warning, sorted by line and column. Objects keep the order of the file only for MetalLB's
 * order-dependent checks (pool overlaps); the Snapshot lists are sorted by namespace and name.
 */
export function parseConfig(text: string, file: string, options: ParseOptions = {}): ParseResult {
  const sink = new DiagnosticSink();
  const source = sourceText(file, options.parts);
  const parsed = emptyParsedObjects();
  readDocuments(text, source, sink, parsed);
  return finishParse(parsed, sink, options);
}

/** A parse that kept what it read of each document, for the next parse of the same file (document-cache.ts). */
export interface ReusableParse {
  readonly result: ParseResult;
  readonly documents: DocumentCache;
}

/**
 * parseConfig for a file parsed again (a daemon's reload): the documents `previous` holds unchanged, at the same
 * start, are not read again. The result is exactly parseConfig's; `documents` is what to pass the next time.
 */
export function parseConfigReusing(text: string, file: string, options: ParseOptions, previous: DocumentCache | undefined): ReusableParse {
  const sink = new DiagnosticSink();
  const source = sourceText(file, options.parts);
  const parsed = emptyParsedObjects();
  const documents = readDocumentsReusing(text, source, sink, parsed, previous);
  return { result: finishParse(parsed, sink, options), documents };
}

/**
 * What follows reading, for every way objects arrive (YAML text here, API objects in parse-objects.ts): the
 * checks across objects, community aliases, warnings, and the Snapshot when nothing is an error.
 */
export function finishParse(parsed: ParsedObjects, sink: DiagnosticSink, options: ParseOptions = {}): ParseResult {
  resolvePeerSecrets(parsed, options.peerSecrets);
  runCrossChecks(parsed);
  const aliases = collectAliases(parsed);
  const bgpAdvertisements = parsed.bgpAdvertisements.map((ad) => resolveCommunities(ad, aliases));
  collectWarnings(parsed, options.knownSubnets ?? []);
  const diagnostics = sink.sorted();
  if (sink.hasErrors) return { ok: false, diagnostics };
  const warnings = diagnostics.filter((d) => d.severity === 'warning');
  return { ok: true, snapshot: buildSnapshot(parsed, bgpAdvertisements, warnings), diagnostics };
}
