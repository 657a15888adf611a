import { CodedError } from '../errors/coded-error';

/** mlb's exit codes (docs/architecture.md, "CLI"): scripts branch on them, so they never change meaning. */
export const ExitCode = {
  ok: 0,
  /** The command ran and the answer is "no": an invalid configuration, a failed check. */
  failure: 1,
  /** The command line itself was wrong: unknown flag, missing argument. */
  usage: 2,
  /** `mlb arping`: more than one MAC answers for the IP (two owners, or the address is taken elsewhere). */
  splitBrain: 3,
  /**
   * The reader of mlb's output went away early (`mlb validate | head -1`): what a shell reports for a standard tool
   * killed by SIGPIPE (128 + 13). Node ignores SIGPIPE, so mlb exits with it itself (broken-pipe.ts).
   */
  outputClosed: 141,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * A problem with the command line; main prints it with a hint and exits 2, or `exitCode` when the command answers
 * in another convention (`mlb check`: a monitoring plugin's wrong command line is UNKNOWN, 3, not CRITICAL, 2).
 */
export class UsageError extends CodedError<'usage'> {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.usage,
  ) {
    super('usage', message);
  }
}

/** A failure the user can act on (unreadable file...); main prints the message, no stack, and exits 1. */
export class CommandError extends CodedError<string> {
  constructor(message: string, code: string) {
    super(code, message);
  }
}
