/**
 * One watched resource of the Kubernetes API (IPAddressPools, Services, EndpointSlices, ...): client-node 1.4.0's
 * ListWatch (list, then watch from the list's resourceVersion, re-list on 410) kept alive around its quirks:
 * - any error stops it for good: restarted here after a jittered exponential backoff (restart-policy.ts), on the
 *   runtime's scheduler, from the last resourceVersion (a 410 then makes it list again and emit what changed);
 * - one watch request at a time, whatever happens (the previous request is aborted before a new one starts), and
 *   watch requests at least a second apart (a server that closes every watch at once cannot make it spin);
 * - no client timeout in 1.4.0: a list or a watch's headers not there in time are given up, and a watch silent
 *   for too long (no event, no bookmark) is taken for a half-open connection and restarted;
 * - watches ask for bookmarks and a server-side timeout in the path (the query survives the client's URL
 *   building), with the same selectors as the list.
 * Callbacks only say "something changed" (O(1)): the owner recomputes from `objects()` when it chooses, so a
 * replayed or duplicated event costs a recomputation that finds nothing new. Not pure: network and timers.
 */
import type { KubeConfig, ListWatch, Watch } from '@kubernetes/client-node';
import { clientNode } from './api/client-node-module';
import type { Clock, Randomness, Scheduler, Timer } from '../../runtime';
import { type Log, SILENT_LOG } from '../../runtime/log';
import { type ApiList, listObjects } from './api/api-list';
import type { ListGate } from './list-gate';
import type { ApiObject } from './api-object';
import {
  HEALTHY_WATCH_MS,
  REQUEST_TIMEOUT_MS,
  WATCHDOG_CHECK_MS,
  restartDelayMs,
  watchIsSilent,
  watchPath,
  watchSpacingDelayMs,
  watchTimeoutSeconds,
} from './restart-policy';

export interface ResourceWatchOptions {
  readonly kubeConfig: KubeConfig;
  /** The collection path ("/api/v1/services", "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools"). */
  readonly path: string;
  /** What it is called in logs ("services"). */
  readonly name: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly runtime: Clock & Scheduler & Randomness;
  /** Something changed: an object, the sync, or the connection. Runs inside the stream parser: keep it O(1). */
  readonly onChange: () => void;
  readonly log?: Log;
  /**
   * What of each received object the cache keeps (kept-fields.ts), applied to lists and watch events alike;
   * whole objects by default (the controller writes back whole Services).
   */
  readonly keep?: (object: ApiObject) => ApiObject;
  /** Shared by the watches of one process to list one at a time (list-gate.ts); ungated by default. */
  readonly listGate?: ListGate;
}

/** Watch events that carry an object of the resource (ERROR carries a Status, BOOKMARK only a resourceVersion). */
const OBJECT_PHASES = new Set(['ADDED', 'MODIFIED', 'DELETED']);

type WatchQuery = Record<string, string | number | boolean | undefined>;
type WatchCallback = (phase: string, apiObj: unknown, watchObj?: unknown) => void;
type WatchDone = (err: unknown) => void;

export class ResourceWatch {
  private readonly informer: ListWatch<ApiObject & { metadata: object }>;
  private readonly log: Log;
  private stopped = true;
  private listedOnce = false;
  private syncedNow = false;
  private contact: number | undefined;
  private failures = 0;
  private error: Error | undefined;
  private failingFrom: number | undefined;
  private restartTimer: Timer | undefined;
  private watchdog: Timer | undefined;
  /** The open watch request (aborting it ends the stream, and the informer reports why). */
  private currentWatch: AbortController | undefined;
  private lastWatchStart: number | undefined;
  private readonly listAborts = new Set<AbortController>();
  /** Requests made, lists and watches: what a test of "no hot loop" counts. */
  requests = 0;

  constructor(private readonly options: ResourceWatchOptions) {
    this.log = options.log ?? SILENT_LOG;
    const timeout = watchTimeoutSeconds(options.runtime);
    const watch = { watch: (p: string, q: WatchQuery, cb: WatchCallback, done: WatchDone) => this.watch(p, q, cb, done) };
    const { ListWatch } = clientNode();
    this.informer = new ListWatch(
      watchPath(options.path, timeout),
      watch as unknown as Watch,
      () => this.list() as never,
      false,
      options.labelSelector,
      options.fieldSelector,
    );
    const changed = (): void => options.onChange();
    this.informer.on('add', changed);
    this.informer.on('update', changed);
    this.informer.on('delete', changed);
    this.informer.on('error', (err: unknown) => this.failed(err));
  }

  /** Whether the first list has been applied: before that, `objects()` is not the cluster's. */
  get synced(): boolean {
    return this.syncedNow;
  }

  /** When the API server last answered this resource (clock ms): a list, a watch opening, an event or bookmark. */
  get lastContact(): number | undefined {
    return this.contact;
  }

  /** Why the last attempt failed; undefined once the API answers again. */
  get lastError(): Error | undefined {
    return this.error;
  }

  /** Since when (clock ms) every attempt has failed; undefined while the API answers. */
  get failingSince(): number | undefined {
    return this.failingFrom;
  }

