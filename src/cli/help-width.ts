/**
 * How wide `mlb --help` lays out its text: the terminal's width, capped so that descriptions stay readable on a
 * wide screen; a fixed width when the output is no terminal (a pipe, a file, `man`'s input). Read per run, never at
 * load: the in-process runner (in-process-run.ts) swaps the streams between runs.
 */

/** Lines longer than this are hard to follow back to their start, however wide the terminal is. */
const MAX_HELP_WIDTH = 110;
/** A pipe has no width; this suits a pager and most terminals a piped text ends up in. */
const NO_TERMINAL_HELP_WIDTH = 100;

export function helpWidth(stdout: { readonly columns?: number }): number {
  return Math.min(MAX_HELP_WIDTH, stdout.columns || NO_TERMINAL_HELP_WIDTH);
}
