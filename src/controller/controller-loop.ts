/**
 * The controller process's loop: caches for Services, Namespaces and the metallb.io configuration, and one
 * reconcile at a time once every cache has listed (nothing is decided from a partial view, or a pending
 * Service could take an address its holder has not been seen with yet). Each reconcile reads the caches, runs
 * the pure reconcile and performs its writes; a failed write is retried by a later reconcile, which decides the
 * same thing again.
 */
import { randomBytes } from 'node:crypto';
import type { PoolUsage } from '../allocator';
import type { Labels, Snapshot } from '../model';
import { type ClusterObjects, emptyClusterObjects, translateCluster } from '../sources/k8s/translate-cluster';
import { WATCHED_KINDS, kindPath } from '../sources/k8s/watched-kinds';
import type { ApiObject, ApiService } from './api-objects';
import { ResourceWatch } from '../sources/k8s/resource-watch';
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Log } from '../runtime/log';
import type { Clock, Randomness, Scheduler, Timer } from '../runtime/runtime';
import { chooseConfiguration, type ConfigurationRead } from './configuration-choice';
import {
  configurationStateStatus,
  newConfigurationState,
  poolCondition,
  sameConfigurationState,
  type ConfigurationStateStatus,
} from './configuration-state';
import { ControllerWriter } from './controller-writer';
import type { KubeClient } from '../sources/k8s/api/kube-client';
import { MEMBERLIST_KEY_BYTES, memberlistSecretDecision } from './memberlist-secret';
import { poolStatusWrites } from './pool-status';
import { EMPTY_MEMORY, type ControllerMemory, type ServiceDecision, reconcileServices } from './reconcile-services';
import { forEachBounded } from './bounded-writes';

/** Changes arriving together (a list, a burst of updates) are reconciled once. */
const RECONCILE_DEBOUNCE_MS = 50;
/**
 * Service status writes in flight at once: enough to keep the API server busy (a bare client writing 10,000
 * statuses is at its fastest around 16), few enough that a reconcile never floods it (an API server's
 * max-requests-inflight is 400 for the whole cluster).
 */
const STATUS_WRITES_IN_FLIGHT = 16;
/** Events in flight beside them: fewer, as users wait on an address, not on its event. */
const EVENT_WRITES_IN_FLIGHT = 4;
/** After a failed write (conflict, API error) the next reconcile comes this soon even if nothing changes. */
const RETRY_AFTER_FAILURE_MS = 1_000;

export interface ControllerProcessOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly lbClass?: string;
  readonly secretName: string;
  readonly deploymentName: string;
  readonly podName?: string;
  readonly log: Log;
  readonly now?: () => number;
  /** Clock and timers of the watches and the reconcile debounce (the real ones by default). */
  readonly runtime?: Clock & Scheduler & Randomness;
}

/**
 * The metallb.io kinds MetalLB's controller validates as its configuration (its PoolReconciler reads them all
 * through config.For), and the namespace's Secrets that BGPPeer passwordSecret references are checked against.
 */
const CONFIG_KINDS = WATCHED_KINDS.filter((k) => k.inMetalLBNamespace);

export class MetalLBController {
  private readonly caches: ResourceWatch[];
  private readonly services: ResourceWatch;
  private readonly namespaces: ResourceWatch;
  private readonly configCaches: Map<string, ResourceWatch>;
  private readonly writer: ControllerWriter;
  private readonly now: () => number;
  private memory: ControllerMemory = EMPTY_MEMORY;
  private lastGood: Snapshot | undefined;
  private lastConfigMessage = '';
  private writtenState: ConfigurationStateStatus | undefined;
  private fresher = new Map<string, ApiService>();
  private timer: Timer | undefined;
  private readonly runtime: Clock & Scheduler & Randomness;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private secretDone = false;
  /** Pool counters after the last reconcile, for /metrics. */
  usage: readonly PoolUsage[] = [];
  configLoaded = false;
  reconciled = false;

