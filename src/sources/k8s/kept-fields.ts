/**
 * What the speaker's informers keep of each object they receive: only the fields mlb reads. client-node's
 * informer cache holds every object whole, and in a large cluster most of that is never read: managedFields
 * (often half of an object), kubectl's last-applied-configuration annotation (a second copy of the object),
 * the API server's bookkeeping (uid, creationTimestamp), a Service's clusterIPs, node ports and the other spec
 * fields the parser ignores, a Node's status.images (up to 50 image names per node), an EndpointSlice's
 * addresses, targetRefs, zones and ports. Trimmed on receipt (list and watch alike), so the cache never holds
 * the rest. What each kind keeps is what the translation reads (translate-cluster.ts, service-endpoints.ts);
 * fields the parser does not know are kept, so they are still reported; metadata.resourceVersion is always
 * kept (the informer compares it to tell an update from a replay).
 *
 * How it is kept matters as much as what, with 10,000 Services and 20,000 EndpointSlices in the caches:
 * - every kept object is built by adding its fields in the order received to a fresh object, never by object
 *   spread followed by more fields: V8 (Node 20) gives each object made by `{ ...a, b }` a hidden class of its
 *   own, about 150 bytes per object, where objects built field by field in the same order share one;
 * - strings that recur in every object (a kind's apiVersion, "LoadBalancer", "SingleStack") are one copy:
 *   JSON.parse shares only values of up to 10 characters;
 * - an endpoint's conditions, one of a handful of (ready, serving) pairs, are shared frozen objects.
 * Pure (the shared values are constants).
 */
import { BOOKKEEPING_FIELDS } from '../../model/parse/metadata';
import { IGNORED_INGRESS_FIELDS, IGNORED_PORT_FIELDS, IGNORED_SPEC_FIELDS, IGNORED_STATUS_FIELDS } from '../../model/parse/service';
import type { ApiObject } from './api-object';
import { WATCHED_KINDS, type WatchedKindName } from './watched-kinds';

/** kubectl apply's copy of the applied object: never read by mlb, as large as the object's spec. */
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The label tying an EndpointSlice to its Service: the only label of a slice mlb reads. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The bookkeeping the informer needs: it compares resourceVersions to tell an update from a replay. */
const RESOURCE_VERSION = 'resourceVersion';

type Json = Record<string, unknown>;

/** The metadata fields left out: what the parser ignores (the API server's bookkeeping), but the resourceVersion. */
const DROPPED_METADATA: ReadonlySet<string> = new Set(BOOKKEEPING_FIELDS.filter((f) => f !== RESOURCE_VERSION));
const DROPPED_SERVICE_SPEC: ReadonlySet<string> = new Set(IGNORED_SPEC_FIELDS);
const DROPPED_PORT: ReadonlySet<string> = new Set(IGNORED_PORT_FIELDS);
const DROPPED_INGRESS: ReadonlySet<string> = new Set(IGNORED_INGRESS_FIELDS);
const DROPPED_SERVICE_STATUS: ReadonlySet<string> = new Set(IGNORED_STATUS_FIELDS);
const DROPPED_ANNOTATIONS: ReadonlySet<string> = new Set([LAST_APPLIED_ANNOTATION]);
const NOTHING: ReadonlySet<string> = new Set();

/**
 * Values every object of a kind repeats, longer than the 10 characters JSON.parse shares: the watched kinds'
 * apiVersions and kinds, and the Service spec enumerations.
 */
const SHARED_STRINGS: ReadonlyMap<string, string> = new Map(
  [
    ...WATCHED_KINDS.flatMap((k) => [k.apiVersion, k.kind]),
    ...['LoadBalancer', 'ClusterIP', 'NodePort', 'ExternalName', 'SingleStack', 'PreferDualStack', 'RequireDualStack'],
  ].map((s) => [s, s]),
);

