/**
 * The speaker's writes to the Kubernetes API, as MetalLB's speaker makes them: ServiceL2Status and
 * ServiceBGPStatus (service-status-plan.ts), `nodeAssigned` and `announceFailed` events on the Services
 * (announced-services.ts, announce-failures.ts; repeats counted on one Event by the controller's correlator), and the ConfigurationState `speaker-<node>`. Not pure: the API.
 *
 * Every pass is "make it so" from the latest plan: it lists what the API holds and applies the difference, so a
 * failed or lost write is simply redone by the next pass (a retry timer runs one after an error). What the API
 * does never changes what the speaker announces. On @kubernetes/client-node 1.4.0: merge patches must name their
 * content type, since the generated patch methods default to a JSON patch.
 */
import type { CoreV1Api, CustomObjectsApi, CoreV1Event, KubeConfig } from '@kubernetes/client-node';
import { clientNode, type ClientNode } from '../../sources/k8s/api/client-node-module';
import { EMPTY_EVENT_MEMORY, correlateEvent, type EventMemory } from '../../controller/event-correlator';
import type { ControllerEvent } from '../../controller/controller-events';
import type { ApiService } from '../../controller/api-objects';
import { sameConfigurationState, type ConfigurationStateStatus } from '../../controller/configuration-state';
import type { Clock, Scheduler, Timer } from '../../runtime';
import type { Log } from '../../runtime/log';
import type { SpeakerPlan } from '../speaker-plan';
import type { AnnouncedIP } from '../local-announcements';
import { failedAnnouncements, newlyFailed } from './announce-failures';
import {
  announcedServices,
  newlyAnnounced,
  type AnnouncedByProtocol,
  type FailedAnnouncement,
  type SpeakerEvent,
} from './announced-services';
import {
  STATUS_GROUP_VERSION,
  STATUS_KINDS,
  planServiceStatus,
  type OwnerPod,
  type StatusAction,
  type StatusKind,
  type StoredStatus,
} from './service-status-plan';
import { newSpeakerConfigurationState, speakerConfigurationStateName, speakerConfigurationStatus } from './speaker-configuration-state';

/** After a failed pass, the next one runs this much later even if nothing changes (the API may be back). */
const STATUS_RETRY_MS = 10_000;
/**
 * A full pass this often even when nothing changed here: another node may have written an object this node's
 * election says it must remove (MetalLB's reconcilers see those through their watch; mlb does not watch them).
 */
const STATUS_RESYNC_MS = 60_000;
/** MetalLB's event source component for the speaker (users filter on it). */
const SPEAKER_COMPONENT = 'metallb-speaker';
const GROUP = 'metallb.io';
const VERSION = STATUS_GROUP_VERSION.split('/')[1]!;
function mergePatch(): ReturnType<ClientNode['setHeaderOptions']> {
  const { setHeaderOptions, PatchStrategy } = clientNode();
  return setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
}
function strategicMergePatch(): ReturnType<ClientNode['setHeaderOptions']> {
  const { setHeaderOptions, PatchStrategy } = clientNode();
  return setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
}

export interface SpeakerStatusWriterOptions {
  readonly kubeConfig: KubeConfig;
  /** The MetalLB namespace: where the status objects and the ConfigurationState live. */
  readonly namespace: string;
  readonly node: string;
  /** METALLB_POD_NAME: the owner of the objects; without it they have no owner (and no garbage collection). */
  readonly podName: string | undefined;
  /** The first error of the configuration refused now, undefined when the running one is fine. */
  readonly configError: () => string | undefined;
  readonly runtime: Clock & Scheduler;
  readonly log: Log;
  /** Default STATUS_RETRY_MS; tests shorten it. */
  readonly retryMs?: number;
}

