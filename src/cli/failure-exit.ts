/**
 * What `mlb` prints and exits with when a command throws: the one mapping shared by the executable (main.ts) and
 * the in-process runner (in-process-run.ts), so both answer a failure with the same bytes and status.
 */
import { CommandError, ExitCode, UsageError } from './exit-codes';

export interface FailureExit {
  readonly code: ExitCode;
  /** The whole of what goes to stderr, newline included. */
  readonly text: string;
}

export function failureExit(error: unknown): FailureExit {
  if (error instanceof UsageError) return { code: error.exitCode, text: `mlb: ${error.message}\n` };
  if (error instanceof CommandError) return { code: ExitCode.failure, text: `mlb: ${error.message}\n` };
  // A bug, not a user error: keep the stack so it can be reported.
  return { code: ExitCode.failure, text: `mlb: internal error: ${error instanceof Error ? error.stack : String(error)}\n` };
}
