/**
 * ServiceL2Status and ServiceBGPStatus as MetalLB's speaker keeps them (MetalLB v0.15/v0.16
 * api/v1beta1/servicel2status_types.go, servicebgpstatus_types.go, internal/k8s/controllers/
 * layer2_status_controller.go, bgp_status_controller.go): from what this node announces now and the status
 * objects the API holds, the creates, status patches and deletes that make the API say so. Pure.
 *
 * - ServiceL2Status: one per service, written by the single layer-2 winner. The winner keeps one object labelled
 *   with its node (its duplicates and every other node's go: a failover moves the object); a node that does not
 *   announce a service deletes its own object for it.
 * - ServiceBGPStatus: one per (service, announcing node); each node keeps its own and deletes its own when it
 *   stops announcing. `peers` are the BGPPeer names the service is advertised to from this node, sorted.
 * Both live in the MetalLB namespace and are owned (not controlled) by the speaker's Pod, so they go with it.
 */

export const STATUS_GROUP_VERSION = 'metallb.io/v1beta1';
const NODE_LABEL = 'metallb.io/node';
const SERVICE_NAME_LABEL = 'metallb.io/service-name';
const SERVICE_NAMESPACE_LABEL = 'metallb.io/service-namespace';

export type StatusKind = 'ServiceL2Status' | 'ServiceBGPStatus';

export const STATUS_KINDS: Readonly<Record<StatusKind, { readonly plural: string; readonly generateName: string }>> = {
  ServiceL2Status: { plural: 'servicel2statuses', generateName: 'l2-' },
  ServiceBGPStatus: { plural: 'servicebgpstatuses', generateName: 'bgp-' },
};

/** What the API holds: name, labels and status of one status object. */
export interface StoredStatus {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly status: unknown;
}

/** The status object's status field, in MetalLB's shape (omitempty: no interfaces/peers key when empty). */
export interface StatusBody {
  readonly node: string;
  readonly serviceName: string;
  readonly serviceNamespace: string;
  readonly interfaces?: readonly { readonly name: string }[];
  readonly peers?: readonly string[];
}

/** One service this node announces, and what its status object says beside the identity. */
export interface AnnouncedService {
  /** "namespace/name". */
  readonly service: string;
  /** Layer 2: the L2Advertisement's interfaces when it restricts them (empty: all). BGP: the peer names. */
  readonly detail: readonly string[];
}

export interface OwnerPod {
  readonly name: string;
  readonly uid: string;
}

export type StatusAction =
  | { readonly op: 'create'; readonly kind: StatusKind; readonly body: Record<string, unknown>; readonly status: StatusBody }
  | { readonly op: 'patchStatus'; readonly kind: StatusKind; readonly name: string; readonly status: StatusBody }
  | { readonly op: 'delete'; readonly kind: StatusKind; readonly name: string; readonly why: string };

export interface StatusPlanInputs {
  readonly kind: StatusKind;
  readonly node: string;
  readonly namespace: string;
  readonly owner: OwnerPod | undefined;
  /** The services this node announces with the kind's protocol. */
  readonly announced: readonly AnnouncedService[];
  /** Every object of the kind in the namespace. */
  readonly stored: readonly StoredStatus[];
}

/** "namespace/name" of the service an object is about, from its labels. */
function serviceOf(object: StoredStatus): string {
  return `${object.labels[SERVICE_NAMESPACE_LABEL] ?? ''}/${object.labels[SERVICE_NAME_LABEL] ?? ''}`;
}

function splitKey(service: string): { namespace: string; name: string } {
  const slash = service.indexOf('/');
  return { namespace: service.slice(0, slash), name: service.slice(slash + 1) };
}

function statusBody(kind: StatusKind, node: string, announced: AnnouncedService): StatusBody {
  const { namespace, name } = splitKey(announced.service);
  const base = { node, serviceName: name, serviceNamespace: namespace };
  if (announced.detail.length === 0) return base;
  return kind === 'ServiceL2Status'
    ? { ...base, interfaces: [...announced.detail].sort().map((i) => ({ name: i })) }
    : { ...base, peers: [...new Set(announced.detail)].sort() };
}

/** Whether the stored status says what is wanted (a freshly created object has none yet: the API dropped it). */
function sameStatus(stored: unknown, wanted: StatusBody): boolean {
  const s = (stored ?? {}) as Partial<StatusBody>;
  const norm = (b: Partial<StatusBody>) =>
    JSON.stringify([
      b.node ?? '',
      b.serviceName ?? '',
      b.serviceNamespace ?? '',
      (b.interfaces ?? []).map((i) => i.name).sort(),
      [...(b.peers ?? [])].sort(),
    ]);
  return norm(s) === norm(wanted);
}

function newObject(inputs: StatusPlanInputs, announced: AnnouncedService): Record<string, unknown> {
  const { namespace, name } = splitKey(announced.service);
  const owner = inputs.owner;
  return {
    apiVersion: STATUS_GROUP_VERSION,
    kind: inputs.kind,
    metadata: {
      generateName: STATUS_KINDS[inputs.kind].generateName,
      namespace: inputs.namespace,
      labels: { [NODE_LABEL]: inputs.node, [SERVICE_NAME_LABEL]: name, [SERVICE_NAMESPACE_LABEL]: namespace },
      // Owned, not controlled: the garbage collector removes it with the speaker's Pod.
      ...(owner && { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid }] }),
    },
    spec: {},
  };
}

/** The actions that make the API's objects of one kind say what this node announces. */
export function planServiceStatus(inputs: StatusPlanInputs): StatusAction[] {
  const { kind, node } = inputs;
  const layer2 = kind === 'ServiceL2Status';
  const wanted = new Map(inputs.announced.map((a) => [a.service, a]));
  const byService = new Map<string, StoredStatus[]>();
  for (const object of inputs.stored) byService.set(serviceOf(object), [...(byService.get(serviceOf(object)) ?? []), object]);
  const actions: StatusAction[] = [];
  for (const [service, announced] of [...wanted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const stored = [...(byService.get(service) ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
    const own = stored.filter((o) => o.labels[NODE_LABEL] === node);
    const keep = own[0];
    const status = statusBody(kind, node, announced);
    if (keep === undefined) actions.push({ op: 'create', kind, body: newObject(inputs, announced), status });
    else if (!sameStatus(keep.status, status)) actions.push({ op: 'patchStatus', kind, name: keep.name, status });
    for (const object of stored) {
      if (object === keep) continue;
      if (object.labels[NODE_LABEL] === node) actions.push({ op: 'delete', kind, name: object.name, why: 'duplicate' });
      // Layer 2 has one announcer: the winner removes what other nodes wrote. BGP objects are each node's own.
      else if (layer2) actions.push({ op: 'delete', kind, name: object.name, why: `announced by ${node} now` });
    }
  }
  for (const object of inputs.stored) {
    if (object.labels[NODE_LABEL] === node && !wanted.has(serviceOf(object))) {
      actions.push({ op: 'delete', kind, name: object.name, why: 'not announced by this node' });
    }
  }
  return actions;
}