function shared(value: unknown): unknown {
  return typeof value === 'string' ? (SHARED_STRINGS.get(value) ?? value) : value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `source` without the fields in `dropped`, its fields added in order (see the file comment), each through `map`. */
function without(source: Json, dropped: ReadonlySet<string>, map: (key: string, value: unknown) => unknown = (_k, v) => v): Json {
  const out: Json = {};
  for (const key of Object.keys(source)) if (!dropped.has(key)) out[key] = map(key, source[key]);
  return out;
}

/** Annotations without kubectl's applied copy; the object itself when it has none. */
function keptAnnotations(annotations: unknown): unknown {
  if (!isObject(annotations) || !(LAST_APPLIED_ANNOTATION in annotations)) return annotations;
  return without(annotations, DROPPED_ANNOTATIONS);
}

/** Metadata without the API server's bookkeeping (managedFields, uid, ...) and kubectl's applied copy. */
function keptMetadata(metadata: unknown): unknown {
  if (!isObject(metadata)) return metadata;
  return without(metadata, DROPPED_METADATA, (key, value) => (key === 'annotations' ? keptAnnotations(value) : value));
}

/** apiVersion and kind shared, metadata trimmed, the rest through `rest`. */
function keptObject(object: Json, rest: (key: string, value: unknown) => unknown = (_k, v) => v): Json {
  return without(object, NOTHING, (key, value) => {
    if (key === 'apiVersion' || key === 'kind') return shared(value);
    if (key === 'metadata') return keptMetadata(value);
    return rest(key, value);
  });
}

/** A Service: what the parser reads (model/parse/service.ts), every field it would report included. */
function keptService(service: Json): Json {
  return keptObject(service, (key, value) => {
    if (key === 'spec' && isObject(value)) return without(value, DROPPED_SERVICE_SPEC, serviceSpecField);
    if (key === 'status' && isObject(value)) return without(value, DROPPED_SERVICE_STATUS, serviceStatusField);
    return value;
  });
}

function serviceSpecField(key: string, value: unknown): unknown {
  if (key === 'ports' && Array.isArray(value)) return value.map((p: unknown) => (isObject(p) ? without(p, DROPPED_PORT) : p));
  return Array.isArray(value) ? value.map(shared) : shared(value);
}

function serviceStatusField(key: string, value: unknown): unknown {
  if (key !== 'loadBalancer' || !isObject(value)) return value;
  return without(value, NOTHING, (k, v) =>
    k === 'ingress' && Array.isArray(v) ? v.map((i: unknown) => (isObject(i) ? without(i, DROPPED_INGRESS) : i)) : v,
  );
}

/** Identity and bookkeeping every kept object needs (the informer keys by namespace and name). */
function identity(metadata: Json, extra: (out: Json) => void): Json {
  const out: Json = {};
  for (const key of ['name', 'namespace', RESOURCE_VERSION]) if (metadata[key] !== undefined) out[key] = metadata[key];
  extra(out);
  return out;
}

/** A Node: name, labels, annotations, and of its status each condition's type and status and the addresses. */
function keptNode(node: Json): Json {
  const metadata = isObject(node['metadata']) ? node['metadata'] : {};
  const status = (node['status'] ?? {}) as { conditions?: { type?: unknown; status?: unknown }[]; addresses?: unknown };
  const keptStatus: Json = {};
  if (status.conditions) keptStatus['conditions'] = status.conditions.map((c) => ({ type: c.type, status: c.status }));
  if (status.addresses !== undefined) keptStatus['addresses'] = status.addresses;
  return {
    apiVersion: shared(node['apiVersion']),
    kind: shared(node['kind']),
    metadata: identity(metadata, (out) => {
      if (metadata['labels']) out['labels'] = metadata['labels'];
      if (metadata['annotations']) out['annotations'] = keptAnnotations(metadata['annotations']);
    }),
    status: keptStatus,
  };
}

type Flag = boolean | null | undefined;

/** The (ready, serving) pairs an endpoint's kept conditions can be: one frozen object each, shared by all endpoints. */
const SHARED_CONDITIONS: ReadonlyMap<string, Readonly<{ ready: Flag; serving: Flag }>> = new Map(
  [true, false, null, undefined].flatMap((ready) =>
    [true, false, null, undefined].map((serving) => [`${ready}/${serving}`, Object.freeze({ ready, serving })] as const),
  ),
);

function keptConditions(conditions: { ready?: unknown; serving?: unknown }): unknown {
  return SHARED_CONDITIONS.get(`${conditions.ready}/${conditions.serving}`) ?? { ready: conditions.ready, serving: conditions.serving };
}

/** An EndpointSlice: its Service label, and per endpoint the node and the two conditions MetalLB counts. */
function keptEndpointSlice(slice: Json): Json {
  const metadata = isObject(slice['metadata']) ? slice['metadata'] : {};
  const labels = metadata['labels'] as Record<string, string> | undefined;
  const service = labels?.[SERVICE_NAME_LABEL];
  const endpoints = slice['endpoints'] as
    { nodeName?: unknown; conditions?: { ready?: unknown; serving?: unknown } | null }[] | null | undefined;
  const out: Json = {
    apiVersion: shared(slice['apiVersion']),
    kind: shared(slice['kind']),
    metadata: identity(metadata, (m) => {
      if (service !== undefined) m['labels'] = { [SERVICE_NAME_LABEL]: service };
    }),
  };
  if (endpoints) {
    out['endpoints'] = endpoints.map((e) => {
      const endpoint: Json = {};
      if (e.nodeName !== undefined) endpoint['nodeName'] = e.nodeName;
      if (e.conditions !== null && e.conditions !== undefined) endpoint['conditions'] = keptConditions(e.conditions);
      return endpoint;
    });
  }
  return out;
}

/** The part of `object` (of the watched kind `kind`) the speaker keeps. */
export function keptFields(kind: WatchedKindName, object: ApiObject): ApiObject {
  const json = object as Json;
  if (kind === 'nodes') return keptNode(json) as ApiObject;
  if (kind === 'endpointslices') return keptEndpointSlice(json) as ApiObject;
  if (kind === 'services') return keptService(json) as ApiObject;
  return keptObject(json) as ApiObject;
}
