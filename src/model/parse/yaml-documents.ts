/**
 * Splits a multi-document YAML text into its documents with the `yaml` package, keeping a line counter so every
 * node can be turned into a 1-based line:column. Syntax errors become diagnostics; a document with one is not
 * read further (its half-parsed content would only produce confusing follow-up errors).
 *
 * Documents are composed one at a time (the package's Parser and Composer are generators), so a file of many
 * documents never holds all their syntax trees at once: each is read into an object and dropped before the next.
 */
import { Composer, type Document, LineCounter, Parser, type Node as YamlNode, isAlias, isScalar } from 'yaml';
import type { SourcePosition } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { DiagnosticSink } from './diagnostic-sink';
import { separateJsonObjects } from './json-stream';
import { UNSUPPORTED, readSubsetSpan, subsetSpans } from './block-yaml-subset';

/** Where a text came from, so node offsets can be turned into positions. */
export interface SourceText {
  readonly file: string;
  readonly lines: LineCounter;
  /** The files the text was joined from (a directory of them), in order; empty for one file. */
  readonly parts: readonly SourcePart[];
}

/**
 * One file of a text joined from several (a --config directory): its name and how many lines of the joined text
 * come before its first line, so a position in the joined text names the file and line an editor opens.
 */
export interface SourcePart {
  readonly file: string;
  readonly lineOffset: number;
}

export interface YamlDocument {
  readonly doc: Document.Parsed;
  /** The document's top-level node; undefined for an empty document ("---" alone, comments only). */
  readonly root: YamlNode | undefined;
  /**
   * The document has a YAML syntax error, already reported: it is not read, and `root` is what the parser made of
   * it anyway (enough to learn its kind and name, so references to it are not also reported as missing).
   */
  readonly syntaxError: boolean;
  /** Where the document starts: its "---" line when it has one. */
  readonly start: SourcePosition;
  /** Whether it starts with "---" (every document after the first does). */
  readonly explicitStart: boolean;
  /** Its text, when read by the subset reader and the caller recognises documents (see `yamlDocuments`). */
  readonly span?: DocumentSpan;
}

/**
 * A document's text and where it lies, for a caller that keeps what it read of each document (document-cache.ts):
 * the subset reader's reading of a document depends on nothing else (block-yaml-subset.ts), and its positions on
 * nothing but the line it starts on.
 */
export interface DocumentSpan {
  /** From its start (its "---" line, else its first content line) to where the next document may start. */
  readonly text: string;
  readonly start: SourcePosition;
  /** Where its last character is: in another file than `start` when it runs across a --config directory's files. */
  readonly end: SourcePosition;
}

/** A document the caller has read before (its `known` answered for the span): not read into nodes again. */
export interface KnownDocument<T> {
  readonly known: T;
  readonly span: DocumentSpan;
  readonly start: SourcePosition;
  readonly explicitStart: boolean;
}

function positionAt(source: SourceText, offset: number): SourcePosition {
  const { line, col } = source.lines.linePos(offset);
  const part = partOfLine(source.parts, line);
  return part ? { file: part.file, line: line - part.lineOffset, column: col } : { file: source.file, line, column: col };
}

/** The last part starting before `line` (1-based in the joined text); parts are in ascending order. */
function partOfLine(parts: readonly SourcePart[], line: number): SourcePart | undefined {
  let found: SourcePart | undefined;
  for (const part of parts) {
    if (part.lineOffset >= line) break;
    found = part;
  }
  return found;
}

export function positionOfNode(source: SourceText, node: YamlNode): SourcePosition {
  return positionAt(source, node.range?.[0] ?? 0);
}

/**
 * Follows an alias (*anchor) to the node it names; other nodes are returned as they are. Undefined when the
 * anchor is not defined earlier in the same document (anchors do not cross "---").
 */
export function resolveAlias(doc: Document.Parsed, node: YamlNode): YamlNode | undefined {
  let current: unknown = node;
  // Anchors cannot form cycles in valid YAML, but a bound keeps a crafted file from spinning.
  for (let hops = 0; hops < 100 && isAlias(current); hops++) current = current.resolve(doc);
  return isAlias(current) ? undefined : (current as YamlNode | undefined);
}

/** The yaml package appends " at line L, column C:" and a source excerpt; the position is given separately. */
function plainMessage(message: string): string {
  const cut = message.indexOf(' at line ');
  return cut === -1 ? message : message.slice(0, cut);
}

/** The text of the line holding `offset`, for errors whose cause is plain on the line itself. */
function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end === -1 ? text.length : end);
}

/**
 * The parser's first error in words that say what to do, for the two slips that are invisible in an editor: a tab
 * in the indentation (YAML 1.2 section 6.1 allows only spaces there) and an indented "---" (a document marker
 * must start its line, section 9.1.3; indented, the parser reads it as text in the middle of a mapping).
 */
