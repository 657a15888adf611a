/**
 * The Kubernetes API as a configuration source (ConfigSource): one ResourceWatch per watched resource
 * (watched-kinds.ts), translated into the file mode's Snapshot plus each service's endpoints
 * (translate-cluster.ts). Reconcile, not react: a change of any object only marks the source dirty; a debounced
 * recomputation reads every cache and tells the listeners only when the result differs, so a replayed or
 * duplicated event, or a write that changes nothing mlb reads (a Node's heartbeat), tells nobody anything.
 *
 * - start() resolves only once every watch has applied its first list: nothing is decided on half a cluster.
 * - An invalid object keeps the last good configuration running, stale, with the reasons (as the file source).
 * - While the API server cannot be reached the caches keep their last contents, so the configuration running
 *   stays (MetalLB's speaker keeps announcing through an API outage too); the state says stale, and a diagnostic
 *   says since when.
 * Not pure: watches and timers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { type Diagnostic, DiagnosticCode, type ParseOptions, errorsFirst } from '../../model';
import { REAL_RUNTIME, type Clock, type Randomness, type Scheduler, type Timer } from '../../runtime';
import { type Log, SILENT_LOG } from '../../runtime/log';
import { type ConfigListener, ConfigLoadError, type ConfigSource, type ConfigState } from '../config-source';
import { apiServerOf } from './kube-config';
import { keptFields } from './kept-fields';
import { oneListAtATime } from './list-gate';
import { ResourceWatch } from './resource-watch';
import { type ClusterObjects, prepareCluster, translatePrepared } from './translate-cluster';
import { WATCHED_KINDS, type WatchedKindName, kindPath } from './watched-kinds';

/** Quiet time after a change before recomputing: a burst (a re-list, a rollout's EndpointSlice churn) is one recomputation. */
export const RECOMPUTE_DEBOUNCE_MS = 100;
/**
 * How long the API must stay unreachable before the state says so: a dropped watch (a proxy or API server
 * restart) is usually back within a couple of restarts, and reporting each blip would flap the daemon's stale
 * state and logs for nothing.
 */
export const UNREACHABLE_GRACE_MS = 5_000;

export interface KubernetesSourceOptions {
  readonly kubeConfig: KubeConfig;
  /** Where the metallb.io objects live (--namespace, METALLB_NAMESPACE, default metallb-system). */
  readonly namespace: string;
  readonly runtime?: Clock & Scheduler & Randomness;
  readonly debounceMs?: number;
  readonly parseOptions?: ParseOptions;
  /** --lb-class: the Services handled are those of this spec.loadBalancerClass (unset: those without one). */
  readonly lbClass?: string;
  readonly log?: Log;
}

