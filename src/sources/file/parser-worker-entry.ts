/**
 * What the configuration parser's worker thread runs: the bundle it was started from. Under node that is the
 * module's own file (dist/mlb.mjs, or the source module under vitest); in the one-file build (dist/mlb) there is
 * no file, and a worker cannot run the executable's main script, so it runs the embedded copy of the bundle as
 * CommonJS source (Worker's eval mode): the same code, entered through main.ts's isConfigParserWorker() check.
 */
import { EMBEDDED, embeddedText } from '../../packaging/single-executable';

export interface ParserWorkerEntry {
  readonly script: string | URL;
  /** True when `script` is source text rather than a file. */
  readonly eval: boolean;
}

export function parserWorkerEntry(moduleUrl: string): ParserWorkerEntry {
  const source = embeddedText(EMBEDDED.bundle);
  return source === undefined ? { script: new URL(moduleUrl), eval: false } : { script: asFunctionBody(source), eval: true };
}

/**
 * A worker's eval source runs as a script in the global scope, where the bundle's top-level declarations would
 * collide with the globals of the same name (its `var crypto` with globalThis.crypto, a getter: the worker threw);
 * in the executable the same text runs inside CommonJS's module function. So it runs in a function here too.
 */
function asFunctionBody(source: string): string {
  return `(function () {\n${source}\n})();`;
}