function syntaxMessage(error: { code: string; message: string }, line: string, at: SourcePosition): string {
  if (error.code === 'TAB_AS_INDENT') {
    return `YAML syntax error: a tab indents line ${at.line}; YAML indents with spaces only: replace the tab with spaces`;
  }
  if (/^[ \t]+---[ \t]*$/.test(line)) {
    return (
      `YAML syntax error: "---" on line ${at.line} is indented; a document separator starts at column 1, and one ` +
      'inside an object cuts it in two: remove it'
    );
  }
  return `YAML syntax error: ${plainMessage(error.message)}`;
}

/** Where positions in `text` come from: one line counter, filled in as the documents are composed. */
export function sourceText(file: string, parts: readonly SourcePart[] = []): SourceText {
  return { file, lines: new LineCounter(), parts };
}

/**
 * The documents of `text`, read lazily in file order: by the subset reader while the text stays within what
 * configuration files use (block-yaml-subset.ts: ten times faster), else by the `yaml` package from the first
 * document the subset reader does not read. Either way each is read into an object and dropped before the next.
 *
 * `known`: a caller that keeps what it read of documents before is asked about each document the subset reader
 * would read (DocumentSpan); one it answers for is yielded as a KnownDocument, without reading it into nodes. The
 * package's documents are always read (what the package makes of a document may depend on the ones before it).
 */
export function yamlDocuments(given: string, source: SourceText, sink: DiagnosticSink): Generator<YamlDocument>;
export function yamlDocuments<T>(
  given: string,
  source: SourceText,
  sink: DiagnosticSink,
  known: (span: DocumentSpan) => T | undefined,
): Generator<YamlDocument | KnownDocument<T>>;
export function* yamlDocuments<T>(
  given: string,
  source: SourceText,
  sink: DiagnosticSink,
  known?: (span: DocumentSpan) => T | undefined,
): Generator<YamlDocument | KnownDocument<T>> {
  // Several `kubectl get -o json` outputs in one text become one document each (json-stream.ts).
  const text = separateJsonObjects(given);
  // Every line is known before the first document, so positions can be given whichever reader reads it.
  countLines(source.lines, text);
  let read = 0;
  for (const subset of subsetSpans(text)) {
    if (subset === UNSUPPORTED) {
      yield* composedDocuments(text, source, sink, read);
      return;
    }
    const start = positionAt(source, subset.start);
    const documentSpan: DocumentSpan | undefined = known && {
      text: text.slice(subset.start, subset.end),
      start,
      end: positionAt(source, Math.max(subset.start, subset.end - 1)),
    };
    const hit = documentSpan && known?.(documentSpan);
    if (documentSpan !== undefined && hit !== undefined) {
      read++;
      yield { known: hit, span: documentSpan, start, explicitStart: subset.explicitStart };
      continue;
    }
    const document = readSubsetSpan(text, subset);
    if (document === UNSUPPORTED) {
      yield* composedDocuments(text, source, sink, read);
      return;
    }
    read++;
    yield { ...document, syntaxError: false, start, ...(documentSpan && { span: documentSpan }) };
  }
}

function countLines(lines: LineCounter, text: string): void {
  lines.addNewLine(0);
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines.addNewLine(at + 1);
}

/**
 * The documents of `text` as the `yaml` package composes them, after the first `skip` (already read by the subset
 * reader, block-yaml-subset.ts, which reads the same documents into the same nodes).
 */
function* composedDocuments(text: string, source: SourceText, sink: DiagnosticSink, skip: number): Generator<YamlDocument> {
  // The core schema (YAML 1.2) is what the Kubernetes API effectively accepts for these fields: "65000:100"
  // stays a string (YAML 1.1 would read it as a base-60 number).
  const parser = new Parser();
  const composer = new Composer();
  let index = 0;
  for (const doc of composer.compose(parser.parse(text))) {
    if (index++ < skip) continue;
    const [first] = doc.errors;
    if (first) {
      // Only the first: the parser's later errors in the same document are mostly echoes of it.
      const at = positionAt(source, first.pos[0]);
      sink.error(DiagnosticCode.yamlSyntax, syntaxMessage(first, lineAt(text, first.pos[0]), at), at);
    }
    const root = doc.contents;
    // "---" alone or a comment-only document parses as a null scalar: nothing to read.
    const empty = root === null || (isScalar(root) && root.value === null);
    yield {
      doc,
      root: empty ? undefined : root,
      syntaxError: first !== undefined,
      start: positionAt(source, doc.range[0]),
      explicitStart: doc.directives?.docStart === true,
    };
  }
}
