/**
 * The client's side of the lab (`mlb lab probe`, hidden, run in the client namespace): an HTTP GET / every
 * interval, each on a new connection, each with its own deadline, one JSON line per answer or failure.
 *
 * Requests do not wait for each other: while the owner is dead a request hangs until its deadline, and a loop
 * that waited would see the new owner only one deadline late. The deadline stays under Linux's first SYN
 * retransmission (1 s), so a request never succeeds late through a retransmitted SYN and blurs the measurement.
 */
import { request } from 'node:http';
import { formatProbeLine, type ProbeSample } from './probe-samples';

/** 20 ms: failover is measured to about this resolution, at 50 requests a second (nothing for the lab's servers). */
export const DEFAULT_PROBE_INTERVAL_MS = 20;
/** Below the kernel's 1 s initial SYN retransmission timeout (RFC 6298), above any answer in a lab on one host. */
export const DEFAULT_PROBE_TIMEOUT_MS = 300;
export const MIN_PROBE_INTERVAL_MS = 5;
export const MAX_PROBE_TIMEOUT_MS = 900;

export interface ProbeLoopOptions {
  readonly host: string;
  readonly port: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Stop after this many samples; forever (until the signal) when absent. */
  readonly count?: number;
  readonly write: (line: string) => void;
  readonly now?: () => number;
}

/** Probes until `stop` aborts (or count samples are written), then waits for the requests in flight. */
export async function runProbeLoop(options: ProbeLoopOptions, stop: AbortSignal): Promise<void> {
  const now = options.now ?? Date.now;
  const inFlight = new Set<Promise<void>>();
  let started = 0;
  const wanted = options.count ?? Number.POSITIVE_INFINITY;
  while (!stop.aborted && started < wanted) {
    started++;
    const done = probeOnce(options, now).then((sample) => options.write(`${formatProbeLine(sample)}\n`));
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
    if (started < wanted) await delay(options.intervalMs, stop);
  }
  await Promise.all(inFlight);
}

/** One GET / on a new connection: the answering node, or why there was none. Never rejects. */
export function probeOnce(
  options: Pick<ProbeLoopOptions, 'host' | 'port' | 'timeoutMs'>,
  now: () => number = Date.now,
): Promise<ProbeSample> {
  const sent = now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: { ok: true; node: string } | { ok: false; error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ t: now(), sent, ...result });
    };
    const req = request({ host: options.host, port: options.port, path: '/', agent: false, headers: { connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode === 200) finish({ ok: true, node: Buffer.concat(chunks).toString('utf8').trim() });
        else finish({ ok: false, error: `status ${res.statusCode}` });
      });
      res.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, error: errorName(error) }));
    });
    const timer = setTimeout(() => finish({ ok: false, error: 'timeout' }), options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, error: errorName(error) }));
    req.end();
  });
}

function errorName(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    case 'ECONNRESET':
      return 'reset';
    default:
      return error.code ?? error.message;
  }
}

function delay(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
  });
}
