/**
 * The processes of a lab node (daemon, HTTP server): started detached inside a namespace with their output in a log
 * file, and waited for until their log says they are up.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { LabError } from './lab-errors';
import { isAlive, sleep } from './netns';

/** How often start-up waits look at logs. */
const START_POLL_MS = 50;
/** Log lines quoted in an error when a process dies while starting. */
const LOG_TAIL_LINES = 15;

/**
 * Starts argv inside `netns`, detached (its own session: a Ctrl-C in the terminal does not reach it, and it outlives
 * `mlb lab up`), output appended to logFile. `ip netns exec` execs the command, so the pid is the command's.
 */
export function spawnDetached(netns: string, argv: readonly string[], logFile: string): number {
  const fd = openSync(logFile, 'a', 0o600);
  try {
    const child = spawn('ip', ['netns', 'exec', netns, ...argv], { detached: true, stdio: ['ignore', fd, fd], env: childEnv() });
    child.on('error', () => undefined);
    child.unref();
    if (child.pid === undefined) throw new LabError(`cannot start ${argv.join(' ')} in ${netns}`, 'processExited');
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/**
 * The environment of lab processes: ours without MLB* variables, since every mlb flag also reads one (MLB_METRICS_BIND
 * in the user's shell would make every daemon bind the same port), and yargs takes any variable starting with the
 * prefix, underscore or not (MLBX_Y arrives as --x-y, an unknown argument).
 */
export function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MLB')));
}

/** Waits until `ready` accepts what the process wrote to its log after byte `logStart` (this run's lines only). */
export async function waitForStart(
  pid: number,
  what: string,
  logFile: string,
  logStart: number,
  timeoutMs: number,
  ready: (log: string) => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = (await readFile(logFile).catch(() => Buffer.alloc(0))).subarray(logStart).toString('utf8');
    if (ready(log)) return;
    if (!isAlive(pid)) throw new LabError(`${what} exited while starting; ${logFile} ends with:\n${tail(log)}`, 'processExited');
    if (Date.now() >= deadline)
      throw new LabError(`${what} did not start within ${timeoutMs / 1000} s; ${logFile} ends with:\n${tail(log)}`, 'timeout');
    await sleep(START_POLL_MS);
  }
}

function tail(log: string): string {
  const lines = log.trimEnd().split('\n');
  return (
    lines
      .slice(-LOG_TAIL_LINES)
      .map((l) => `  ${l}`)
      .join('\n') || '  (empty)'
  );
}

export async function fileSize(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}
