/**
 * The controller's writes, as MetalLB makes them: a Service's status and annotation with PUT on
 * /services/NAME/status carrying the whole object and its resourceVersion (RBAC grants services/status update,
 * never services update or patch), core/v1 Events created then counted with strategic-merge PATCHes, an
 * IPAddressPool's counters with PUT on its /status, the ConfigurationState with a create and a merge PATCH of
 * its /status, the memberlist Secret with a create.
 */
import type { ApiObject, ApiService } from './api-objects';
import type { ConfigurationStateStatus } from './configuration-state';
import type { ControllerEvent } from './controller-events';
import { newEventMemory, recordEvent } from './event-correlator';
import { type KubeClient, KubeClientError } from '../sources/k8s/api/kube-client';

const EVENT_SOURCE_COMPONENT = 'metallb-controller';
const HTTP_CONFLICT = 409;

const enc = encodeURIComponent;

function servicePath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${enc(namespace)}/services/${enc(name)}`;
}

function metallbPath(namespace: string, plural: string, name?: string): string {
  return `/apis/metallb.io/v1beta1/namespaces/${enc(namespace)}/${plural}${name === undefined ? '' : `/${enc(name)}`}`;
}

export type StatusWriteOutcome =
  { readonly kind: 'written'; readonly service: ApiService } | { readonly kind: 'conflict'; readonly fresh?: ApiService };

export class ControllerWriter {
  /** Updated in place, synchronously: emits running side by side each see the ones before them. */
  private readonly events = newEventMemory();

  constructor(
    private readonly client: KubeClient,
    private readonly now: () => number,
  ) {}

  /** PUT the Service's /status; a 409 (stale resourceVersion) re-reads it for the next reconcile instead. */
  async writeServiceStatus(service: ApiService): Promise<StatusWriteOutcome> {
    const path = servicePath(service.metadata.namespace ?? '', service.metadata.name ?? '');
    try {
      return { kind: 'written', service: await this.client.put<ApiService>(`${path}/status`, service) };
    } catch (error) {
      if (!(error instanceof KubeClientError) || error.status !== HTTP_CONFLICT) throw error;
      const fresh = await this.client.get<ApiService>(path);
      return { kind: 'conflict', ...(fresh && { fresh }) };
    }
  }

  /**
   * One event: a new Event, or a count increment of the identical one emitted within the window; nothing when
   * the service is over the spam filter's budget.
   */
  async emit(service: ApiService, event: ControllerEvent): Promise<void> {
    const action = recordEvent(this.events, service, event, EVENT_SOURCE_COMPONENT, this.now());
    if (action.kind === 'drop') return;
    const base = `/api/v1/namespaces/${enc(action.namespace)}/events`;
    if (action.kind === 'create') await this.client.post(base, action.body);
    else await this.client.patch(`${base}/${enc(action.name)}`, action.body, 'application/strategic-merge-patch+json');
  }

  async writePoolStatus(namespace: string, pool: ApiObject): Promise<void> {
    await this.client.put(`${metallbPath(namespace, 'ipaddresspools', pool.metadata.name)}/status`, pool);
  }

  /**
   * Creates the ConfigurationState when missing, then sets its whole status (one writer: a merge patch). A field
   * the new status leaves out (errorSummary once the configuration is valid again) is sent as null: a merge patch
   * keeps whatever it does not name (RFC 7396).
   */
  async writeConfigurationState(namespace: string, created: ApiObject, status: ConfigurationStateStatus): Promise<void> {
    const path = metallbPath(namespace, 'configurationstates', created.metadata.name);
    const existing = await this.client.get<ApiObject>(path);
    if (existing === undefined) await this.client.post(metallbPath(namespace, 'configurationstates'), created);
    const whole = { ...status, errorSummary: status.errorSummary ?? null };
    await this.client.patch(`${path}/status`, { status: whole }, 'application/merge-patch+json');
  }

  async get<T>(path: string): Promise<T | undefined> {
    return this.client.get<T>(path);
  }

  async createSecret(namespace: string, secret: ApiObject): Promise<void> {
    await this.client.post(`/api/v1/namespaces/${enc(namespace)}/secrets`, secret);
  }
}
