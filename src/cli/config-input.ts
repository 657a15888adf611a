import type { Options } from 'yargs';
import { DEFAULT_MAX_CONFIG_BYTES, loadConfigFile } from '../sources/file';
import type { Diagnostic, Snapshot } from '../model';
import { CommandError, UsageError } from './exit-codes';
import { isStdinConfig } from './config-argument';
import { loadStdinConfig, STDIN_NAME } from './read-stdin-config';

export interface LoadedConfig {
  readonly file: string;
  readonly snapshot?: Snapshot;
  readonly diagnostics: readonly Diagnostic[];
}

/** --max-config-bytes, shared by the commands that read a configuration file (MLB_MAX_CONFIG_BYTES too). */
export const maxConfigBytesOption = {
  type: 'number',
  default: DEFAULT_MAX_CONFIG_BYTES,
  describe:
    'Refuse a configuration file larger than this many bytes (it would cost the daemon memory and parse time); a directory: each file, and all of them together',
} as const satisfies Options;

/** The flag's value, checked: a positive whole number of bytes, else a usage error (exit 2). */
export function maxConfigBytes(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`--max-config-bytes must be a positive whole number of bytes, not ${String(value)}`);
  }
  return value;
}

/**
 * Reads and validates --config: a file, a directory of *.yaml files, or `-` (standard input, then named
 * <stdin>); an unreadable file is a CommandError (exit 1) with the OS's reason.
 */
export async function readConfig(file: string, maxBytes = DEFAULT_MAX_CONFIG_BYTES): Promise<LoadedConfig> {
  if (isStdinConfig(file)) {
    const result = await loadStdinConfig(maxBytes);
    return { file: STDIN_NAME, snapshot: result.ok ? result.snapshot : undefined, diagnostics: result.diagnostics };
  }
  try {
    const result = await loadConfigFile(file, { maxBytes });
    return { file, snapshot: result.ok ? result.snapshot : undefined, diagnostics: result.diagnostics };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new CommandError(`cannot read --config ${file}: ${reason}`, 'configUnreadable');
  }
}

/** A diagnostic as --json prints it: flat, positions as numbers. */
export function diagnosticJSON(d: Diagnostic): Record<string, unknown> {
  return {
    severity: d.severity,
    code: d.code,
    message: d.message,
    ...(d.position ? { file: d.position.file, line: d.position.line, column: d.position.column } : {}),
    ...(d.object ? { object: d.object } : {}),
  };
}