  constructor(private readonly options: ControllerProcessOptions) {
    const { client, namespace, log } = options;
    this.runtime = options.runtime ?? REAL_RUNTIME;
    this.now = options.now ?? (() => this.runtime.now());
    this.writer = new ControllerWriter(client, this.now);
    const changed = (): void => this.schedule(RECONCILE_DEBOUNCE_MS);
    const watch = (name: string, path: string, onChange: () => void): ResourceWatch =>
      new ResourceWatch({ kubeConfig: client.config, path, name, runtime: this.runtime, onChange, log });
    this.services = watch('services', '/api/v1/services', () => {
      this.fresher.clear();
      changed();
    });
    this.namespaces = watch('namespaces', '/api/v1/namespaces', changed);
    this.configCaches = new Map(CONFIG_KINDS.map((k) => [k.name, watch(k.name, kindPath(k, namespace), changed)]));
    this.caches = [this.services, this.namespaces, ...this.configCaches.values()];
  }

  start(): void {
    for (const cache of this.caches) cache.start();
  }

  /** Ready once every cache listed and the first reconcile ran (/readyz). */
  get ready(): boolean {
    return this.reconciled;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await Promise.all(this.caches.map((cache) => cache.stop().catch(() => undefined)));
    await this.running;
  }

  /** Resolves once no reconcile is running or scheduled (tests, and a clean stop). */
  async settled(): Promise<void> {
    while (this.running !== undefined || this.timer !== undefined) {
      await (this.running ?? new Promise<void>((resolve) => this.runtime.after(RECONCILE_DEBOUNCE_MS, resolve)));
    }
  }

