/**
 * The daemon's gossip node on a thread of its own. The failure detector must answer a peer's probe within the
 * probe timeout (100 ms in the fast profiles); on the main thread, a decision over 10,000 services, thousands of
 * addresses being bound or a starved CPU share held acks back long enough for peers to suspect and declare a live
 * node dead, and each false death moved a third of the services away and back. Here the gossip thread
 * (gossip-thread.ts) runs memberlist's protocol alone; the main thread keeps a mirror of its membership, refreshed
 * with every event and every VIEW_REFRESH_MS, and sends it commands.
 *
 * Its API is GossipNode's (the Gossip type), so the speaker does not know which it was given: tests and virtual
 * clusters hand it a GossipNode on their runtime.
 */
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { CodedError } from '../../errors/coded-error';
import type { Gossip, GossipNodeEvents, GossipNodeOptions, JoinResult } from '../../gossip/gossip-node';
import { emptyCounters, type GossipCounters } from '../../gossip/gossip-stats';
import type { LeaveOutcome, Member } from '../../gossip/swim';
import type { HostPort } from '../../gossip/transport/address';
import { SILENT_LOG, type Log } from '../../runtime/log';
import { parserWorkerEntry } from '../../sources/file/parser-worker-entry';
import { bundleEntry } from '../../sources/file/parser-worker-role';
import type { FromGossipThread, GossipThreadInput, GossipThreadOptions, GossipView, ToGossipThread } from './gossip-thread-messages';
import { GOSSIP_THREAD_ROLE } from './gossip-thread-role';

const CLOSED_ERROR = 'the gossip node was closed';

/**
 * The gossip thread's V8 old-generation limit. Its state is the members and the records in flight: a push/pull
 * of 10,000 services' allocations is a few hundred KB, and the codec's inbound budgets bound what peers can make
 * it hold before authentication. Far above that; a thread past it ends, and the daemon with it (onFailed), rather
 * than growing without bound.
 */
const GOSSIP_HEAP_LIMIT_MB = 256;

/** Why the gossip thread could not start (its own error's code, or the thread's failure). */
class GossipThreadError extends CodedError<'gossipThreadFailed' | 'gossipStartFailed'> {}

export interface ThreadedGossipOptions extends Omit<GossipNodeOptions, 'runtime' | 'seed' | 'compress'> {
  /** The module the thread runs: the bundle (the default, once bundled). */
  readonly script?: string | URL;
  /** Whether the thread sends its debug lines (each crosses the thread boundary; off unless the log shows them). */
  readonly debug?: boolean;
  /** The thread died after it started: the daemon cannot go on without gossip. Default: thrown, as uncaught. */
  readonly onFailed?: (error: Error) => void;
  /** A thread started ahead (WarmGossipThread.begin) to take instead of starting one now. */
  readonly warm?: WarmGossipThread;
}

/**
 * A gossip thread started before its node's options are known: a fresh thread boots node and loads the bundle
 * (about 90 ms on a 2-core machine), which the daemon's start otherwise waited for after reading its configuration;
 * begun first, it boots while the configuration is read. It waits for its options (the node's meta needs the
 * configuration) in a first `start` message. Unreferenced until taken, so a start that fails before gossip does
 * not keep the process alive; a failure of the thread itself is kept and reported by the start that takes it.
 */
export class WarmGossipThread {
  private taken = false;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    const failed = (error: Error) => {
      if (!this.taken) this.failure ??= error;
    };
    worker.on('error', failed);
    worker.on('exit', (code) => failed(new GossipThreadError('gossipThreadFailed', `the gossip thread exited (code ${code})`)));
    worker.unref();
  }

  static begin(options: { readonly script?: string | URL } = {}): WarmGossipThread {
    const entry =
      options.script === undefined ? parserWorkerEntry(bundleEntry() ?? import.meta.url) : { script: options.script, eval: false };
    return new WarmGossipThread(newGossipWorker(entry, { role: GOSSIP_THREAD_ROLE, debug: false }));
  }

  /** The thread, once (undefined after): its failure before now, if any, is thrown. */
  take(): Worker | undefined {
    if (this.taken) return undefined;
    this.taken = true;
    if (this.failure) throw this.failure;
    this.worker.ref();
    return this.worker;
  }
}

