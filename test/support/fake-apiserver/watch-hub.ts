/**
 * Watch streams (k8s.io/apiserver watch semantics, Kubernetes 1.32): a 200 whose headers go out at once, then one
 * JSON event per line. From a resourceVersion the stream first replays every later change from the store's history
 * (410 Expired when that history was compacted), without one it starts with a synthetic ADDED per existing object.
 * A selector watch sees an object entering its view as ADDED and leaving it as DELETED. BOOKMARKs only with
 * allowWatchBookmarks=true; timeoutSeconds ends the stream cleanly. Streams stay open otherwise: a server that ends
 * a watch at once makes client-node 1.x reconnect in a tight loop.
 *
 * The hub also holds the open streams for fault injection: drop (socket destroyed), end cleanly, expire (in-stream
 * ERROR 410, then end), freeze (half-open: nothing more is sent, the connection stays).
 */
import type { ServerResponse } from 'node:http';
import { ApiError, badRequest, expired, statusBody } from './api-error';
import type { KubeObject } from './kube-object';
import { objectMatches, type ObjectFilter } from './selectors';
import type { ObjectStore, StoreChange } from './store';
import { typeKey, type ResourceType } from './resource-catalog';
import { asVersion } from './write-rules';
import { tableOf } from './table';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchSpec {
  type: ResourceType;
  version: string;
  namespace?: string;
  filter: ObjectFilter;
  resourceVersion?: string;
  allowBookmarks: boolean;
  timeoutSeconds?: number;
  /** Objects as meta.k8s.io Tables (kubectl get -w asks for them). */
  table?: boolean;
}

export interface WatchHubOptions {
  /** How often an idle bookmarking watch gets a BOOKMARK (the real apiserver: about once a minute). */
  bookmarkIntervalMs: number;
  /** How a watch from a compacted resourceVersion fails: an HTTP 410, or a 200 with an ERROR event then the end. */
  expiredWatch: 'http' | 'event';
}

interface OpenWatch {
  spec: WatchSpec;
  response: ServerResponse;
  frozen: boolean;
  timers: NodeJS.Timeout[];
}

function inNamespace(spec: WatchSpec, object: KubeObject | undefined): boolean {
  return object !== undefined && (spec.namespace === undefined || object.metadata.namespace === spec.namespace);
}

function visible(spec: WatchSpec, object: KubeObject | undefined): boolean {
  return object !== undefined && inNamespace(spec, object) && objectMatches(spec.filter, object);
}

/** What a watcher sees of one change: selector transitions become ADDED/DELETED, the rest passes or vanishes. */
export function eventFor(spec: WatchSpec, change: StoreChange): { type: WatchEventType; object: KubeObject } | undefined {
  if (typeKey(change.type) !== typeKey(spec.type)) return undefined;
  const now = change.change === 'DELETED' ? false : visible(spec, change.object);
  const before = change.change === 'ADDED' ? false : visible(spec, change.previous);
  if (change.change === 'DELETED') return before ? { type: 'DELETED', object: change.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: change.object };
  if (now) return { type: 'ADDED', object: change.object };
  if (before) return { type: 'DELETED', object: change.object };
  return undefined;
}

export function expiredMessage(requested: number, store: ObjectStore): string {
  return `too old resource version: ${requested} (${store.currentRevision()})`;
}

export class WatchHub {
  private readonly open = new Set<OpenWatch>();

  constructor(
    private readonly store: ObjectStore,
    private readonly options: WatchHubOptions,
  ) {
    store.subscribe((change) => {
      for (const watch of this.open) {
        const event = eventFor(watch.spec, change);
        if (event) this.send(watch, event.type, this.rendered(watch.spec, event.object));
      }
    });
  }