export class SpeakerStatusWriter {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private announced: AnnouncedByProtocol | undefined;
  private failed: readonly FailedAnnouncement[] = [];
  private pendingEvents: SpeakerEvent[] = [];
  private eventMemory: EventMemory = EMPTY_EVENT_MEMORY;
  private owner: OwnerPod | undefined;
  private ownerRead = false;
  private writtenConfig: ConfigurationStateStatus | undefined;
  private running = false;
  private again = false;
  private retry: Timer | undefined;
  private resync: Timer | undefined;
  private lastKey: string | undefined;
  private stopped = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly options: SpeakerStatusWriterOptions) {
    this.custom = options.kubeConfig.makeApiClient(clientNode().CustomObjectsApi);
    this.core = options.kubeConfig.makeApiClient(clientNode().CoreV1Api);
  }

  /**
   * A new plan: what this node announces now. A pass runs only when that or the configuration's verdict changed
   * (the speaker recomputes on every gossip change; the API need not hear about those), besides the periodic one.
   * `answered`: the layer 2 IPs the node answers for after applying the plan, with the interfaces it chose (an IP
   * whose advertisement names only absent interfaces has none: announceFailed, and not announced).
   */
  planned(plan: SpeakerPlan, answered: readonly AnnouncedIP[] = []): void {
    const failed = failedAnnouncements(plan.layer2, answered);
    const now = announcedServices(plan, this.options.node, failed);
    if (now === undefined) return;
    this.resync ??= this.options.runtime.every(STATUS_RESYNC_MS, () => this.kick());
    const key = JSON.stringify([now, failed, this.options.configError()]);
    if (key === this.lastKey) return;
    this.lastKey = key;
    // MetalLB's order: the failure while setting the balancer, then the assignment of what could be announced.
    this.pendingEvents.push(...newlyFailed(this.failed, failed, this.options.node));
    this.pendingEvents.push(...newlyAnnounced(this.announced, now, this.options.node));
    this.failed = failed;
    this.announced = now;
    this.kick();
  }

  /** The configuration changed (or was refused): the ConfigurationState may have to say so. */
  configChanged(): void {
    this.kick();
  }

  /** Resolves when no pass is running (tests wait on it). */
  settled(): Promise<void> {
    return this.idle;
  }

  stop(): void {
    this.stopped = true;
    this.retry?.cancel();
    this.resync?.cancel();
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.retry?.cancel();
    this.idle = this.run();
  }

  private async run(): Promise<void> {
    let ok = true;
    do {
      this.again = false;
      ok = await this.pass();
    } while (this.again && !this.stopped);
    this.running = false;
    if (!ok && !this.stopped) this.retry = this.options.runtime.after(this.options.retryMs ?? STATUS_RETRY_MS, () => this.kick());
  }

  /** One "make it so" pass; false when some write failed (the retry timer redoes the whole pass). */
  private async pass(): Promise<boolean> {
    let ok = true;
    const attempt = async (what: string, step: () => Promise<void>): Promise<boolean> => {
      try {
        await step();
        return true;
      } catch (error) {
        ok = false;
        this.options.log.warn({ event: 'kubernetesWriteFailed', what }, `${what}: ${errorText(error)}; retried`);
        return false;
      }
    };
    // Without the pod's uid the objects would have no owner and outlive the pod: they wait for it.
    const owned = await attempt('reading the speaker pod', () => this.readOwner());
    const announced = this.announced;
    if (announced && owned) {
      await attempt('ServiceL2Status', () => this.syncKind('ServiceL2Status', announced.layer2));
      await attempt('ServiceBGPStatus', () => this.syncKind('ServiceBGPStatus', announced.bgp));
    }
    await attempt('events', () => this.sendEvents());
    await attempt('ConfigurationState', () => this.syncConfigurationState());
    return ok;
  }

  /** The pod's uid, read once (it cannot change for the life of this process). */
  private async readOwner(): Promise<void> {
    const name = this.options.podName;
    if (this.ownerRead || !name) return;
    const pod = await this.core.readNamespacedPod({ name, namespace: this.options.namespace });
    this.owner = pod.metadata?.uid ? { name, uid: pod.metadata.uid } : undefined;
    this.ownerRead = true;
  }

  private async syncKind(kind: StatusKind, announced: AnnouncedByProtocol['layer2']): Promise<void> {
    const { namespace, node } = this.options;
    const plural = STATUS_KINDS[kind].plural;
    const list = (await this.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural })) as {
      items?: { metadata?: { name?: string; labels?: Record<string, string> }; status?: unknown }[];
    };
    const stored: StoredStatus[] = (list.items ?? []).map((o) => ({
      name: o.metadata?.name ?? '',
      labels: o.metadata?.labels ?? {},
      status: o.status,
    }));
    for (const action of planServiceStatus({ kind, node, namespace, owner: this.owner, announced, stored })) {
      await this.apply(action, plural);
    }
  }

  private async apply(action: StatusAction, plural: string): Promise<void> {
    const { namespace } = this.options;
    const target = { group: GROUP, version: VERSION, namespace, plural };
    if (action.op === 'delete') {
      try {
        await this.custom.deleteNamespacedCustomObject({ ...target, name: action.name });
      } catch (error) {
        // Another node's winner (or the garbage collector) deleted it first: what was wanted.
        if (httpStatus(error) !== 404) throw error;
      }
      this.options.log.info(
        { event: 'statusDeleted', kind: action.kind, name: action.name },
        `${action.kind} ${action.name} deleted: ${action.why}`,
      );
      return;
    }
    let name = action.op === 'patchStatus' ? action.name : '';
    if (action.op === 'create') {
      // The create drops the status (status subresource): it is set by the patch that follows.
      const created = (await this.custom.createNamespacedCustomObject({ ...target, body: action.body })) as {
        metadata?: { name?: string };
      };
      name = created.metadata?.name ?? '';
    }
    await this.custom.patchNamespacedCustomObjectStatus({ ...target, name, body: { status: action.status } }, mergePatch());
  }

  private async sendEvents(): Promise<void> {
    while (this.pendingEvents.length > 0) {
      const event = this.pendingEvents[0]!;
      await this.sendEvent(event);
      this.pendingEvents.shift();
    }
  }

  private async sendEvent(event: SpeakerEvent): Promise<void> {
    const slash = event.service.indexOf('/');
    const namespace = event.service.slice(0, slash);
    const name = event.service.slice(slash + 1);
    let service: ApiService;
    try {
      // The Event names the Service's uid: `kubectl describe svc` selects on it.
      service = (await this.core.readNamespacedService({ name, namespace })) as unknown as ApiService;
    } catch (error) {
      if (httpStatus(error) === 404) return; // gone already: nobody to tell
      throw error;
    }
    // The correlator is the controller's (client-go's record package); its event type lists the controller's
    // reasons, the speaker's are two more of the same shape.
    const { action, memory } = correlateEvent(
      this.eventMemory,
      service,
      event as unknown as ControllerEvent,
      SPEAKER_COMPONENT,
      this.options.runtime.now(),
    );
    if (action.kind === 'create')
      await this.core.createNamespacedEvent({ namespace: action.namespace, body: action.body as unknown as CoreV1Event });
    else if (action.kind === 'patch')
      await this.core.patchNamespacedEvent({ namespace: action.namespace, name: action.name, body: action.body }, strategicMergePatch());
    this.eventMemory = memory;
  }

  private async syncConfigurationState(): Promise<void> {
    const { namespace, node } = this.options;
    const status = speakerConfigurationStatus(this.options.configError(), rfc3339(this.options.runtime.now()));
    if (this.writtenConfig !== undefined && sameConfigurationState(this.writtenConfig, status)) return;
    const target = { group: GROUP, version: VERSION, namespace, plural: 'configurationstates' };
    const name = speakerConfigurationStateName(node);
    try {
      await this.custom.getNamespacedCustomObject({ ...target, name });
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
      await this.custom.createNamespacedCustomObject({ ...target, body: newSpeakerConfigurationState(namespace, node, this.owner) });
    }
    // One writer of the whole status: a field left out (errorSummary once valid again) is sent as null.
    const whole = { ...status, errorSummary: status.errorSummary ?? null };
    await this.custom.patchNamespacedCustomObjectStatus({ ...target, name, body: { status: whole } }, mergePatch());
    this.writtenConfig = status;
  }
}

function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** client-node 1.4.0's ApiException carries the HTTP status as `code`. */
function httpStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

function errorText(error: unknown): string {
  const e = error as { code?: number; body?: unknown; message?: string };
  if (typeof e.code === 'number') {
    const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
    return `HTTP ${e.code}: ${body.slice(0, 200)}`;
  }
  return e.message ?? String(error);
}
