import { loadConfigFile } from '../sources/file';
import type { Diagnostic, Snapshot } from '../model';
import { CommandError } from './exit-codes';

export interface LoadedConfig {
  readonly file: string;
  readonly snapshot?: Snapshot;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads and validates --config; an unreadable file is a CommandError (exit 1) with the OS's reason. */
export async function readConfig(file: string): Promise<LoadedConfig> {
  try {
    const result = await loadConfigFile(file);
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
