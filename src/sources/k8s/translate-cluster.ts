/**
 * The Kubernetes API's objects to what the speaker runs on: the same validated Snapshot the file source builds
 * (model/parse parseApiObjects: every rule and message of the file mode) and, per LoadBalancer service, where it
 * can be served (service-endpoints.ts). Pure: the watches (resource-watch.ts) hold the objects, this only reads
 * them.
 *
 * What differs from a file, and why:
 * - Only type LoadBalancer Services are read: MetalLB's speaker handles no other (reason notLoadBalancer), and a
 *   cluster's thousands of ClusterIP services must neither cost a parse nor, by one odd annotation, hold up the
 *   configuration of the load balancers.
 * - Nodes are read for their name, labels, annotations, conditions and addresses only: the election needs the
 *   labels (node selectors, node.kubernetes.io/exclude-from-external-load-balancers) and the NetworkUnavailable
 *   condition; the rest of a Node (images, capacity, kubelet info) is large and changes every few seconds.
 * - The assignment is each Service's status.loadBalancer.ingress, which the controller writes.
 * - Objects are read in namespace/name order (a file's order is its author's; the API has none), so two
 *   speakers reading the same objects report the same order-dependent findings (pool overlaps).
 */
import type { ServiceEndpoints } from '../../election';
import { type ParseOptions, type ParseResult, parseApiObjects, serviceKey } from '../../model';
import { type ApiEndpointSlice, type ApiObject, objectKey } from './api-object';
import { endpointsByService } from './service-endpoints';
import { WATCHED_KINDS, type WatchedKindName } from './watched-kinds';

/** Every watched kind's objects, as the API returned them. */
export type ClusterObjects = Readonly<Record<WatchedKindName, readonly ApiObject[]>>;

export interface ClusterTranslation {
  readonly result: ParseResult;
  /** "namespace/name" -> where the service can be served; one entry per Service of the Snapshot. */
  readonly endpoints: ReadonlyMap<string, ServiceEndpoints>;
}

export function emptyClusterObjects(): ClusterObjects {
  return Object.fromEntries(WATCHED_KINDS.map((k) => [k.name, []])) as unknown as ClusterObjects;
}

export function translateCluster(objects: ClusterObjects, origin: string, options: ParseOptions = {}): ClusterTranslation {
  const documents: ApiObject[] = [];
  for (const kind of WATCHED_KINDS) {
    if (kind.name === 'endpointslices') continue;
    for (const object of sortedByKey(objects[kind.name])) {
      const typed = { ...object, apiVersion: object.apiVersion ?? kind.apiVersion, kind: kind.kind };
      if (kind.name === 'services' && !isLoadBalancer(typed)) continue;
      documents.push(kind.name === 'nodes' ? nodeFields(typed) : typed);
    }
  }
  const result = parseApiObjects(documents, origin, options);
  const keys = result.ok ? result.snapshot.services.map(serviceKey) : [];
  return { result, endpoints: endpointsByService(objects.endpointslices as readonly ApiEndpointSlice[], keys) };
}

function sortedByKey(objects: readonly ApiObject[]): ApiObject[] {
  return [...objects].sort((a, b) => {
    const ka = objectKey(a);
    const kb = objectKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

function isLoadBalancer(service: ApiObject): boolean {
  const spec = service.spec as { type?: unknown } | undefined;
  return spec?.type === 'LoadBalancer';
}

interface ApiNodeStatus {
  readonly conditions?: readonly { readonly type?: unknown; readonly status?: unknown }[];
  readonly addresses?: unknown;
}

/** The fields of a Node the model reads (see the file comment); each condition's type and status only. */
function nodeFields(node: ApiObject): ApiObject {
  const { name, labels, annotations } = node.metadata ?? {};
  const status = (node.status ?? {}) as ApiNodeStatus;
  const conditions = status.conditions?.map((c) => ({ type: c.type, status: c.status }));
  return {
    apiVersion: node.apiVersion,
    kind: node.kind,
    metadata: { name, ...(labels && { labels }), ...(annotations && { annotations }) },
    status: { ...(conditions && { conditions }), ...(status.addresses !== undefined && { addresses: status.addresses }) },
  };
}