  /** The objects as the API server last described them (plain JSON). */
  objects(): readonly ApiObject[] {
    return this.informer.list();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.watchdog = this.options.runtime.every(WATCHDOG_CHECK_MS, () => this.checkSilence());
    this.begin();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.restartTimer?.cancel();
    this.restartTimer = undefined;
    this.watchdog?.cancel();
    for (const abort of this.listAborts) abort.abort();
    await this.informer.stop();
    this.currentWatch?.abort();
    this.currentWatch = undefined;
  }

  private begin(): void {
    // The informer reports every failure through 'error' and never rejects here.
    void this.informer.start();
  }

  /** The informer stopped on an error: start it again later, once (a restart already planned covers this one too). */
  private failed(err: unknown): void {
    if (this.stopped || this.restartTimer) return;
    this.error = err instanceof Error ? err : new Error(String(err));
    this.failingFrom ??= this.options.runtime.now();
    this.failures += 1;
    const delay = restartDelayMs(this.failures, this.options.runtime);
    this.log.warn(
      { event: 'kubernetesWatchFailed', resource: this.options.name, error: this.error.message, retryInMs: delay },
      `watching ${this.options.name} failed: ${this.error.message}; retrying in ${delay} ms`,
    );
    this.options.onChange();
    this.restartTimer = this.options.runtime.after(delay, () => {
      this.restartTimer = undefined;
      if (!this.stopped) this.begin();
    });
  }

  private touched(): void {
    this.contact = this.options.runtime.now();
    if (this.error) {
      this.error = undefined;
      this.failingFrom = undefined;
      this.options.onChange();
    }
  }

  private checkSilence(): void {
    const open = this.currentWatch;
    if (!open || this.contact === undefined || !watchIsSilent(this.options.runtime.now(), this.contact)) return;
    this.log.warn(
      { event: 'kubernetesWatchSilent', resource: this.options.name },
      `the watch of ${this.options.name} went silent; restarting it`,
    );
    this.currentWatch = undefined;
    open.abort(); // the informer reports the abort as an error: the restart follows the usual path
  }

  private list(): Promise<ApiList> {
    const gate = this.options.listGate;
    return gate ? gate(() => this.listNow()) : this.listNow();
  }

  private async listNow(): Promise<ApiList> {
    this.requests += 1;
    const abort = new AbortController();
    this.listAborts.add(abort);
    const timer = this.options.runtime.after(REQUEST_TIMEOUT_MS, () => abort.abort());
    try {
      const list = await listObjects(this.options.kubeConfig, this.options.path, this.selectors(), abort.signal, this.options.keep);
      this.listedOnce = true;
      this.touched();
      return list;
    } catch (error) {
      throw abort.signal.aborted && !this.stopped
        ? new Error(`no answer to the list of ${this.options.name} within ${REQUEST_TIMEOUT_MS} ms`)
        : error;
    } finally {
      timer.cancel();
      this.listAborts.delete(abort);
    }
  }

  private selectors(): { labelSelector?: string; fieldSelector?: string } {
    const { labelSelector, fieldSelector } = this.options;
    return { ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) };
  }

  /** What the informer calls to watch: client-node's Watch, one at a time, spaced, with a deadline for its headers. */
  private async watch(path: string, query: WatchQuery, callback: WatchCallback, done: WatchDone): Promise<AbortController> {
    if (this.listedOnce && !this.syncedNow) {
      // The informer watches right after applying its first list: the cache is the cluster's from here on.
      this.syncedNow = true;
      this.options.onChange();
    }
    const { runtime } = this.options;
    const wait = watchSpacingDelayMs(runtime.now(), this.lastWatchStart);
    if (wait > 0) await new Promise<void>((resolve) => runtime.after(wait, resolve));
    const idle = new AbortController();
    if (this.stopped) return idle;
    this.currentWatch?.abort();
    this.lastWatchStart = runtime.now();
    this.requests += 1;
    let finished = false;
    let openedAt: number | undefined;
    let controller: AbortController = idle;
    const finish: WatchDone = (err) => {
      if (finished) return;
      finished = true;
      headers.cancel();
      const healthy = openedAt !== undefined && runtime.now() - openedAt >= HEALTHY_WATCH_MS;
      if (healthy) this.failures = 0;
      if (this.currentWatch === controller) this.currentWatch = undefined;
      done(err);
    };
    const headers = runtime.after(REQUEST_TIMEOUT_MS, () =>
      finish(new Error(`no answer to the watch of ${this.options.name} within ${REQUEST_TIMEOUT_MS} ms`)),
    );
    const keep = this.options.keep;
    const onLine: WatchCallback = (phase, object, raw) => {
      this.failures = 0;
      this.touched();
      // The raw event is not passed on: it holds the whole object, which the informer would otherwise see too.
      if (keep && OBJECT_PHASES.has(phase)) callback(phase, keep(object as ApiObject), undefined);
      else callback(phase, object, raw);
    };
    const { Watch } = clientNode();
    controller = await new Watch(this.options.kubeConfig).watch(path, query, onLine, finish);
    if (finished || this.stopped) {
      controller.abort(); // given up (deadline, stop) while the request was still being made
      return controller;
    }
    headers.cancel();
    openedAt = runtime.now();
    this.currentWatch = controller;
    this.touched();
    return controller;
  }
}