  private schedule(delay: number): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = this.runtime.after(delay, () => {
      this.timer = undefined;
      void this.reconcile();
    });
  }

  /** One reconcile at a time; a change during one runs another right after. */
  reconcile(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.reconcileOnce()
      .catch((error: unknown) => {
        this.options.log.error({ event: 'reconcileFailed', error: (error as Error).message }, 'reconcile failed; retrying');
        this.schedule(RETRY_AFTER_FAILURE_MS);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.schedule(0);
        }
      });
    return this.running;
  }

  private async reconcileOnce(): Promise<void> {
    if (this.stopped || !this.caches.every((c) => c.synced)) return;
    const { log, namespace } = this.options;
    if (!this.secretDone) await this.ensureMemberlistSecret();

    const choice = chooseConfiguration(this.lastGood, this.readConfiguration());
    this.lastGood = choice.running;
    this.configLoaded = choice.running !== undefined;
    if (choice.message !== this.lastConfigMessage) {
      this.lastConfigMessage = choice.message;
      (choice.error === undefined ? log.info : log.warn).call(
        log,
        { event: choice.error ? 'configInvalid' : 'configLoaded' },
        choice.message,
      );
    }

    const services = (this.services.objects() as unknown as ApiService[]).map((s) => this.fresher.get(key(s)) ?? s);
    const out = reconcileServices({
      pools: choice.running?.pools,
      namespaceLabels: this.namespaceLabels(),
      services,
      options: this.options.lbClass ? { lbClass: this.options.lbClass } : {},
      memory: this.memory,
    });
    this.memory = out.memory;
    let failed = !(await this.writeDecisions(out.decisions, new Map(services.map((s) => [key(s), s]))));
    for (const r of out.released) log.info({ event: 'serviceDeleted', service: r.service }, r.message);
    this.usage = out.usage;

    if (choice.running !== undefined) {
      const pools = this.configCaches.get('ipaddresspools')?.objects() as unknown as ApiObject[];
      for (const w of poolStatusWrites(pools, out.usage)) {
        if (w.write) await this.writer.writePoolStatus(namespace, w.write).catch(() => (failed = true));
      }
    }
    await this.writeConfigurationState(choice.error).catch((e: unknown) => {
      failed = true;
      log.warn({ event: 'configurationState' }, (e as Error).message);
    });
    this.reconciled = true;
    if (failed) this.schedule(RETRY_AFTER_FAILURE_MS);
  }

  /**
   * The decisions' status writes, STATUS_WRITES_IN_FLIGHT at a time, and beside them their events,
   * EVENT_WRITES_IN_FLIGHT at a time (each service's in order). Events do not hold statuses back: MetalLB's
   * recorder (client-go's event broadcaster) sends them from its own queue, never in the reconcile's way. One
   * write after the other, 10,000 services waited on 20,000 round trips. False when a status write failed.
   */
  private async writeDecisions(decisions: readonly ServiceDecision[], byKey: ReadonlyMap<string, ApiService>): Promise<boolean> {
    const { log } = this.options;
    let ok = true;
    const emitEvents = async (d: ServiceDecision): Promise<void> => {
      const api = byKey.get(d.service) as ApiService;
      for (const event of d.events) {
        log.info({ event: 'serviceEvent', service: d.service, reason: event.reason, type: event.type }, event.message);
        await this.writer
          .emit(api, event)
          .catch((e: unknown) => log.warn({ event: 'eventFailed', service: d.service }, (e as Error).message));
      }
    };
    const writeStatus = async (d: ServiceDecision): Promise<void> => {
      const written = await this.writer.writeServiceStatus(d.write as ApiService).catch((e: unknown) => {
        log.error({ event: 'updateServiceStatus', service: d.service }, (e as Error).message);
        return undefined;
      });
      if (written?.kind === 'written') {
        log.info({ event: 'serviceUpdated', service: d.service, reason: d.reason, changed: d.differences }, d.message);
        return;
      }
      ok = false;
      if (written?.fresh) this.fresher.set(d.service, written.fresh);
      log.warn(
        { event: 'updateServiceStatus', service: d.service },
        written ? 'conflict (the Service changed meanwhile): re-read, retrying' : 'write failed, retrying',
      );
    };
    await Promise.all([
      forEachBounded(
        decisions.filter((d) => d.events.length > 0),
        EVENT_WRITES_IN_FLIGHT,
        emitEvents,
      ),
      forEachBounded(
        decisions.filter((d) => d.write !== undefined),
        STATUS_WRITES_IN_FLIGHT,
        writeStatus,
      ),
    ]);
    return ok;
  }

  private readConfiguration(): ConfigurationRead {
    const objects: Record<string, readonly unknown[]> = emptyClusterObjects();
    for (const [name, cache] of this.configCaches) objects[name] = cache.objects();
    const { result } = translateCluster(objects as ClusterObjects, 'kubernetes');
    if (result.ok) return { ok: true, snapshot: result.snapshot };
    return { ok: false, errors: result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message) };
  }

  private namespaceLabels(): Map<string, Labels> {
    return new Map(this.namespaces.objects().map((n) => [n.metadata?.name ?? '', (n.metadata?.labels ?? {}) as Labels]));
  }

  private async writeConfigurationState(error: string | undefined): Promise<void> {
    const status = configurationStateStatus([poolCondition(error, rfc3339(this.now()))]);
    if (this.writtenState !== undefined && sameConfigurationState(this.writtenState, status)) return;
    const { namespace, podName } = this.options;
    const pod = podName
      ? await this.writer.get<ApiObject>(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(podName)}`)
      : undefined;
    const owner = pod?.metadata.uid ? { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', uid: pod.metadata.uid } : undefined;
    await this.writer.writeConfigurationState(namespace, newConfigurationState(namespace, owner), status);
    this.writtenState = status;
  }

  private async ensureMemberlistSecret(): Promise<void> {
    const { namespace, secretName, deploymentName, log } = this.options;
    const enc = encodeURIComponent;
    const existing = await this.writer.get<ApiObject>(`/api/v1/namespaces/${enc(namespace)}/secrets/${enc(secretName)}`);
    const deployment = existing
      ? undefined
      : await this.writer.get<ApiObject>(`/apis/apps/v1/namespaces/${enc(namespace)}/deployments/${enc(deploymentName)}`);
    const decision = memberlistSecretDecision(namespace, secretName, existing, deployment, randomBytes(MEMBERLIST_KEY_BYTES));
    if (decision.kind === 'create') await this.writer.createSecret(namespace, decision.secret);
    log.info({ event: 'memberlistSecret' }, decision.message);
    this.secretDone = true;
  }
}

function key(s: ApiService): string {
  return `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`;
}

function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
