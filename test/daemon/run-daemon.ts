import { spawn, type ChildProcess } from 'node:child_process';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';

export interface RunningDaemon {
  readonly child: ChildProcess;
  /** Parsed JSON log lines so far. */
  readonly lines: Record<string, unknown>[];
  readonly stderr: string[];
  /** Resolves with the first log line matching, or rejects after timeoutMs. */
  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited(): Promise<number | null>;
}

const WAIT_MS = 15_000;

/**
 * Starts `mlb daemon` from the built bundle with JSON logs on stdout; `netns` runs it inside that network
 * namespace (ip netns exec); `wrap` is a command that execs the rest of its arguments (e.g. unshare), so the
 * child's pid stays the daemon's; `bundle` runs another copy of dist/mlb.mjs (one without node_modules beside it),
 * or, when it is not a .mjs file, an executable run as it is (the one-file build, dist/mlb).
 */
export function startDaemon(args: string[], netns?: string, wrap: readonly string[] = [], bundle = MLB_BUNDLE): RunningDaemon {
  const argv = [...(bundle.endsWith('.mjs') ? [process.execPath, bundle] : [bundle]), 'daemon', ...args];
  const command = netns ? ['ip', 'netns', 'exec', netns, ...argv] : argv;
  const [file, ...rest] = [...wrap, ...command] as [string, ...string[]];
  const child = spawn(file, rest, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const waiters: { match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!text) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.match(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr,
    waitFor(match, timeoutMs = WAIT_MS) {
      const found = lines.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no matching log line within ${timeoutMs} ms; got:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr.join('')}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
    exited: () => exit,
  };
}
