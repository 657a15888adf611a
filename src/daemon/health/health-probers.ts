/**
 * The probes behind mlb.io/health-check: a TCP connect, an HTTP GET, or running a program. Each resolves to
 * { ok, detail } within its timeout and never rejects; `detail` is the short reason a person reads in the logs,
 * `mlb status` and `mlb explain` ("connect ECONNREFUSED 127.0.0.1:8080", "HTTP 503", "exit 3", "timed out after
 * 1000 ms"). An AbortSignal ends a probe early (the monitor closing), releasing its socket or process.
 */
import { spawn } from 'node:child_process';
import type { HttpClient } from '../../runtime/http';
import { NetworkError } from '../../runtime/network-error';
import { realHttpClient } from '../../runtime/real-http-client';
import { REAL_BACKGROUND_RUNTIME } from '../../runtime/real-runtime';
import { realSignedTcp } from '../../runtime/real-signed-tcp';
import type { Scheduler } from '../../runtime/runtime';
import type { SignedTcpNetwork } from '../../runtime/signed-tcp';
import type { HealthCheckSpec } from './health-check-spec';
import type { ProbeResult } from './health-state';
import type { RunAs } from './run-as';

/** Of a program's output, only the end is kept: its last line explains a failure ("exit 2: db unreachable"). */
const EXEC_OUTPUT_KEEP_BYTES = 4096;
/** A detail is one short line in a log or a table cell. */
const DETAIL_MAX_CHARS = 160;
const USER_AGENT = 'mlb-health-check';

/**
 * What the probes reach the outside through: the timeout's timer, TCP dials, HTTP GETs. Real by default, with
 * timers that never keep the daemon alive by themselves (a probe in flight must not hold up its exit).
 */
export interface ProbeIo {
  readonly scheduler: Scheduler;
  /** Dials that can be given up at once (an abort, or the probe's own timeout), releasing the socket. */
  readonly net: Pick<SignedTcpNetwork, 'connectSigned'>;
  readonly http: HttpClient;
}

const REAL_PROBE_IO: ProbeIo = { scheduler: REAL_BACKGROUND_RUNTIME, net: realSignedTcp, http: realHttpClient };

/** Runs the probe a spec describes, with the spec's timeout; exec: checks as `runAs` when given (run-as.ts). */
export function runProbe(spec: HealthCheckSpec, signal?: AbortSignal, runAs?: RunAs, io: ProbeIo = REAL_PROBE_IO): Promise<ProbeResult> {
  switch (spec.kind) {
    case 'tcp':
      return probeTcp(spec.host, spec.port, spec.timeoutMs, signal, io);
    case 'http':
      return probeHttp(spec, spec.timeoutMs, signal, io);
    case 'exec':
      return probeExec(spec.argv, spec.timeoutMs, signal, runAs, io);
  }
}

/** Passes when the connection is accepted; the connection is closed at once, nothing is sent. */
export function probeTcp(
  host: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
  io: ProbeIo = REAL_PROBE_IO,
): Promise<ProbeResult> {
  return settle(io.scheduler, timeoutMs, signal, (done) => {
    const giveUp = new AbortController();
    io.net.connectSigned({ host, port }, { timeoutMs, signal: giveUp.signal }).then(
      (stream) => {
        stream.destroy();
        done({ ok: true, detail: `connected to ${hostPort(host, port)}` });
      },
      (error: unknown) => {
        if (error instanceof NetworkError && error.code === 'dialTimeout') done({ ok: false, detail: `timed out after ${timeoutMs} ms` });
        else done({ ok: false, detail: describeError(causeOf(error), `connect to ${hostPort(host, port)} failed`) });
      },
    );
    // Settled (timeout, abort, or an answer): a dial still in flight is given up and its socket closed.
    return () => giveUp.abort();
  });
}

/** The system's error under a NetworkError (it keeps the errno code an operator searches for). */
function causeOf(error: unknown): unknown {
  return error instanceof NetworkError && error.cause !== undefined ? error.cause : error;
}

/**
 * GET host:port/path: 2xx passes. The body is not read and redirects are not followed (a redirect usually means
 * a login page or a moved endpoint, not health). A fresh connection each time (no agent), closed after the
 * status line, so a check never holds a connection slot of the service between probes.
 */