function newGossipWorker(entry: { script: string | URL; eval: boolean }, input: GossipThreadInput): Worker {
  return new Worker(entry.script, {
    eval: entry.eval,
    workerData: input,
    stdin: false,
    resourceLimits: { maxOldGenerationSizeMb: GOSSIP_HEAP_LIMIT_MB },
  });
}

const EMPTY_VIEW: GossipView = { members: [], live: [], confirmedSuspects: [], lastHeard: [], health: 0, counters: emptyCounters() };

/**
 * Whether a gossip thread can be started here: from the bundle (dist/mlb.mjs, or the one-file build's embedded
 * copy), where the thread starts at the same code. Run from TypeScript sources (tests of the assembly under a
 * loader), a worker could not load them: the node then runs on this thread, as before.
 */
export function canStartGossipThread(): boolean {
  return bundleEntry() !== undefined || !import.meta.url.endsWith('.ts');
}

/** The warm thread, told its options, when there is one to take; otherwise a new thread given them at once. */
function startWorker(
  warm: WarmGossipThread | undefined,
  script: string | URL | undefined,
  debug: boolean,
  options: GossipThreadOptions,
): Worker {
  const taken = warm?.take();
  if (taken) {
    taken.postMessage({ op: 'start', options, debug } satisfies ToGossipThread);
    return taken;
  }
  const entry = script === undefined ? parserWorkerEntry(bundleEntry() ?? import.meta.url) : { script, eval: false };
  return newGossipWorker(entry, { role: GOSSIP_THREAD_ROLE, options, debug });
}

export class ThreadedGossip extends EventEmitter<GossipNodeEvents> implements Gossip {
  readonly counters: GossipCounters = emptyCounters();
  private view: GossipView = EMPTY_VIEW;
  private lastHeard = new Map<string, number>();
  private nextId = 1;
  private readonly joins = new Map<number, (result: JoinResult) => void>();
  private readonly leaves = new Map<number, (outcome: LeaveOutcome) => void>();
  private readonly closes = new Map<number, () => void>();
  private closed = false;
  private ended = false;

  private constructor(
    private readonly worker: Worker,
    readonly localAddress: HostPort,
    private readonly log: Log,
    private readonly onFailed: (error: Error) => void,
  ) {
    super();
  }

