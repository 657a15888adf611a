/**
 * Parsing off the event loop: each parse runs in a fresh worker thread that exits when it has answered, so a large
 * file costs the daemon neither a stalled event loop (gossip probes, ARP answers and BFD packets keep flowing; a
 * peer never suspects this node because it was parsing) nor memory afterwards (the worker's heap goes with it).
 *
 * The worker runs the same bundle file as the daemon (dist/mlb.mjs), entered with workerData naming its role:
 * main.ts asks isConfigParserWorker() before doing anything else. Nothing to ship beside the bundle (the one-file
 * build runs its embedded copy: parser-worker-entry.ts).
 *
 * The file's bytes are transferred, not copied, and decoded on the worker; the answer comes back as structured
 * clone in chunks (answer-chunks.ts), the next one asked for only after the event loop has had a turn, and is
 * rehydrated (snapshotFromClone). So the event loop never decodes a large file nor receives it in one piece.
 */
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { AnswerAssembler, type AnswerMessage, answerMessages } from './answer-chunks';
import { type ConfigParser, ConfigParseError, type ParseRequest } from './config-parser';
import { type ParsedConfigFile, parseConfigBytes } from './parse-config-bytes';
import { parserWorkerEntry } from './parser-worker-entry';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Scheduler } from '../../runtime/runtime';
import { bundleEntry, WORKER_ROLE } from './parser-worker-role';

/**
 * A parse that never finishes is stopped: the yaml parser is linear, so only a bug could get here. Far above what
 * the largest allowed file takes (a 16 MiB file of services parses in well under a minute on a slow machine).
 */
const PARSE_TIMEOUT_MS = 5 * 60_000;

/**
 * The worker's V8 old-generation limit: a file whose parse would need more is refused (parseOutOfMemory) instead
 * of growing the daemon. A 16 MiB file (the default --max-config-bytes) of the densest objects, Services, needs
 * well under half of it.
 */
const PARSE_HEAP_LIMIT_MB = 2_048;

interface WorkerInput {
  readonly role: typeof WORKER_ROLE;
  readonly request: ParseRequest;
}

export interface WorkerParserOptions {
  /** The module the worker runs: the bundle (the default, this module's own file once bundled). */
  readonly script?: string | URL;
  readonly timeoutMs?: number;
  readonly heapLimitMb?: number;
  /** The parse timeout's timer and the turn between answer chunks (real by default). */
  readonly scheduler?: Scheduler;
}

/** Main thread to worker: send the next chunk of the answer. */
const NEXT_CHUNK = 'next';

/** The worker's whole life: judge the bytes from workerData, post the answer a chunk per request; it is then ended. */
export function runConfigParserWorker(): void {
  const { request } = workerData as WorkerInput;
  const messages = answerMessages(parseConfigBytes(request.bytes, request.file, request.options, request.parts));
  let next = 0;
  const send = (): void => {
    const message = messages[next++];
    if (message) parentPort?.postMessage(message);
  };
  parentPort?.on('message', send);
  send();
}

function failure(error: (Error & { code?: string }) | undefined, heapLimitMb: number): ConfigParseError {
  if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new ConfigParseError('parseOutOfMemory', `the parser ran out of its ${heapLimitMb} MB of memory`);
  }
  return new ConfigParseError('parseWorkerFailed', `the parser's worker thread failed: ${error?.message ?? 'it ended without an answer'}`);
}

/** A ConfigParser that parses each request in a worker thread of its own. */
export function workerParser(options: WorkerParserOptions = {}): ConfigParser {
  const entry =
    options.script === undefined ? parserWorkerEntry(bundleEntry() ?? import.meta.url) : { script: options.script, eval: false };
  const timeoutMs = options.timeoutMs ?? PARSE_TIMEOUT_MS;
  const heapLimitMb = options.heapLimitMb ?? PARSE_HEAP_LIMIT_MB;
  const scheduler = options.scheduler ?? REAL_RUNTIME;
  return (request, signal) =>
    new Promise<ParsedConfigFile>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new ConfigParseError('parseAborted', 'the parse was cancelled'));
        return;
      }
      // The readings a source keeps to reuse live on this thread: the worker reads everything (and keeps nothing).
      const { reuse: _onThisThread, ...transferable } = request;
      const input: WorkerInput = { role: WORKER_ROLE, request: transferable };
      const worker = new Worker(entry.script, {
        eval: entry.eval,
        workerData: input,
        transferList: [request.bytes.buffer as ArrayBuffer],
        resourceLimits: { maxOldGenerationSizeMb: heapLimitMb },
        // The worker has nothing to say on stdin/stdout; it must not keep the process alive after an abort either.
        stdin: false,
      });
      let settled = false;
      const finish = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
        outcome();
        void worker.terminate();
      };
      const onAbort = (): void => finish(() => reject(new ConfigParseError('parseAborted', 'the parse was cancelled')));
      const timer = scheduler.after(timeoutMs, () =>
        finish(() => reject(new ConfigParseError('parseTimedOut', `the parser did not finish within ${Math.round(timeoutMs / 1000)} s`))),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      const assembler = new AnswerAssembler();
      worker.on('message', (message: AnswerMessage) => {
        const answer = assembler.add(message);
        if (answer) finish(() => resolve(answer));
        // The next chunk only after timers and I/O (gossip, ARP, BFD) have had their turn: a timer due now runs
        // after the sockets already readable were read (the Scheduler's promise).
        else scheduler.after(0, () => !settled && worker.postMessage(NEXT_CHUNK));
      });
      worker.once('error', (error: Error & { code?: string }) => finish(() => reject(failure(error, heapLimitMb))));
      worker.once('exit', () => finish(() => reject(failure(undefined, heapLimitMb))));
    });
}
