/**
 * The command lines main.ts answers without loading the command line (cli-program.ts: yargs and the command list,
 * most of what a start of mlb parses and compiles): `mlb`, `mlb --help` and `mlb -h` print the top-level help, and
 * `mlb --version` and `mlb -v` the version line. The help is not a copy kept by hand: scripts/build.mjs runs the
 * bundle's own `mlb --help` at a few widths and bakes each text into the bundle's entry
 * (test/cli/prebuilt-help.test.ts holds them equal to what the whole command line prints). Anything that could
 * change the answer sends the command line the long way: another argument, an MLB_ variable (yargs reads MLB_X as
 * --x: MLB_JSON=true makes `mlb --version` print JSON), a locale yargs might translate its headings into, a width
 * no text was baked for. From source (vitest) nothing is baked, and every command line goes the long way.
 */
import { versionLine, type BuildInfo } from './build-info';

// Replaced at bundle time by scripts/build.mjs: the help's text by its width.
declare const __MLB_PREBUILT_HELP__: Readonly<Record<string, string>> | undefined;

/** The top-level help by width, as the build baked it; none when running from source. */
export function prebuiltHelp(): Readonly<Record<string, string>> {
  return typeof __MLB_PREBUILT_HELP__ === 'object' ? __MLB_PREBUILT_HELP__ : {};
}

const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h']);
const VERSION_FLAGS: ReadonlySet<string> = new Set(['--version', '-v']);
/** cli-program.ts's yargs `.env()` prefix. */
const FLAG_VARIABLE_PREFIX = 'MLB_';
/** Where yargs reads its locale from, first set first (yargs-factory.js, guessLocale). */
const LOCALE_VARIABLES = ['LC_ALL', 'LC_MESSAGES', 'LANG', 'LANGUAGE'] as const;
/** Locales whose help is yargs' own English text: English ones, and the C locale under its two names. */
const ENGLISH_LOCALE = /^(?:C|POSIX|en(?:_[A-Za-z]+)?)(?:[.:@].*)?$/;

export interface AnswerInput {
  /** The arguments after `mlb`, as given. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The help's width for this output (help-width.ts). */
  readonly width: number;
  readonly help: Readonly<Record<string, string>>;
  readonly build: BuildInfo;
  /** Node's version, as `mlb version` prints it. */
  readonly node: string;
}

/** The whole of stdout for this command line when it is one of those above and nothing could change it; else undefined. */
export function prebuiltAnswer(input: AnswerInput): string | undefined {
  if (Object.keys(input.env).some((name) => name.startsWith(FLAG_VARIABLE_PREFIX))) return undefined;
  const locale = LOCALE_VARIABLES.map((name) => input.env[name]).find((value) => value !== undefined && value !== '');
  if (locale !== undefined && !ENGLISH_LOCALE.test(locale)) return undefined;
  const [only, ...more] = input.argv;
  if (more.length > 0) return undefined;
  if (only === undefined || HELP_FLAGS.has(only)) return input.help[String(input.width)];
  if (VERSION_FLAGS.has(only)) return versionLine(input.build, input.node);
  return undefined;
}