  /** Starts a watch stream on `response`. Throws (before any byte is written) for a 400 or an HTTP 410. */
  start(spec: WatchSpec, response: ServerResponse): void {
    const replay = this.replayFor(spec);
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    const watch: OpenWatch = { spec, response, frozen: false, timers: [] };
    if (replay === 'expired') {
      this.sendError(watch, expired(expiredMessage(Number(spec.resourceVersion), this.store)));
      response.end();
      return;
    }
    for (const event of replay) this.send(watch, event.type, this.rendered(spec, event.object));
    this.open.add(watch);
    const forget = (): void => this.forget(watch);
    response.on('close', forget);
    if (spec.allowBookmarks) watch.timers.push(setInterval(() => this.bookmark(watch), this.options.bookmarkIntervalMs));
    if (spec.timeoutSeconds !== undefined && spec.timeoutSeconds > 0) {
      watch.timers.push(setTimeout(() => this.finish(watch), spec.timeoutSeconds * 1000));
    }
  }

  private replayFor(spec: WatchSpec): { type: WatchEventType; object: KubeObject }[] | 'expired' {
    const requested = spec.resourceVersion;
    if (requested === undefined || requested === '' || requested === '0') {
      const items = this.store.list(spec.type, spec.namespace).filter((object) => objectMatches(spec.filter, object));
      return items.map((object) => ({ type: 'ADDED' as const, object }));
    }
    if (!/^\d+$/.test(requested))
      throw badRequest(`resourceVersion: Invalid value: "${requested}": strconv.ParseUint: parsing "${requested}": invalid syntax`);
    const changes = this.store.changesSince(Number(requested));
    if (changes === 'expired') {
      if (this.options.expiredWatch === 'http') throw expired(expiredMessage(Number(requested), this.store));
      return 'expired';
    }
    return changes.flatMap((change) => eventFor(spec, change) ?? []);
  }

  private rendered(spec: WatchSpec, object: KubeObject): unknown {
    return spec.table ? tableOf(spec.type, [object], object.metadata.resourceVersion ?? '') : asVersion(spec.type, object, spec.version);
  }

  private send(watch: OpenWatch, type: WatchEventType, object: unknown): void {
    if (watch.frozen || watch.response.writableEnded || watch.response.destroyed) return;
    watch.response.write(`${JSON.stringify({ type, object })}\n`);
  }

  private sendError(watch: OpenWatch, error: ApiError): void {
    this.send(watch, 'ERROR', statusBody(error));
  }

  private bookmark(watch: OpenWatch): void {
    const { type, version } = watch.spec;
    const apiVersion = type.group === '' ? version : `${type.group}/${version}`;
    this.send(watch, 'BOOKMARK', { kind: type.kind, apiVersion, metadata: { resourceVersion: String(this.store.currentRevision()) } });
  }

  private finish(watch: OpenWatch): void {
    this.forget(watch);
    if (!watch.response.writableEnded) watch.response.end();
  }

  private forget(watch: OpenWatch): void {
    for (const timer of watch.timers) clearTimeout(timer);
    watch.timers = [];
    this.open.delete(watch);
  }

  /** Open watch streams (frozen ones included). */
  count(): number {
    return this.open.size;
  }

  /** Destroys every watch's socket: the client sees an abrupt close mid-stream (ECONNRESET / premature close). */
  dropAll(): number {
    const watches = [...this.open];
    for (const watch of watches) {
      this.forget(watch);
      watch.response.socket?.destroy();
    }
    return watches.length;
  }

  /** Ends every watch cleanly, as the apiserver does when a watch's own timeout runs out. */
  endAll(): number {
    const watches = [...this.open];
    for (const watch of watches) this.finish(watch);
    return watches.length;
  }

  /** Sends each watch `ERROR 410 Expired` and ends it (a watch cache that fell too far behind). */
  expireAll(): number {
    const watches = [...this.open];
    for (const watch of watches) {
      this.sendError(watch, expired(expiredMessage(Number(watch.spec.resourceVersion ?? 0), this.store)));
      this.finish(watch);
    }
    return watches.length;
  }

  /** Half-open: the open watches get nothing more (no events, bookmarks or end) but stay connected. */
  freezeAll(): number {
    for (const watch of this.open) {
      watch.frozen = true;
      for (const timer of watch.timers) clearTimeout(timer);
      watch.timers = [];
    }
    return this.open.size;
  }
}
