/**
 * Fault injection: what a test does to the fake to imitate an API server misbehaving. Watches: drop (socket
 * destroyed), end cleanly, expire (in-stream 410), half-open (stop sending, stay connected). Requests: the next N
 * fail with a code (optionally only under a path prefix / for one method), responses delayed. The whole server:
 * an outage (connections refused, or accepted and reset) until healed. History: compaction, so that a watch from
 * an older resourceVersion gets 410 and informers must re-list.
 */
import { ApiError, type StatusReason } from './api-error';
import type { ObjectStore } from './store';
import type { WatchHub } from './watch-hub';

export type OutageMode = 'refuse' | 'reset';

/** The listener side of an outage: implemented by the HTTP shell. */
export interface ConnectionControl {
  startOutage(mode: OutageMode): Promise<void>;
  endOutage(): Promise<void>;
}

interface FailureRule {
  remaining: number;
  code: number;
  pathPrefix?: string;
  method?: string;
}

const REASON_BY_CODE: Record<number, StatusReason> = {
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
};

export interface FailNextOptions {
  /** HTTP status to answer with (default 500). */
  code?: number;
  /** Only requests whose path starts with this (e.g. `/api/v1/services`) count and fail. */
  pathPrefix?: string;
  /** Only this method (GET, PUT, ...). */
  method?: string;
}

export class Faults {
  private rules: FailureRule[] = [];
  private delay = 0;
  private readonly delayed = new Set<() => void>();
  private outageMode: OutageMode | undefined;

  constructor(
    private readonly hub: WatchHub,
    private readonly store: ObjectStore,
    private readonly connections: ConnectionControl,
  ) {}

  /** The next `count` matching requests fail with a Status of `code` (watches included: they fail before streaming). */
  failNext(count: number, options: FailNextOptions = {}): void {
    const rule: FailureRule = { remaining: count, code: options.code ?? 500 };
    if (options.pathPrefix !== undefined) rule.pathPrefix = options.pathPrefix;
    if (options.method !== undefined) rule.method = options.method.toUpperCase();
    this.rules.push(rule);
  }

  /** Consumed by the shell for each request: the injected failure for it, if any. */
  failureFor(method: string, path: string): ApiError | undefined {
    const rule = this.rules.find(
      (candidate) =>
        candidate.remaining > 0 &&
        (candidate.pathPrefix === undefined || path.startsWith(candidate.pathPrefix)) &&
        (candidate.method === undefined || candidate.method === method),
    );
    if (!rule) return undefined;
    rule.remaining -= 1;
    this.rules = this.rules.filter((candidate) => candidate.remaining > 0);
    const reason = REASON_BY_CODE[rule.code] ?? 'InternalError';
    return new ApiError(rule.code, reason, `injected fault: ${reason}`);
  }

  /** Every response (watches: their headers) waits this long; 0 turns it off and releases the waiting ones. */
  delayResponses(ms: number): void {
    this.delay = ms;
    if (ms === 0) {
      for (const release of this.delayed) release();
      this.delayed.clear();
    }
  }

  /** Called by the shell before answering: resolves once the configured delay has passed (or was lifted). */
  async waitForDelay(): Promise<void> {
    if (this.delay === 0) return;
    await new Promise<void>((resolve) => {
      const release = (): void => {
        clearTimeout(timer);
        this.delayed.delete(release);
        resolve();
      };
      const timer = setTimeout(release, this.delay);
      this.delayed.add(release);
    });
  }

  /** Requests currently held back by delayResponses. */
  pendingDelays(): number {
    return this.delayed.size;
  }

  dropWatches(): number {
    return this.hub.dropAll();
  }

  endWatches(): number {
    return this.hub.endAll();
  }

  expireWatches(): number {
    return this.hub.expireAll();
  }

  halfOpenWatches(): number {
    return this.hub.freezeAll();
  }

  openWatches(): number {
    return this.hub.count();
  }

  /** Forgets history before `revision` (default: all): watches from an older resourceVersion get 410. */
  compact(revision?: number): void {
    this.store.compact(revision);
  }

  /** The API server goes away: every open connection is destroyed, new ones are refused (or accepted and reset). */
  async outage(mode: OutageMode = 'refuse'): Promise<void> {
    if (this.outageMode !== undefined) return;
    this.outageMode = mode;
    this.hub.dropAll();
    await this.connections.startOutage(mode);
  }

  async heal(): Promise<void> {
    if (this.outageMode === undefined) return;
    this.outageMode = undefined;
    await this.connections.endOutage();
  }

  inOutage(): boolean {
    return this.outageMode !== undefined;
  }
}