export function probeHttp(
  target: { readonly host: string; readonly port: number; readonly path: string },
  timeoutMs: number,
  signal?: AbortSignal,
  io: ProbeIo = REAL_PROBE_IO,
): Promise<ProbeResult> {
  return settle(io.scheduler, timeoutMs, signal, (done) =>
    io.http.get(
      { ...target, headers: { 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' } },
      {
        onStatus(status) {
          if (status >= 200 && status < 300) done({ ok: true, detail: `HTTP ${status}` });
          else if (status >= 300 && status < 400) done({ ok: false, detail: `HTTP ${status} (redirects are not followed)` });
          else done({ ok: false, detail: `HTTP ${status}` });
        },
        onError: (error) => done({ ok: false, detail: describeError(error, `GET ${hostPort(target.host, target.port)} failed`) }),
      },
    ),
  );
}

/**
 * Runs argv[0] with argv[1..] directly (no shell): exit 0 passes. The program gets its own process group, so a
 * timeout kills whatever it started too (a script's `sleep`, a `curl`), not just the script. It runs in "/" with
 * the daemon's environment and no stdin, with the daemon's uid and gid unless `runAs` names others
 * (--health-check-user).
 */
export function probeExec(
  argv: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
  runAs?: RunAs,
  io: Pick<ProbeIo, 'scheduler'> = REAL_PROBE_IO,
): Promise<ProbeResult> {
  return settle(io.scheduler, timeoutMs, signal, (done) => {
    const [program, ...args] = argv;
    if (program === undefined) {
      done({ ok: false, detail: 'no program to run' });
      return () => {};
    }
    const child = spawn(program, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
      cwd: '/',
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    const output = { stdout: '', stderr: '' };
    const keep = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      output[stream] = (output[stream] + chunk.toString('utf8')).slice(-EXEC_OUTPUT_KEEP_BYTES);
    };
    child.stdout.on('data', keep('stdout'));
    child.stderr.on('data', keep('stderr'));
    child.on('error', (error) => done({ ok: false, detail: describeError(error, `cannot run ${program}`) }));
    child.once('exit', (code, exitSignal) => {
      if (code === 0) return done({ ok: true, detail: 'exit 0' });
      const said = lastLine(output.stderr) || lastLine(output.stdout);
      const how = exitSignal !== null ? `killed by ${exitSignal}` : `exit ${code}`;
      done({ ok: false, detail: shorten(said ? `${how}: ${said}` : how) });
    });
    return () => {
      // Still running (timeout or abort): its process group is certainly ours, so kill all of it.
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
      // A grandchild may still hold the pipes open; nothing more is read from them.
      child.stdout.destroy();
      child.stderr.destroy();
    };
  });
}

/**
 * Runs `start` until it calls done, the timeout passes or the signal aborts, whichever is first; then runs the
 * cleanup `start` returned (once) and resolves with the first result.
 */
function settle(
  scheduler: Scheduler,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  start: (done: (result: ProbeResult) => void) => () => void,
): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let finished = false;
    let cleanup: (() => void) | undefined;
    const onAbort = (): void => done({ ok: false, detail: 'aborted' });
    const timer = scheduler.after(timeoutMs, () => done({ ok: false, detail: `timed out after ${timeoutMs} ms` }));
    function done(result: ProbeResult): void {
      if (finished) return;
      finished = true;
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
      cleanup?.();
      resolve(result);
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      cleanup = start(done);
    } catch (error) {
      done({ ok: false, detail: describeError(error, 'probe failed to start') });
    }
    // start() may have finished synchronously, before its cleanup was known.
    if (finished) cleanup?.();
  });
}

/**
 * Node's own message ("connect ECONNREFUSED 127.0.0.1:8080"), led by the words an operator searches the log for
 * when they are the commonest failures (nothing listens, or the host is unreachable); several addresses tried
 * give an AggregateError.
 */
function describeError(error: unknown, fallback: string): string {
  if (error instanceof AggregateError && error.message === '') {
    const first = error.errors.find((e): e is Error => e instanceof Error && e.message !== '');
    if (first) return describeError(first, fallback);
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = error.message || (code ? `${fallback}: ${code}` : fallback);
    const words = code === undefined ? undefined : ERROR_WORDS[code];
    return shorten(words ? `${words} (${message})` : message);
  }
  return fallback;
}

/** Plain words for the errno codes a failing check meets most. */
const ERROR_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOENT: 'no such file',
  EACCES: 'permission denied',
};

function lastLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? ''
  );
}

function shorten(text: string): string {
  return text.length <= DETAIL_MAX_CHARS ? text : `${text.slice(0, DETAIL_MAX_CHARS - 3)}...`;
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
