/**
 * The resource types the fake serves: the built-ins mlb reads or writes in Kubernetes mode and every metallb.io kind
 * (MetalLB v0.16 config/crd/bases: all namespaced, all with a status subresource; bgppeers served as v1beta1 and
 * v1beta2, stored as v1beta2). Names, short names and verbs are the ones the real discovery documents publish, so
 * kubectl resolves `svc`, `ep`, `ipaddresspool` etc. the same way.
 */

export interface ResourceType {
  /** '' for the legacy core group. */
  group: string;
  /** Served versions; the first is the preferred (and storage) version. */
  versions: string[];
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** Whether `/status` exists; its writes change only status (and for built-ins, metadata). */
  statusSubresource: boolean;
  /** A CustomResourceDefinition kind: CRD write semantics (generation, no unconditional PUT, no strategic merge). */
  custom: boolean;
  /** Field selector labels besides metadata.name and metadata.namespace (pkg/registry/<kind>/strategy.go). */
  fieldLabels: string[];
  /** Built-ins whose metadata.generation follows spec changes (workload controllers). */
  tracksGeneration: boolean;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const RESOURCE_VERBS = ALL_VERBS;

function builtin(
  group: string,
  version: string,
  plural: string,
  kind: string,
  options: { namespaced?: boolean; shortNames?: string[]; status?: boolean; fieldLabels?: string[]; generation?: boolean } = {},
): ResourceType {
  return {
    group,
    versions: [version],
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced: options.namespaced ?? true,
    shortNames: options.shortNames ?? [],
    statusSubresource: options.status ?? false,
    custom: false,
    fieldLabels: options.fieldLabels ?? [],
    tracksGeneration: options.generation ?? false,
  };
}

function metallb(plural: string, kind: string, versions: string[] = ['v1beta1']): ResourceType {
  return {
    group: 'metallb.io',
    versions,
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced: true,
    shortNames: [],
    statusSubresource: true,
    custom: true,
    fieldLabels: [],
    tracksGeneration: true,
  };
}

const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

export const DEFAULT_RESOURCE_TYPES: readonly ResourceType[] = [
  builtin('', 'v1', 'services', 'Service', { shortNames: ['svc'], status: true, fieldLabels: ['spec.clusterIP', 'spec.type'] }),
  builtin('', 'v1', 'endpoints', 'Endpoints', { shortNames: ['ep'] }),
  builtin('', 'v1', 'nodes', 'Node', { namespaced: false, shortNames: ['no'], status: true, fieldLabels: ['spec.unschedulable'] }),
  builtin('', 'v1', 'namespaces', 'Namespace', { namespaced: false, shortNames: ['ns'], status: true, fieldLabels: ['status.phase'] }),
  builtin('', 'v1', 'pods', 'Pod', {
    shortNames: ['po'],
    status: true,
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  }),
  builtin('', 'v1', 'secrets', 'Secret', { fieldLabels: ['type'] }),
  builtin('', 'v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
  builtin('', 'v1', 'serviceaccounts', 'ServiceAccount', { shortNames: ['sa'] }),
  builtin('', 'v1', 'events', 'Event', { shortNames: ['ev'], fieldLabels: EVENT_FIELDS }),
  builtin('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', { fieldLabels: ['addressType'] }),
  builtin('apps', 'v1', 'deployments', 'Deployment', { shortNames: ['deploy'], status: true, generation: true }),
  builtin('apps', 'v1', 'daemonsets', 'DaemonSet', { shortNames: ['ds'], status: true, generation: true }),
  builtin('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  metallb('bfdprofiles', 'BFDProfile'),
  metallb('bgpadvertisements', 'BGPAdvertisement'),
  metallb('bgppeers', 'BGPPeer', ['v1beta2', 'v1beta1']),
  metallb('communities', 'Community'),
  metallb('configurationstates', 'ConfigurationState'),
  metallb('ipaddresspools', 'IPAddressPool'),
  metallb('l2advertisements', 'L2Advertisement'),
  metallb('servicebgpstatuses', 'ServiceBGPStatus'),
  metallb('servicel2statuses', 'ServiceL2Status'),
];

/** A resource as a discovery document names it: what a test needs to serve a kind it installs (a CRD's, a built-in the fake does not serve by default). */
export interface ServedResource {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The plural resource name in URLs, e.g. ipaddresspools. */
  readonly plural: string;
  readonly namespaced: boolean;
}

/**
 * Resource types for the given resources, one per group and plural with every version listed (the first given is
 * preferred and stored). Kinds of a group with a dot other than the built-in API groups get CustomResourceDefinition
 * semantics, as on a real server.
 */
export function servedTypes(resources: readonly ServedResource[]): ResourceType[] {
  const byKey = new Map<string, ResourceType>();
  for (const r of resources) {
    const key = `${r.group}/${r.plural}`;
    const known = byKey.get(key);
    if (known) {
      if (!known.versions.includes(r.version)) known.versions.push(r.version);
      continue;
    }
    const custom = r.group.includes('.') && !BUILT_IN_GROUP.test(r.group);
    const type = custom ? customResourceType(r) : builtin(r.group, r.version, r.plural, r.kind, { namespaced: r.namespaced });
    byKey.set(key, type);
  }
  return [...byKey.values()];
}

/** API groups Kubernetes itself serves (`*.k8s.io`): everything else with a dot comes from a CRD. */
const BUILT_IN_GROUP = /(^|\.)k8s\.io$/;

function customResourceType(r: ServedResource): ResourceType {
  return { ...metallb(r.plural, r.kind, [r.version]), group: r.group, namespaced: r.namespaced };
}

/** The store's key for a type: group and plural (all versions of a type share one set of objects). */
export function typeKey(type: ResourceType): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}

export class ResourceCatalog {
  private readonly byGroupPlural = new Map<string, ResourceType>();
  private readonly byGroupKind = new Map<string, ResourceType>();

  constructor(readonly types: readonly ResourceType[]) {
    for (const type of types) {
      this.byGroupPlural.set(`${type.group}/${type.plural}`, type);
      this.byGroupKind.set(`${type.group}/${type.kind}`, type);
    }
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    const type = this.byGroupPlural.get(`${group}/${plural}`);
    return type && type.versions.includes(version) ? type : undefined;
  }

  /** The type behind an `apiVersion` + `kind` pair (ownerReferences, involvedObject). */
  findByKind(apiVersion: string, kind: string): ResourceType | undefined {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    return this.byGroupKind.get(`${group}/${kind}`);
  }

  groups(): { group: string; versions: string[] }[] {
    const versions = new Map<string, string[]>();
    for (const type of this.types) {
      if (type.group === '') continue;
      const known = versions.get(type.group) ?? [];
      for (const version of type.versions) if (!known.includes(version)) known.push(version);
      versions.set(type.group, known);
    }
    return [...versions].map(([group, list]) => ({ group, versions: list.sort(byVersionPriority) }));
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.types.filter((type) => type.group === group && type.versions.includes(version));
  }
}

/** Kubernetes version priority (GA > beta > alpha, then higher numbers first): decides a group's preferred version. */
function byVersionPriority(a: string, b: string): number {
  const rank = (version: string): number[] => {
    const match = /^v(\d+)(?:(beta|alpha)(\d+))?$/.exec(version);
    if (!match) return [0, 0, 0];
    const stability = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
    return [stability, Number(match[1]), Number(match[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return (rb[i] ?? 0) - (ra[i] ?? 0);
  return 0;
}

export function apiVersionOf(type: ResourceType, version: string = type.versions[0] ?? 'v1'): string {
  return type.group === '' ? version : `${type.group}/${version}`;
}
