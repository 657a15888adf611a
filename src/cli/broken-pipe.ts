/**
 * A reader that stops early (`mlb validate ... | head -1`) closes the pipe under mlb's output. Standard tools are
 * killed by SIGPIPE at their next write: no message, and the shell reports 128 + 13 = 141 (which `set -o
 * pipefail` turns into a failed pipeline, so a cut-off "invalid" is never read as success). Node ignores SIGPIPE,
 * so the write fails with EPIPE instead, and unhandled that ended mlb with a stack trace and status 1 whenever
 * the reader closed before mlb had written everything.
 *
 * mlb does what those tools do, without the signal: a command that only reports ends at once, silently, with
 * status 141. A command that changes the host (the daemon, the lab) keeps running without its output instead:
 * ending in the middle would leave VIPs bound or namespaces half made, and a daemon under systemd outlives a
 * journal restart the same way (systemd's IgnoreSIGPIPE=yes default).
 */

import { ExitCode } from './exit-codes';

/** Commands that change the host: stopping them half way would leave it changed (see above). */
const KEEP_RUNNING_COMMANDS: ReadonlySet<string> = new Set(['daemon', 'lab']);

export type BrokenPipeDecision =
  | { readonly action: 'exit'; readonly code: typeof ExitCode.outputClosed; readonly reason: 'outputClosed' }
  | { readonly action: 'keepRunning'; readonly reason: 'changesTheHost' };

/** What `mlb <command>` does once its stdout or stderr is a closed pipe. */
export function brokenPipeDecision(command: string | undefined): BrokenPipeDecision {
  if (command !== undefined && KEEP_RUNNING_COMMANDS.has(command)) return { action: 'keepRunning', reason: 'changesTheHost' };
  return { action: 'exit', code: ExitCode.outputClosed, reason: 'outputClosed' };
}

/**
 * EPIPE: the reader is gone. ERR_STREAM_DESTROYED: a later write to the stream that EPIPE destroyed. Node's pipes
 * report EPIPE as an error event, never as a signal.
 */
export function isBrokenPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/**
 * Listens for a closed pipe on each stream: exits with the decision's code, or drops the output and carries on.
 * Any other stream error is rethrown, as it would have surfaced without this listener.
 */
export function handleBrokenPipes(
  streams: readonly NodeJS.EventEmitter[],
  decision: BrokenPipeDecision,
  exit: (code: number) => void,
): void {
  for (const stream of streams) {
    stream.on('error', (error: unknown) => {
      if (!isBrokenPipe(error)) throw error;
      if (decision.action === 'exit') exit(decision.code);
    });
  }
}
