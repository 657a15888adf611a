/**
 * Where each service can be served, from its EndpointSlices, counted the way MetalLB's speaker counts them
 * (MetalLB v0.14-v0.16 internal/k8s/epslices/endpoint_slices.go): an endpoint serves when conditions.ready is
 * absent, null or true, or when conditions.serving is true (a terminating pod that still passes its readiness
 * probe keeps its node eligible). A slice belongs to the service its kubernetes.io/service-name label names, in
 * its own namespace, and to no other: no managed-by filter, any number of slices per service (one per address
 * family in dual stack, more for large services). Pure.
 */
import type { ServiceEndpoints } from '../../election';
import type { ApiEndpoint, ApiEndpointSlice } from './api-object';

/** The label that ties an EndpointSlice to its Service (discovery.k8s.io/v1, set by the EndpointSlice controller). */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** MetalLB's EndpointCanServe: ready unknown counts as ready; serving rescues a not-ready (terminating) endpoint. */
function endpointCanServe(endpoint: ApiEndpoint): boolean {
  const conditions = endpoint.conditions ?? {};
  if (conditions.ready === undefined || conditions.ready === null || conditions.ready) return true;
  return conditions.serving === true;
}

/** The service ("namespace/name") a slice belongs to, or undefined for a slice without the label. */
function sliceServiceKey(slice: ApiEndpointSlice): string | undefined {
  const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  const namespace = slice.metadata?.namespace;
  if (!service || !namespace) return undefined;
  return `${namespace}/${service}`;
}

interface Serving {
  readonly nodes: Set<string>;
  withoutNode: boolean;
}

/**
 * The endpoints of every service in `serviceKeys` ("namespace/name"), from all `slices`. A service without a
 * slice, or whose slices hold no serving endpoint, gets an empty entry: nothing serves it (MetalLB: notOwner),
 * which is not the same as having no entry (the daemon's plain-host rule, every live node serves).
 */
export function endpointsByService(
  slices: readonly ApiEndpointSlice[],
  serviceKeys: readonly string[],
): ReadonlyMap<string, ServiceEndpoints> {
  const wanted = new Set(serviceKeys);
  const serving = new Map<string, Serving>();
  for (const slice of slices) {
    const key = sliceServiceKey(slice);
    if (key === undefined || !wanted.has(key)) continue;
    let entry = serving.get(key);
    if (!entry) serving.set(key, (entry = { nodes: new Set(), withoutNode: false }));
    for (const endpoint of slice.endpoints ?? []) {
      if (!endpointCanServe(endpoint)) continue;
      if (endpoint.nodeName) entry.nodes.add(endpoint.nodeName);
      else entry.withoutNode = true;
    }
  }
  const out = new Map<string, ServiceEndpoints>();
  for (const key of [...wanted].sort()) {
    const entry = serving.get(key);
    const nodes = new Set([...(entry?.nodes ?? [])].sort());
    out.set(key, entry?.withoutNode ? { servingNodes: nodes, servingWithoutNode: true } : { servingNodes: nodes });
  }
  return out;
}
