/**
 * The CLI commands bench/scale times, each a fresh process as a user runs it: `mlb status --once`, offline
 * `mlb explain --config`, `mlb --help` beside a bare `node -e 0`. Wall time from spawn to exit; output drained and
 * counted, never kept (explain can print hundreds of MB); optionally the peak RSS (VmHWM, polled: the kernel keeps
 * the peak, so a poll misses only what happened after its last look). A process still running at its timeout is
 * killed. Every process started here is killed when the bench exits, however it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { MLB_CLI, REPO_ROOT } from '../gossip/lab-nodes';
import { memoryOf } from './proc-stat';

const PEAK_POLL_MS = 100;
const STDERR_TAIL_CHARS = 400;

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface TimedRun {
  /** Spawn to exit, ms; at the timeout when timedOut. */
  readonly ms: number;
  readonly timedOut: boolean;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdoutBytes: number;
  readonly stderrTail: string;
  /** VmHWM at its last look (sampleMemory only). */
  readonly peakRssBytes?: number;
}

/** `node ARGS` (ARGS[0] is a script or -e). */
export function timeNode(args: readonly string[], timeoutMs: number, sampleMemory = false): Promise<TimedRun> {
  return new Promise((resolve) => {
    const start = performance.now();
    // A session of its own, as a command typed in a shell: under sched_autogroup it gets a session's CPU share,
    // not a slice of the bench's.
    const child = spawn(process.execPath, [...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    let stdoutBytes = 0;
    let stderrTail = '';
    let peak: number | undefined;
    let timedOut = false;
    child.stdout!.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length));
    child.stderr!.on('data', (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
    const look = () => {
      const hwm = child.pid === undefined ? undefined : memoryOf(child.pid, 'VmHWM');
      if (hwm !== undefined) peak = Math.max(peak ?? 0, hwm);
    };
    const poller = sampleMemory ? setInterval(look, PEAK_POLL_MS) : undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      look();
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      const ms = performance.now() - start;
      clearTimeout(timer);
      clearInterval(poller);
      running.delete(child);
      resolve({
        ms: timedOut ? timeoutMs : ms,
        timedOut,
        code,
        signal,
        stdoutBytes,
        stderrTail: stderrTail.trim(),
        ...(peak === undefined ? {} : { peakRssBytes: peak }),
      });
    });
  });
}

export function timeMlb(args: readonly string[], timeoutMs: number, sampleMemory = false): Promise<TimedRun> {
  return timeNode([MLB_CLI, ...args], timeoutMs, sampleMemory);
}

/** The fastest of n runs of each, interleaved so a burst of load on the machine hits both alike. */
export async function bestOfInterleaved(
  n: number,
  commands: readonly (readonly string[])[],
  timeoutMs: number,
): Promise<{ best: number[]; failed: string | undefined }> {
  const best = commands.map(() => Infinity);
  for (let i = 0; i < n; i++) {
    for (const [k, args] of commands.entries()) {
      const r = await timeNode(args, timeoutMs);
      if (r.timedOut || r.code !== 0) return { best, failed: `${args.join(' ').slice(0, 60)}: ${describeEnd(r)}` };
      best[k] = Math.min(best[k]!, r.ms);
    }
  }
  return { best, failed: undefined };
}

export function describeEnd(r: TimedRun): string {
  if (r.timedOut) return 'timed out';
  const end = r.signal ? `killed by ${r.signal}` : `exit ${r.code}`;
  const lastLine = r.stderrTail.split('\n').pop();
  return lastLine ? `${end}: ${lastLine}` : end;
}