  /** Starts the thread; resolves once its node listens, rejects with the node's own error when it cannot. */
  static start(options: ThreadedGossipOptions): Promise<ThreadedGossip> {
    const {
      script,
      debug,
      onFailed,
      warm,
      log = SILENT_LOG,
      keyring,
      runtime: _none,
      ...plain
    } = options as ThreadedGossipOptions & {
      runtime?: unknown;
    };
    const nodeOptions = { ...plain, ...(keyring ? { keys: keyring.keys } : {}) };
    let worker: Worker;
    try {
      worker = startWorker(warm, script, debug ?? false, nodeOptions);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new GossipThreadError('gossipThreadFailed', String(error)));
    }
    const failed =
      onFailed ??
      ((error: Error) => {
        throw error;
      });
    return new Promise<ThreadedGossip>((resolve, reject) => {
      let node: ThreadedGossip | undefined;
      worker.on('message', (message: FromGossipThread) => {
        if (node) return node.received(message);
        if (message.kind === 'log') return writeLog(log, message);
        if (message.kind === 'failed') {
          void worker.terminate();
          // The system error's code (EADDRINUSE) rides as the cause, where the start failure looks for it.
          const cause = message.code === undefined ? undefined : Object.assign(new Error(message.message), { code: message.code });
          return reject(new GossipThreadError('gossipStartFailed', message.message, cause ? { cause } : undefined));
        }
        if (message.kind !== 'ready') return;
        node = new ThreadedGossip(worker, message.localAddress, log, failed);
        node.received({ kind: 'view', view: message.view });
        resolve(node);
      });
      worker.on('error', (error) => (node ? node.threadEnded(error) : reject(new GossipThreadError('gossipThreadFailed', error.message))));
      worker.on('exit', (code) => {
        const error = new GossipThreadError('gossipThreadFailed', `the gossip thread exited (code ${code})`);
        if (node) node.threadEnded(error);
        else reject(error);
      });
    });
  }

  /** Every known member with its state (alive, suspect, dead, left), ourselves included. */
  members(): Member[] {
    return [...(this.view.members ?? [])];
  }

  /** Alive or suspect members: MetalLB's "usable speakers". */
  liveMembers(): Member[] {
    return [...(this.view.live ?? [])];
  }

  confirmedSuspects(): Map<string, number> {
    return new Map(this.view.confirmedSuspects);
  }

  lastHeardFrom(name: string): number | undefined {
    return this.lastHeard.get(name);
  }

  healthScore(): number {
    return this.view.health;
  }

  join(addresses: readonly HostPort[]): Promise<JoinResult> {
    if (this.closed) return Promise.resolve({ joined: 0, errors: [{ to: '*', error: CLOSED_ERROR }] });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.joins.set(id, resolve);
      this.send({ op: 'join', id, addresses });
    });
  }

  leave(timeoutMs: number): Promise<LeaveOutcome> {
    if (this.closed) return Promise.resolve('alreadyLeft');
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.leaves.set(id, resolve);
      this.send({ op: 'leave', id, timeoutMs });
    });
  }

  setMeta(meta: Uint8Array): void {
    this.send({ op: 'setMeta', meta });
  }

  broadcast(payload: Uint8Array, key?: string): void {
    this.send({ op: 'broadcast', payload, ...(key === undefined ? {} : { key }) });
  }

  setLocalState(userState: Uint8Array): void {
    this.send({ op: 'setLocalState', userState });
  }

  /** Closes the node's sockets on its thread, then ends the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.ended) {
      const id = this.nextId++;
      await new Promise<void>((resolve) => {
        this.closes.set(id, resolve);
        this.worker.postMessage({ op: 'close', id } satisfies ToGossipThread);
      });
    }
    this.settleWaiters();
    await this.worker.terminate();
  }

  private send(command: ToGossipThread): void {
    if (!this.closed && !this.ended) this.worker.postMessage(command);
  }

  private received(message: FromGossipThread): void {
    switch (message.kind) {
      case 'view':
        this.take(message.view);
        return;
      case 'event':
        this.take(message.view);
        (this.emit as (name: string, ...args: unknown[]) => boolean)(message.event.name, ...message.event.args);
        return;
      case 'joined':
        this.joins.get(message.id)?.(message.result);
        this.joins.delete(message.id);
        return;
      case 'left':
        this.leaves.get(message.id)?.(message.outcome);
        this.leaves.delete(message.id);
        return;
      case 'closed':
        this.ended = true;
        this.closes.get(message.id)?.();
        this.closes.delete(message.id);
        return;
      case 'log':
        writeLog(this.log, message);
        return;
      case 'ready':
      case 'failed':
        return;
    }
  }

  private take(view: GossipView): void {
    this.view = view.members ? view : { ...view, members: this.view.members, live: this.view.live };
    this.lastHeard = new Map(view.lastHeard);
    Object.assign(this.counters, view.counters);
  }

  /** The thread ended: expected after close(), a failure otherwise (nobody may wait for it forever either way). */
  private threadEnded(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.settleWaiters();
    if (!this.closed) this.onFailed(error);
  }

  private settleWaiters(): void {
    for (const resolve of this.joins.values()) resolve({ joined: 0, errors: [{ to: '*', error: CLOSED_ERROR }] });
    this.joins.clear();
    for (const resolve of this.leaves.values()) resolve('timeout');
    this.leaves.clear();
    for (const resolve of this.closes.values()) resolve();
    this.closes.clear();
  }
}

function writeLog(log: Log, message: Extract<FromGossipThread, { kind: 'log' }>): void {
  log[message.level](message.fields, message.msg);
}
