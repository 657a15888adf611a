/**
 * The controller's caches: one client-node ListWatch per resource, restarted with backoff when it stops (any
 * connection error stops a 1.4.0 informer for good), and watches that end on their own every few minutes so a
 * half-open connection cannot leave a cache silently stale. Kept minimal and in this one file: the shared
 * informer wrapper of src/sources/k8s replaces it when it lands.
 */
import { type KubernetesListObject, type KubernetesObject, ListWatch, Watch } from '@kubernetes/client-node';
import type { KubeClient } from './kube-client';

/** First restart delay after an informer stopped on an error; doubles up to the maximum. */
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/** The server ends each watch after this long (timeoutSeconds), and the informer re-watches from its RV. */
const WATCH_TIMEOUT_SECONDS = 300;

export interface WatchLog {
  warn(message: string): void;
}

export class ResourceCache<T extends KubernetesObject = KubernetesObject> {
  private readonly informer: ListWatch<T>;
  private restartDelay = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private starting = false;
  private stopped = false;
  /** True once the first list was applied: nothing is decided before every cache has it. */
  synced = false;

  constructor(
    readonly name: string,
    private readonly client: KubeClient,
    private readonly path: string,
    private readonly onChange: () => void,
    private readonly log: WatchLog,
  ) {
    const watchPath = `${path}?allowWatchBookmarks=true&timeoutSeconds=${WATCH_TIMEOUT_SECONDS}`;
    this.informer = new ListWatch<T>(watchPath, new Watch(client.config), () => this.list(), false);
    for (const verb of ['add', 'update', 'delete'] as const) this.informer.on(verb, () => this.changed());
    this.informer.on('error', (err: unknown) => this.failed(err));
  }

  start(): void {
    this.stopped = false;
    void this.startOnce();
  }

  stop(): void {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    void this.informer.stop().catch(() => undefined);
  }

  objects(): readonly T[] {
    return this.informer.list();
  }

  private async list(): Promise<KubernetesListObject<T>> {
    const list = await this.client.get<KubernetesListObject<T>>(this.path);
    if (list === undefined) throw new Error(`${this.path}: not found (is the resource's CRD installed?)`);
    return list;
  }

  private changed(): void {
    this.restartDelay = RESTART_MIN_MS;
    this.onChange();
  }

  /** Single flight: a start while one is running could leave two watches open. */
  private async startOnce(): Promise<void> {
    if (this.starting || this.stopped) return;
    this.starting = true;
    try {
      await this.informer.start();
      if (!this.synced) {
        this.synced = true;
        this.onChange();
      }
    } catch (error) {
      this.failed(error);
    } finally {
      this.starting = false;
    }
  }

  private failed(error: unknown): void {
    if (this.stopped || this.restartTimer !== undefined) return;
    const delay = this.restartDelay;
    this.restartDelay = Math.min(this.restartDelay * 2, RESTART_MAX_MS);
    this.log.warn(`watch of ${this.name} stopped (${(error as Error)?.message ?? String(error)}): restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.startOnce();
    }, delay);
  }
}
