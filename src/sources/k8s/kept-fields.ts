/**
 * What the speaker's informers keep of each object they receive: only the fields mlb reads. client-node's
 * informer cache holds every object whole, and in a large cluster most of that is never read: managedFields
 * (often half of an object), kubectl's last-applied-configuration annotation (a second copy of the object),
 * a Node's status.images (up to 50 image names per node), an EndpointSlice's addresses, targetRefs, zones and
 * ports. Trimmed on receipt (list and watch alike), so the cache never holds the rest. What each kind keeps is
 * what the translation reads (translate-cluster.ts, service-endpoints.ts); metadata.resourceVersion is always kept
 * (the informer compares it to tell an update from a replay). Pure.
 */
import type { ApiObject } from './api-object';
import type { WatchedKindName } from './watched-kinds';

/** kubectl apply's copy of the applied object: never read by mlb, as large as the object's spec. */
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The label tying an EndpointSlice to its Service: the only label of a slice mlb reads. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

type Json = Record<string, unknown>;

/** Metadata without the API server's field-ownership records and kubectl's applied copy. */
function keptMetadata(metadata: Json | undefined): Json | undefined {
  if (metadata === undefined) return undefined;
  const { managedFields: _managed, ...rest } = metadata;
  const annotations = metadata['annotations'] as Record<string, string> | undefined;
  if (annotations === undefined || !(LAST_APPLIED_ANNOTATION in annotations)) return rest;
  const { [LAST_APPLIED_ANNOTATION]: _applied, ...kept } = annotations;
  return { ...rest, annotations: kept };
}

/** Identity and bookkeeping every kept object needs (the informer keys by namespace and name). */
function identity(metadata: Json | undefined): Json {
  const m = metadata ?? {};
  const pick = ['name', 'namespace', 'uid', 'resourceVersion'].filter((k) => m[k] !== undefined);
  return Object.fromEntries(pick.map((k) => [k, m[k]]));
}

/** A Node: name, labels, annotations, and of its status each condition's type and status and the addresses. */
function keptNode(node: Json): Json {
  const metadata = keptMetadata(node['metadata'] as Json | undefined) ?? {};
  const status = (node['status'] ?? {}) as { conditions?: { type?: unknown; status?: unknown }[]; addresses?: unknown };
  return {
    apiVersion: node['apiVersion'],
    kind: node['kind'],
    metadata: {
      ...identity(metadata),
      ...(metadata['labels'] ? { labels: metadata['labels'] } : {}),
      ...(metadata['annotations'] ? { annotations: metadata['annotations'] } : {}),
    },
    status: {
      ...(status.conditions && { conditions: status.conditions.map((c) => ({ type: c.type, status: c.status })) }),
      ...(status.addresses !== undefined && { addresses: status.addresses }),
    },
  };
}

/** An EndpointSlice: its Service label, and per endpoint the node and the two conditions MetalLB counts. */
function keptEndpointSlice(slice: Json): Json {
  const metadata = (slice['metadata'] ?? {}) as Json;
  const labels = metadata['labels'] as Record<string, string> | undefined;
  const service = labels?.[SERVICE_NAME_LABEL];
  const endpoints = slice['endpoints'] as
    { nodeName?: unknown; conditions?: { ready?: unknown; serving?: unknown } | null }[] | null | undefined;
  return {
    apiVersion: slice['apiVersion'],
    kind: slice['kind'],
    metadata: { ...identity(metadata), ...(service !== undefined && { labels: { [SERVICE_NAME_LABEL]: service } }) },
    ...(endpoints && {
      endpoints: endpoints.map((e) => ({
        ...(e.nodeName !== undefined && { nodeName: e.nodeName }),
        ...(e.conditions !== null &&
          e.conditions !== undefined && { conditions: { ready: e.conditions.ready, serving: e.conditions.serving } }),
      })),
    }),
  };
}

/** The part of `object` (of the watched kind `kind`) the speaker keeps. */
export function keptFields(kind: WatchedKindName, object: ApiObject): ApiObject {
  const json = object as Json;
  if (kind === 'nodes') return keptNode(json) as ApiObject;
  if (kind === 'endpointslices') return keptEndpointSlice(json) as ApiObject;
  const metadata = keptMetadata(json['metadata'] as Json | undefined);
  return (metadata === undefined ? object : { ...object, metadata }) as ApiObject;
}
