/**
 * The imperative shell every router harness shares (the lab's FRR router, and the interop tests' FRR, BIRD, GoBGP
 * and ExaBGP through test/support/routers): running a command inside a namespace with a deadline, a private
 * state directory per router instance, killing daemons by their pid files (never by name: other labs and tests
 * run the same daemons on this machine), polling until a condition holds. The one error class is router-error.ts.
 *
 * Synchronous commands on purpose: a router query answers in milliseconds, and a synchronous stop is safe in a
 * test's finally or afterAll.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, signal, sleep } from './netns';
import { RouterError } from './router-error';

export { isAlive, sleep } from './netns';
export { ROUTER_ERROR_CODES, RouterError, type RouterErrorCode } from './router-error';

/** A query answers in milliseconds; 10 s only matters on a starved CI box, and beats hanging forever. */
const COMMAND_TIMEOUT_MS = 10_000;
/** Polling interval of waitFor: fast enough for second-scale BGP events, light on a shared 2-core machine. */
const POLL_INTERVAL_MS = 100;
/** SIGTERM, then this long for a clean exit (FRR's zebra withdraws its routes), then SIGKILL. */
const STOP_GRACE_MS = 2_000;
/** Query output can be a full table (bench/bgp: 10,000 routes as JSON). */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** Where a router runs: the namespace name (a lab host satisfies this). */
export interface NetnsTarget {
  readonly netns: string;
}

/** Runs a command inside a namespace and returns its stdout; non-zero exit or timeout is a RouterError. */
export function execInNetns(target: NetnsTarget, command: string, args: readonly string[], timeoutMs = COMMAND_TIMEOUT_MS): string {
  try {
    return execFileSync('ip', ['netns', 'exec', target.netns, command, ...args], {
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: MAX_OUTPUT_BYTES,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    const detail = [e.stderr, e.stdout].filter(Boolean).join('\n').trim() || e.message;
    throw new RouterError('commandFailed', `${command} ${args.join(' ')} in ${target.netns}: ${detail}`, { cause: error });
  }
}

/** A fresh private directory for one router instance, owned by `owner` (FRR's daemons run as user frr). */
export function makeRouterDir(label: string, owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), `mlb-router-${label}-`));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

export function removeRouterDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The numeric uid and gid of a local user, from /etc/passwd (no child process, no dependency). */
export function userIds(name: string): { uid: number; gid: number } | undefined {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const fields = line.split(':');
    if (fields[0] === name && fields.length >= 4) return { uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  return undefined;
}

export function readPid(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Stops the processes named by pid files (SIGTERM, a grace period, SIGKILL), synchronously so it is safe in a
 * finally or afterAll. Only these pids are signalled.
 */
export function killByPidFiles(pidFiles: readonly string[], graceMs = STOP_GRACE_MS): void {
  const pids = pidFiles.map(readPid).filter((pid): pid is number => pid !== undefined && isAlive(pid));
  killPids(pids, graceMs);
}

/**
 * SIGTERM, then SIGKILL after graceMs. A child of this process that exited stays a zombie until Node reaps it,
 * which cannot happen while this waits synchronously: isAlive counts a zombie as gone.
 */
export function killPids(pids: readonly number[], graceMs = STOP_GRACE_MS): void {
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) sleepSync(20);
  for (const pid of pids) if (isAlive(pid)) signal(pid, 'SIGKILL');
}

/**
 * Polls `probe` until it returns something other than undefined/false and returns that. Errors thrown by the
 * probe count as "not yet" (a daemon still starting refuses its socket); the last one is in the timeout error.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  intervalMs = POLL_INTERVAL_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new RouterError('timeout', `timed out after ${timeoutMs} ms waiting for ${what}${why}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
