/**
 * The registry strategies' rules for writes (k8s.io/apiserver generic registry, pkg/registry/* strategies,
 * apiextensions-apiserver customresource strategy; Kubernetes 1.32):
 * - create: name from generateName, namespace from the path, no resourceVersion, status cleared for kinds with a
 *   status subresource (Nodes keep theirs: the kubelet registers with a status), generation 1 where tracked;
 * - update of the main resource: status stays the stored one;
 * - update of /status: built-ins keep the new metadata (so a Service's annotations travel with a status write) and
 *   the stored spec; custom resources keep the whole stored object except status;
 * - a stale resourceVersion is 409 Conflict; custom resources refuse an update without one (422);
 * - generation increments when anything outside metadata and status changes.
 */
import { badRequest, conflict, invalid } from './api-error';
import { clone, isPlainObject, jsonEqual, type KubeObject } from './kube-object';
import { apiVersionOf, type ResourceType } from './resource-catalog';

/** Random suffix length of generateName (k8s.io/apiserver names.SimpleNameGenerator). */
const GENERATED_SUFFIX_LENGTH = 5;
/** The generator's alphabet: lowercase consonants and digits without look-alikes (k8s.io/apimachinery utilrand). */
const GENERATED_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function generatedName(prefix: string, random: () => number): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) suffix += GENERATED_ALPHABET[Math.floor(random() * GENERATED_ALPHABET.length)];
  return prefix + suffix;
}

/** Kinds whose create keeps the status the writer sent (the kubelet registers its Node with a status). */
const CREATE_KEEPS_STATUS = new Set(['Node']);
/** The status a create starts from where the strategy sets one (pod: Pending; namespace: Active). */
const CREATE_STATUS: Record<string, Record<string, string>> = { Pod: { phase: 'Pending' }, Namespace: { phase: 'Active' } };

/** Fields the server owns: a writer's values for them are ignored. */
function dropServerFields(object: KubeObject): void {
  for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']) {
    delete object.metadata[field];
  }
}

export function tracksGeneration(type: ResourceType): boolean {
  return type.custom || type.tracksGeneration;
}

function checkIdentity(type: ResourceType, object: KubeObject, namespace: string | undefined, name: string | undefined): void {
  if (!type.namespaced) delete object.metadata.namespace;
  else if (object.metadata.namespace === undefined || object.metadata.namespace === '') object.metadata.namespace = namespace;
  else if (namespace !== undefined && object.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (name !== undefined && object.metadata.name !== undefined && object.metadata.name !== name) {
    throw badRequest('the name of the object does not match the name on the URL');
  }
  if (object.kind !== undefined && object.kind !== type.kind) {
    throw badRequest(`the kind of the provided object (${object.kind}) does not match the resource (${type.kind})`);
  }
}

/** A new object, before defaulting and storage. `namespace` is the request path's. */
export function prepareCreate(type: ResourceType, input: KubeObject, namespace: string | undefined, random: () => number): KubeObject {
  const object = clone(input);
  checkIdentity(type, object, namespace, undefined);
  if (object.metadata.resourceVersion !== undefined && object.metadata.resourceVersion !== '') {
    throw badRequest('resourceVersion should not be set on objects to be created');
  }
  delete object.metadata.resourceVersion;
  if (!object.metadata.name) {
    if (!object.metadata.generateName) {
      throw invalid(type.kind, type.group, '', ['metadata.name: Required value: name or generateName is required']);
    }
    object.metadata.name = generatedName(object.metadata.generateName, random);
  }
  if (type.namespaced && !object.metadata.namespace) object.metadata.namespace = 'default';
  dropServerFields(object);
  object.apiVersion = apiVersionOf(type);
  object.kind = type.kind;
  if (type.statusSubresource && !CREATE_KEEPS_STATUS.has(type.kind)) delete object['status'];
  const initialStatus = type.custom ? undefined : CREATE_STATUS[type.kind];
  if (initialStatus) object['status'] = { ...initialStatus };
  if (tracksGeneration(type)) object.metadata.generation = 1;
  else delete object.metadata.generation;
  return object;
}

/** Everything but metadata and status: what generation follows. */
function specPart(object: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = object;
  return rest;
}

/**
 * The object to store for an update of `old` with `input` (already patched, for PATCH). `subresource` is
 * 'status' for writes to /status.
 */
export function prepareUpdate(type: ResourceType, old: KubeObject, input: KubeObject, subresource: string | undefined): KubeObject {
  const name = old.metadata.name ?? '';
  const incoming = clone(input);
  checkIdentity(type, incoming, old.metadata.namespace, name);
  incoming.metadata.name = name;
  const sentVersion = incoming.metadata.resourceVersion;
  if (sentVersion === undefined || sentVersion === '') {
    if (type.custom)
      throw invalid(type.kind, type.group, name, ['metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
  } else if (sentVersion !== old.metadata.resourceVersion) throw conflict(type.group, type.plural, name);
  let result: KubeObject;
  if (subresource === 'status') {
    if (type.custom) {
      result = clone(old);
      if (incoming['status'] === undefined) delete result['status'];
      else result['status'] = incoming['status'];
    } else {
      result = { ...clone(old), metadata: incoming.metadata, status: incoming['status'] };
      if (incoming['status'] === undefined) delete result['status'];
    }
  } else {
    result = incoming;
    if (type.statusSubresource) {
      if (old['status'] === undefined) delete result['status'];
      else result['status'] = clone(old['status']);
    }
  }
  dropServerFields(result);
  result.metadata.resourceVersion = old.metadata.resourceVersion;
  result.apiVersion = apiVersionOf(type);
  result.kind = type.kind;
  if (tracksGeneration(type)) {
    const generation = typeof old.metadata.generation === 'number' ? old.metadata.generation : 1;
    result.metadata.generation = jsonEqual(specPart(result), specPart(old)) ? generation : generation + 1;
  } else delete result.metadata.generation;
  return result;
}

/** The object as a client of `version` sees it (versions share one stored shape; only apiVersion differs here). */
export function asVersion(type: ResourceType, object: KubeObject, version: string): KubeObject {
  return { ...object, apiVersion: apiVersionOf(type, version), kind: type.kind };
}

export function statusOf(object: KubeObject): Record<string, unknown> | undefined {
  return isPlainObject(object['status']) ? object['status'] : undefined;
}
