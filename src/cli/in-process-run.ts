/**
 * `mlb ARGS` run inside the calling process, for tests: starting node and loading the bundle costs 0.3 s idle and
 * several seconds on a loaded machine, per run. The run goes through the same main() and failure mapping as the
 * executable; for its duration standard input, output and error are swapped for in-memory streams that look like
 * the pipes a spawned mlb gets (no TTY, no columns), the environment gains the given variables and the working
 * directory is the given one. All of it is put back afterwards, so nothing leaks from one run into the next.
 *
 * What it cannot show is the process itself: the exit status the OS reports, SIGPIPE and closed pipes
 * (broken-pipe.ts), timers that keep a process alive. Tests of those spawn the bundle.
 */
import { Readable, Writable } from 'node:stream';
import { failureExit } from './failure-exit';
import { ExitCode } from './exit-codes';

export interface InProcessInput {
  readonly argv: readonly string[];
  /** Standard input's whole text; none: an empty input, as a spawned mlb given no input sees. */
  readonly stdin?: string;
  /** Added to (and overriding) the environment for the run. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface InProcessResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Marks the importing process as a host of in-process runs: the bundle's entry point then does not run the
 * process's own command line when it is loaded. A registered symbol, so the bundle and the test see the same key.
 */
export const IN_PROCESS_HOST = Symbol.for('mlb.inProcessHost');

export function isInProcessHost(): boolean {
  return (globalThis as Record<symbol, unknown>)[IN_PROCESS_HOST] === true;
}

/** The standard streams are the process's, so runs take turns: the next starts when the last has put them back. */
let queue: Promise<unknown> = Promise.resolve();

export function runInProcess(commandLine: (argv: string[]) => Promise<void>, input: InProcessInput): Promise<InProcessResult> {
  const result = queue.then(() => runAlone(commandLine, input));
  queue = result.catch(() => undefined);
  return result;
}

/** A Writable that keeps what is written; a fresh stream has no isTTY and no columns, as a pipe. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

const SWAPPED_STREAMS = ['stdin', 'stdout', 'stderr'] as const;

async function runAlone(commandLine: (argv: string[]) => Promise<void>, input: InProcessInput): Promise<InProcessResult> {
  const out = capture();
  const err = capture();
  const saved = SWAPPED_STREAMS.map((name) => [name, Object.getOwnPropertyDescriptor(process, name)] as const);
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  const savedExitCode = process.exitCode;
  const streams = {
    stdin: Readable.from(input.stdin === undefined ? [] : [Buffer.from(input.stdin)]),
    stdout: out.stream,
    stderr: err.stream,
  };
  try {
    for (const name of SWAPPED_STREAMS) Object.defineProperty(process, name, { value: streams[name], configurable: true, writable: true });
    Object.assign(process.env, input.env ?? {});
    if (input.cwd !== undefined) process.chdir(input.cwd);
    process.exitCode = undefined;
    let status: number;
    try {
      await commandLine([...input.argv]);
      status = Number(process.exitCode ?? ExitCode.ok);
    } catch (error) {
      const failure = failureExit(error);
      err.stream.write(failure.text);
      status = failure.code;
    }
    // Writes queued by the last handler land before the streams are read.
    await new Promise((resolve) => setImmediate(resolve));
    return { status, stdout: out.text(), stderr: err.text() };
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(process, name, descriptor);
      else Reflect.deleteProperty(process, name);
    }
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
    process.chdir(savedCwd);
    process.exitCode = savedExitCode;
  }
}
