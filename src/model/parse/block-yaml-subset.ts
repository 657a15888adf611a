/**
 * A fast reader for the YAML that configuration files are made of: block mappings and block lists, one-line
 * plain, single- and double-quoted scalars, flow collections on one line ("[a, b]", "{ k: v }": flow-yaml-subset.ts),
 * comments and "---" between documents. It builds the `yaml`
 * package's own node classes with the same ranges and scalar values the package's Composer gives (scalars are
 * resolved by the package's core schema, YAML 1.2.2 section 10.3.2), so every reader and every position is the
 * same; it only skips the package's general machinery (a concrete syntax tree, tokens, anchors, block scalars),
 * which costs ten times the rest of a parse on a file of 10,000 Services.
 *
 * A document that uses anything else (a flow collection over several lines, "&anchor", "!tag", "|" block text, a multi-line or
 * escaped scalar, a tab, a directive), or that has a syntax error, makes it answer "unsupported": the caller then
 * gives the text to the `yaml` package, so errors keep their exact wording. Pure and synchronous.
 */
import type { Document, Node as YamlNode, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { newMap, newPair, newSeq } from './subset-nodes';
import { flowCollectionLine } from './flow-yaml-subset';
import {
  MAX_IMPLICIT_KEY_LENGTH,
  NEEDS_FULL_PARSER,
  PLAIN_KEY,
  SPECIAL_START,
  Unsupported,
  nullScalar,
  plainScalar,
  quotedScalar,
  unsupported,
} from './subset-scalars';

/** What a document read by the subset reader offers (the part of Document.Parsed the model's readers use). */
export interface SubsetDocument {
  readonly doc: Document.Parsed;
  readonly root: YamlNode | undefined;
  readonly start: number;
  readonly explicitStart: boolean;
}

/** The reader's answer for a document it does not read: the caller gives the text from here on to `yaml`. */
export const UNSUPPORTED = Symbol('unsupported');

/** A content line: not blank, not only a comment. */
interface Line {
  readonly start: number;
  readonly end: number;
  readonly indent: number;
}

class DocumentReader {
  private at = 0;

  constructor(
    private readonly text: string,
    private readonly lines: readonly Line[],
  ) {}

  read(): YamlNode {
    const first = this.lines[0] ?? unsupported();
    const root = this.block(first.indent);
    if (this.at < this.lines.length) unsupported();
    return root;
  }

  private get line(): Line | undefined {
    return this.lines[this.at];
  }

  private isDash(line: Line, column: number): boolean {
    const start = line.start + column;
    if (this.text[start] !== '-') return false;
    return start + 1 === line.end || this.text[start + 1] === ' ';
  }

  /** A mapping or a list whose first line is the current one, starting at its indentation. */
  private block(indent: number): YamlNode {
    const line = this.line ?? unsupported();
    return this.isDash(line, indent) ? this.list(indent) : this.mapping(indent, line.start + indent);
  }

  private list(indent: number): YAMLSeq {
    const seq = newSeq();
    let line = this.line;
    seq.range = [(line?.start ?? 0) + indent, 0, 0];
    while (line !== undefined && line.indent === indent && this.isDash(line, indent)) {
      seq.items.push(this.listItem(line, indent));
      line = this.line;
    }
    if (line !== undefined && line.indent > indent) unsupported();
    return seq;
  }

  private listItem(line: Line, indent: number): YamlNode {
    const dash = line.start + indent;
    let content = dash + 1;
    while (this.text[content] === ' ') content++;
    if (content >= line.end || this.text[content] === '#') {
      this.at++;
      return this.nestedOrNull(indent, dash + 1);
    }
    if (this.isKeyAt(content, line.end)) return this.mapping(content - line.start, content);
    const value = this.inlineScalar(content, line.end);
    this.at++;
    if (this.line !== undefined && this.line.indent > indent) unsupported();
    return value;
  }

  /** A block mapping at `column`; its first key starts at `offset` (after "- " for a mapping in a list). */
  private mapping(column: number, offset: number): YAMLMap {
    const map = newMap();
    map.range = [offset, 0, 0];
    const seen = new Set<unknown>();
    let keyAt = offset;
    for (;;) {
      const line = this.line ?? unsupported();
      const pair = this.entry(line, keyAt, column);
      const key = (pair.key as Scalar).value;
      if (seen.has(key)) unsupported(); // the package reports duplicate keys
      seen.add(key);
      map.items.push(pair);
      const next = this.line;
      if (next === undefined || next.indent < column) return map;
      if (next.indent > column || this.isDash(next, column)) unsupported();
      keyAt = next.start + column;
    }
  }

  /** indexOf within one line: a search for something a line lacks must not run on through the rest of the file. */
  private indexWithin(needle: string, from: number, end: number): number {
    const found = this.text.slice(from, end).indexOf(needle);
    return found === -1 ? -1 : from + found;
  }

  private isKeyAt(start: number, end: number): boolean {
    const colon = this.indexWithin(':', start, end);
    if (colon === -1) return false;
    const after = this.text[colon + 1];
    if (colon + 1 !== end && after !== ' ') return false;
    const key = this.text.slice(start, colon);
    return PLAIN_KEY.test(key) && key.length <= MAX_IMPLICIT_KEY_LENGTH;
  }

  private entry(line: Line, keyAt: number, column: number): Pair {
    if (!this.isKeyAt(keyAt, line.end)) unsupported();
    const colon = this.indexWithin(':', keyAt, line.end);
    const key = plainScalar(this.text.slice(keyAt, colon), keyAt);
    let content = colon + 1;
    while (this.text[content] === ' ') content++;
    this.at++;
    if (content >= line.end || (this.text[content] === '#' && content > colon + 1)) {
      const next = this.line;
      // A list may sit at its key's own indentation (YAML 1.2.2 example 8.22's "compact" form).
      if (next !== undefined && next.indent === column && this.isDash(next, column)) return newPair(key, this.list(column));
      return newPair(key, this.nestedOrNull(column, colon + 1));
    }
    const value = this.inlineScalar(content, line.end);
    if (this.line !== undefined && this.line.indent > column) unsupported();
    return newPair(key, value);
  }

  /** What follows a key or dash with nothing after it: a more indented block, or null. */
  private nestedOrNull(column: number, offset: number): YamlNode {
    const next = this.line;
    if (next !== undefined && next.indent > column) return this.block(next.indent);
    return nullScalar(offset);
  }

  /** A scalar that ends on its line, from `start` to the line's end, without a trailing comment. */
  private inlineScalar(start: number, end: number): YamlNode {
    const first = this.text[start] ?? '';
    if (first === '"' || first === "'") {
      const scalar = quotedScalar(this.text, start, end, first);
      if (!/^( *| +#.*)$/.test(this.text.slice(scalar.range?.[1], end))) unsupported();
      return scalar;
    }
    if (first === '[' || first === '{') return flowCollectionLine(this.text, start, end);
    if (SPECIAL_START.has(first)) {
      const second = this.text[start + 1];
      // "-1", "-x", ":x", "?x" are plain scalars; other indicators are not for this reader.
      if (!('-:?'.includes(first) && second !== undefined && second !== ' ' && start + 1 < end)) unsupported();
    }
    let stop = this.indexWithin(' #', start, end);
    if (stop === -1) stop = end;
    let last = stop;
    while (last > start && this.text[last - 1] === ' ') last--;
    const raw = this.text.slice(start, last);
    if (raw.endsWith(':') || raw.includes(': ')) unsupported(); // a mapping inside a scalar: the package's error
    return plainScalar(raw, start);
  }
}

/**
 * Where one document lies in the text, before it is read: where it starts (its "---" line, else its first content
 * line) and where the next one may start (`end`: the next "---" line, the line after a "..." that ends it, or the
 * end of the text). Everything the subset reader makes of it lies within these lines, so a document whose text
 * from `start` to `end` is unchanged reads the same.
 */
export interface SubsetSpan {
  readonly start: number;
  readonly end: number;
  readonly explicitStart: boolean;
}

/** A "---" or "..." line (a document marker, YAML 1.2.2 section 9.1.3), trailing spaces allowed. */
const MARKER_LINE = /^(?:---|\.\.\.)[ ]*$/;

/** The content lines of a span (not blank, not only a comment, not its markers): what DocumentReader reads. */
function contentLines(text: string, span: SubsetSpan): Line[] {
  const lines: Line[] = [];
  for (let offset = span.start; offset < span.end;) {
    const newline = text.indexOf('\n', offset);
    const end = newline === -1 ? text.length : newline;
    let indent = 0;
    while (text[offset + indent] === ' ') indent++;
    const first = text[offset + indent];
    const marker = indent === 0 && MARKER_LINE.test(text.slice(offset, end));
    if (first !== undefined && offset + indent < end && first !== '#' && !marker) lines.push({ start: offset, end, indent });
    if (newline === -1) break;
    offset = newline + 1;
  }
  return lines;
}

/** Reads one span into nodes; UNSUPPORTED when it uses anything outside the subset. */
export function readSubsetSpan(text: string, span: SubsetSpan): SubsetDocument | typeof UNSUPPORTED {
  const { start, explicitStart } = span;
  const lines = contentLines(text, span);
  let root: YamlNode | undefined;
  try {
    root = lines.length === 0 ? undefined : new DocumentReader(text, lines).read();
  } catch (error) {
    if (error instanceof Unsupported) return UNSUPPORTED;
    throw error;
  }
  const doc = {
    contents: root ?? null,
    errors: [],
    warnings: [],
    range: [start, start, start],
    directives: { docStart: explicitStart ? true : null },
  } as unknown as Document.Parsed;
  return { doc, root, start, explicitStart };
}

/**
 * The documents of `text` in order, each as soon as it is read; UNSUPPORTED (then nothing more) at the first
 * document outside the subset, or for the whole text when it holds characters only the package handles.
 */
export function* subsetDocuments(text: string): Generator<SubsetDocument | typeof UNSUPPORTED> {
  for (const span of subsetSpans(text)) {
    const document = span === UNSUPPORTED ? UNSUPPORTED : readSubsetSpan(text, span);
    yield document;
    if (document === UNSUPPORTED) return;
  }
}

/**
 * The documents of `text` as spans, not yet read (a caller that has read a span's text before need not read it
 * again); UNSUPPORTED (then nothing more) where the splitting itself needs the package's rules, or for the whole
 * text when it holds characters only the package handles. Only lines at column 0 can split documents: the others
 * are only looked at until a document's first content line is found.
 */
export function* subsetSpans(text: string): Generator<SubsetSpan | typeof UNSUPPORTED> {
  if (NEEDS_FULL_PARSER.test(text)) {
    yield UNSUPPORTED;
    return;
  }
  /** Where the document's "---" is (-1: none) and its first content line (-1: none yet). */
  let docStart = -1;
  let firstContent = -1;
  let explicit = false;
  let offset = 0;
  const span = (end: number): SubsetSpan => ({ start: docStart === -1 ? firstContent : docStart, end, explicitStart: explicit });
  while (offset <= text.length) {
    const newline = text.indexOf('\n', offset);
    const end = newline === -1 ? text.length : newline;
    const atColumn0 = text[offset];
    if (atColumn0 === '-' && text.startsWith('---', offset) && /^---[ ]*$/.test(text.slice(offset, end))) {
      if (docStart !== -1 || firstContent !== -1) yield span(offset);
      firstContent = -1;
      docStart = offset;
      explicit = true;
    } else if (atColumn0 === '.' && /^\.\.\.[ ]*$/.test(text.slice(offset, end))) {
      // A document end marker (YAML 1.2.2 section 9.1.4; a --config directory's files are joined with one): the
      // next document starts at its "---" or, without one, at its first line. One that ends nothing (only
      // comments before it) is a document of its own to the package: left to it.
      if (docStart === -1 && firstContent === -1) {
        yield UNSUPPORTED;
        return;
      }
      yield span(newline === -1 ? text.length : newline + 1);
      firstContent = -1;
      docStart = -1;
      explicit = false;
    } else if (atColumn0 === '%' || text.startsWith('...', offset) || text.startsWith('---', offset)) {
      yield UNSUPPORTED; // directives, content after "---" or "...": the package's rules
      return;
    } else if (firstContent === -1 && isContentLine(text, offset, end)) {
      firstContent = offset;
    }
    if (newline === -1) break;
    offset = newline + 1;
  }
  if (docStart !== -1 || firstContent !== -1) yield span(text.length);
}

/** Not blank and not only a comment. */
function isContentLine(text: string, offset: number, end: number): boolean {
  let at = offset;
  while (text[at] === ' ') at++;
  return at < end && text[at] !== '#';
}
