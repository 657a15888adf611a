/**
 * The scalars of the subset reader (block-yaml-subset.ts, flow-yaml-subset.ts): built as the `yaml` package's
 * Composer builds them, with the same values, styles and ranges; anything the reader does not handle throws
 * Unsupported, and the caller gives the document to the package. Pure.
 */
import { Scalar, Schema } from 'yaml';
import { newScalar } from './subset-nodes';

/**
 * The `yaml` package refuses an implicit key longer than this (YAML 1.2.2 section 7.4.1 limits implicit keys to
 * 1024 characters); longer keys go to the package for its error.
 */
export const MAX_IMPLICIT_KEY_LENGTH = 1024;

/** A key as configuration files write it: Kubernetes field names, label and annotation keys, numbers. */
export const PLAIN_KEY = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;

/** Characters that start something other than a one-line plain scalar (YAML 1.2.2 section 5.3 indicators). */
export const SPECIAL_START = new Set(['[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', ':', '-']);

/** Control characters, carriage returns and a byte order mark need the package's handling (and its errors). */
export const NEEDS_FULL_PARSER = /[\u0000-\u0009\u000b-\u001f\u007f\r\ufeff]/;

/** The core schema's scalar tags that apply to untagged plain scalars, in the schema's order (first match wins). */
interface ScalarTagRule {
  readonly test: RegExp;
  readonly format?: string;
  readonly resolve: (text: string, onError: (message: string) => void, options: { intAsBigInt: boolean }) => unknown;
}
const SCALAR_TAGS = new Schema({}).tags.filter(
  (tag) => tag.default === true && 'test' in tag && tag.test instanceof RegExp,
) as unknown as readonly ScalarTagRule[];

/** Thrown inside the reader when a document leaves the subset; caught once per document. */
export class Unsupported extends Error {}
export const unsupported = (): never => {
  throw new Unsupported();
};

/**
 * The core schema's words that start with a letter (YAML 1.2.2 section 10.3.2: null and the booleans); its
 * numbers start with a digit, a sign or a dot. Any other text that starts with a letter is a string, with no
 * need to try every tag's pattern (most scalars of a configuration file are names, kinds and keys).
 */
const WORDS_WITH_MEANING: ReadonlySet<string> = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
const STARTS_WITH_LETTER = /^[A-Za-z]/;

const isPlainString = (text: string): boolean => STARTS_WITH_LETTER.test(text) && !WORDS_WITH_MEANING.has(text);

/** The scalar's value as the core schema resolves an unquoted text (the Composer's own rule). */
export function plainScalar(text: string, offset: number): Scalar {
  const tag = isPlainString(text) ? undefined : SCALAR_TAGS.find((t) => t.test.test(text));
  let scalar: Scalar;
  if (tag) {
    const resolved: unknown = tag.resolve(text, unsupported, { intAsBigInt: false });
    scalar = resolved instanceof Scalar ? resolved : newScalar(resolved);
    if (tag.format) scalar.format = tag.format;
  } else scalar = newScalar(text);
  scalar.range = [offset, offset + text.length, offset + text.length];
  scalar.source = text;
  scalar.type = Scalar.PLAIN;
  return scalar;
}

export function nullScalar(offset: number): Scalar {
  const scalar = newScalar(null);
  scalar.range = [offset, offset, offset];
  scalar.source = '';
  scalar.type = Scalar.PLAIN;
  return scalar;
}

/**
 * A quoted scalar that closes on its line (`end`): range[1] is just after the closing quote, where the caller
 * checks what may follow. Escapes in double quotes are the package's to read.
 */
export function quotedScalar(text: string, start: number, end: number, quote: string): Scalar {
  let value = '';
  let i = start + 1;
  for (;;) {
    // Within the line: a search for a quote the line lacks must not run on through the rest of the file.
    const found = text.slice(i, end).indexOf(quote);
    if (found === -1) unsupported(); // runs on to another line
    const close = i + found;
    if (quote === "'" && text[close + 1] === "'") {
      value += text.slice(i, close + 1);
      i = close + 2;
      continue;
    }
    value += text.slice(i, close);
    i = close + 1;
    break;
  }
  if (quote === '"' && value.includes('\\')) unsupported(); // escapes: the package's rules
  const scalar = newScalar(value);
  scalar.range = [start, i, i];
  scalar.source = value;
  scalar.type = quote === '"' ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE;
  return scalar;
}
