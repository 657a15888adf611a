/**
 * The lab's hands on the kernel: iproute2 commands (`ip netns`, `ip link`, `ip addr`, `ip neigh`) and the
 * processes inside a namespace. iproute2 rather than netlink from Node: the lab runs a handful of commands once,
 * and a user can repeat each one by hand from the error message.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { LabError, NEEDS_ROOT_MESSAGE } from './lab-errors';

/** An `ip` command answers in milliseconds; one stuck this long is not going to answer. */
const IP_COMMAND_TIMEOUT_MS = 10_000;

export interface ExecResult {
  /** null when the command was killed (timeout). */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command and collects its output; never throws for a non-zero exit (the caller decides). */
export function run(argv: readonly string[], timeoutMs = IP_COMMAND_TIMEOUT_MS, env: NodeJS.ProcessEnv = process.env): Promise<ExecResult> {
  const [command, ...args] = argv;
  return new Promise((resolve) => {
    execFile(
      command as string,
      args,
      { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : error.killed ? null : 127) : 0;
        resolve({ status, stdout, stderr: stderr || (error && typeof error.code === 'string' ? error.message : '') });
      },
    );
  });
}

/** `ip ARGS`, throwing a LabError that names the command and its stderr when it fails. */
export async function ip(...args: string[]): Promise<string> {
  const result = await run(['ip', ...args]);
  if (result.status !== 0) {
    throw new LabError(`ip ${args.join(' ')} failed: ${result.stderr.trim() || `exit ${result.status}`}`, 'commandFailed');
  }
  return result.stdout;
}

/** Root and a working `ip netns`, or the sentence saying which is missing. */
export async function checkLabPrerequisites(): Promise<void> {
  if (process.geteuid?.() !== 0) throw new LabError(NEEDS_ROOT_MESSAGE, 'needsRoot');
  const result = await run(['ip', 'netns', 'list']);
  if (result.status !== 0) {
    throw new LabError(
      `mlb lab needs iproute2's "ip netns" (network namespaces): ${result.stderr.trim() || 'ip is not installed'}`,
      'noNetns',
    );
  }
}

/** The names of every network namespace (`ip netns list` prints "name (id: N)" or just "name"). */
export async function listNetns(): Promise<string[]> {
  const text = await ip('netns', 'list');
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

/** The pids of every process whose network namespace is `netns`; empty when the namespace is gone. */
export async function pidsIn(netns: string): Promise<number[]> {
  const result = await run(['ip', 'netns', 'pids', netns]);
  if (result.status !== 0) return [];
  return result.stdout
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch {
    return false;
  }
}

/** A dead child not yet reaped by its parent still answers kill(pid, 0); /proc says it is a zombie ("Z"). */
function isZombie(pid: number): boolean {
  try {
    // Synchronous: isAlive is polled, and a /proc read does not block.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 1)
      .trim()
      .startsWith('Z');
  } catch {
    return false;
  }
}

/** The command line of a process, arguments joined by spaces; undefined when it is gone. */
export async function commandLine(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** Signals a process, ignoring one that is already gone. */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone: what the caller wanted.
  }
}

/** Resolves when `pid` is gone, or false after timeoutMs. */
export async function waitForExit(pid: number, timeoutMs: number, pollMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
  return true;
}

/** Kills every process in the namespace (SIGKILL: the namespace is about to go) and deletes it. */
export async function deleteNetns(netns: string): Promise<void> {
  const pids = await pidsIn(netns);
  for (const pid of pids) signal(pid, 'SIGKILL');
  await Promise.all(pids.map((pid) => waitForExit(pid, 2_000)));
  const result = await run(['ip', 'netns', 'del', netns]);
  if (result.status !== 0 && !/No such file|Invalid argument|not found/i.test(result.stderr)) {
    throw new LabError(`ip netns del ${netns} failed: ${result.stderr.trim()}`, 'commandFailed');
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