export class KubernetesSource implements ConfigSource {
  private current: ConfigState = { snapshot: undefined, stale: false, diagnostics: [], loadedAt: undefined };
  private readonly listeners = new Set<ConfigListener>();
  private readonly watches: ReadonlyMap<WatchedKindName, ResourceWatch>;
  private readonly runtime: Clock & Scheduler & Randomness;
  private readonly server: string;
  private debounce: Timer | undefined;
  private graceTimer: Timer | undefined;
  private lastDigest: string | undefined;
  /** What the caches say, connection aside: the last good snapshot, and whether what they hold now was refused. */
  private read: ConfigState = this.current;
  private started = false;
  private stopped = false;
  private firstSync: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly options: KubernetesSourceOptions) {
    this.runtime = options.runtime ?? REAL_RUNTIME;
    this.server = apiServerOf(options.kubeConfig);
    const log = options.log ?? SILENT_LOG;
    const listGate = oneListAtATime();
    this.watches = new Map(
      WATCHED_KINDS.map((kind) => [
        kind.name,
        new ResourceWatch({
          kubeConfig: options.kubeConfig,
          path: kindPath(kind, options.namespace),
          name: kind.name,
          runtime: this.runtime,
          onChange: () => this.dirty(),
          log,
          keep: (object) => keptFields(kind.name, object),
          listGate,
        }),
      ]),
    );
  }

  get origin(): string {
    return `the Kubernetes API ${this.server}`;
  }

  get loadingStep(): string {
    return `reading the configuration from the Kubernetes API ${this.server} (namespace ${this.options.namespace})`;
  }

  get state(): ConfigState {
    return this.current;
  }

  onChange(listener: ConfigListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every watch has listed and the result is valid; rejects (ConfigLoadError) when it is not. */
  async start(): Promise<ConfigState> {
    if (!this.started) {
      this.started = true;
      const synced = new Promise<void>((resolve, reject) => (this.firstSync = { resolve, reject }));
      for (const watch of this.watches.values()) watch.start();
      await synced;
    }
    if (this.current.snapshot === undefined) throw new ConfigLoadError(this.origin, this.current.diagnostics);
    return this.current;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.debounce?.cancel();
    this.graceTimer?.cancel();
    this.firstSync?.reject(new Error(`stopped before the Kubernetes API ${this.server} was read`));
    this.firstSync = undefined;
    await Promise.all([...this.watches.values()].map((w) => w.stop()));
  }

  /** Whether every watch has applied its first list. */
  get synced(): boolean {
    return [...this.watches.values()].every((w) => w.synced);
  }

  private dirty(): void {
    if (this.stopped) return;
    if (this.firstSync) {
      // Before the first sync there is nothing to debounce for: the first full picture is computed at once.
      if (!this.synced) return;
      this.recompute();
      const first = this.firstSync;
      this.firstSync = undefined;
      first.resolve();
      return;
    }
    this.debounce ??= this.runtime.after(this.options.debounceMs ?? RECOMPUTE_DEBOUNCE_MS, () => {
      this.debounce = undefined;
      this.recompute();
    });
  }

  private recompute(): void {
    if (this.stopped) return;
    const objects = Object.fromEntries([...this.watches].map(([name, w]) => [name, w.objects()])) as unknown as ClusterObjects;
    const prepared = prepareCluster(objects, this.options.lbClass);
    if (prepared.digest !== this.lastDigest) {
      this.lastDigest = prepared.digest;
      const { result, endpoints } = translatePrepared(prepared, this.origin, this.options.parseOptions ?? {});
      this.read = result.ok
        ? { snapshot: result.snapshot, stale: false, diagnostics: result.diagnostics, loadedAt: this.runtime.now(), endpoints }
        : { ...this.read, stale: true, diagnostics: errorsFirst(result.diagnostics) };
    }
    const unreachable = this.unreachable();
    const next: ConfigState = unreachable ? { ...this.read, stale: true, diagnostics: [unreachable, ...this.read.diagnostics] } : this.read;
    const same =
      next.snapshot === this.current.snapshot &&
      next.stale === this.current.stale &&
      sameDiagnostics(next.diagnostics, this.current.diagnostics);
    if (same) return;
    this.current = next;
    for (const listener of [...this.listeners]) listener(next);
  }

  /** The API server cannot be reached: since when, and what the watch that failed first said. */
  private unreachable(): Diagnostic | undefined {
    let first: ResourceWatch | undefined;
    let firstName = '';
    for (const [name, watch] of this.watches) {
      const since = watch.failingSince;
      if (since !== undefined && (first?.failingSince === undefined || since < first.failingSince)) {
        first = watch;
        firstName = name;
      }
    }
    if (first?.failingSince === undefined) return undefined;
    const sinceMs = first.failingSince;
    const graceLeft = sinceMs + UNREACHABLE_GRACE_MS - this.runtime.now();
    if (graceLeft > 0) {
      // Looked at again when the grace is over (the failing watches may say nothing more until then).
      this.graceTimer ??= this.runtime.after(graceLeft, () => {
        this.graceTimer = undefined;
        this.recompute();
      });
      return undefined;
    }
    const since = new Date(sinceMs).toISOString();
    const running =
      this.read.loadedAt === undefined
        ? 'nothing loaded yet'
        : `running the configuration read at ${new Date(this.read.loadedAt).toISOString()}`;
    return {
      severity: 'error',
      code: DiagnosticCode.apiUnreachable,
      message: `the Kubernetes API ${this.server} is unreachable since ${since} (${firstName}: ${first.lastError?.message ?? 'no answer'}); ${running}`,
    };
  }
}

function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
  return a.length === b.length && a.every((d, i) => JSON.stringify(d) === JSON.stringify(b[i]));
}
