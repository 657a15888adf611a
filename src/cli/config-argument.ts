/**
 * Which configuration a command reads, from what the user typed: `--config FILE`, `-c FILE`, `-f FILE` (kubectl's
 * habit), a positional FILE where the command takes one (`mlb validate FILE`), `-` for standard input, or a
 * directory of *.yaml files (sources/file/config-directory.ts). Pure: checks the arguments, reads nothing.
 */
import type { Options } from 'yargs';
import { UsageError } from './exit-codes';

/** What --config names to read standard input instead of a file, as cat, kubectl -f and most Unix tools do. */
const STDIN_CONFIG = '-';
/** What a lone `-` on the command line is passed to yargs as (argv-shortcuts.ts): yargs would make it ''. */
export const STDIN_ARGUMENT = '<stdin>';

/** True when the configuration named is standard input. */
export function isStdinConfig(config: string): boolean {
  return config === STDIN_CONFIG || config === STDIN_ARGUMENT;
}

/** The --config option as every command declares it (only the description differs). */
export function configOption(describe: string) {
  return { alias: ['c', 'f'], type: 'string', describe } as const satisfies Options;
}

/**
 * The one value of --config: given twice, yargs hands over an array (and a later string method would fail with a
 * Node type error), so that is said as a usage error naming both.
 */
export function singleConfig(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    throw new UsageError(
      `--config was given ${value.length} times (${value.join(', ')}): name one file, or one directory whose ` +
        '*.yaml and *.yml files make the configuration',
    );
  }
  if (typeof value !== 'string' || value === '') throw new UsageError('--config needs a file, a directory, or - for standard input');
  return value;
}

/** `mlb validate FILE` and `mlb validate --config FILE` mean the same; both at once must agree. */
export function configFromArguments(positional: unknown, flag: unknown, command: string): string {
  const fromFlag = singleConfig(flag);
  const fromPosition = singleConfig(positional);
  if (fromFlag !== undefined && fromPosition !== undefined && fromFlag !== fromPosition) {
    throw new UsageError(`two configurations given (${fromPosition} and --config ${fromFlag}): name one`);
  }
  const config = fromPosition ?? fromFlag;
  if (config === undefined) {
    throw new UsageError(
      `name the configuration: mlb ${command} FILE (or -f FILE, --config FILE; a directory of *.yaml files; - for standard input)`,
    );
  }
  return config;
}

/** The daemon's --config: one file or directory it can watch; standard input can be read once, never reloaded. */
export function daemonConfig(value: unknown): string {
  const config = singleConfig(value);
  if (config === undefined) throw new UsageError('name the configuration: mlb daemon --config FILE (or a directory of *.yaml files)');
  if (isStdinConfig(config)) {
    throw new UsageError(
      'the daemon cannot take its configuration from standard input (- cannot be watched for edits): name a file or a directory',
    );
  }
  return config;
}
