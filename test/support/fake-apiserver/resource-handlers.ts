/**
 * The verbs on resources: get, list, watch, create, update, patch (merge, JSON, strategic, apply), delete and
 * deletecollection, each through the write rules, Service defaulting and field ownership before the store.
 */
import type { ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest, notFound } from './api-error';
import { FieldOwnership } from './apply';
import { asKubeObject, clone, isPlainObject, jsonEqual, type KubeObject } from './kube-object';
import { pageOf, pageRequestOf } from './list-pages';
import { jsonPatch, mergePatch, patchKindOf, strategicMergePatch } from './patch';
import type { ResourceRoute } from './request-route';
import { apiVersionOf, type ResourceType } from './resource-catalog';
import { objectMatches, parseFieldSelector, parseLabelSelector, type ObjectFilter } from './selectors';
import {
  allocationsOf,
  defaultIngressIPMode,
  defaultNewService,
  defaultUpdatedService,
  type ServiceDefaultsOptions,
} from './service-defaults';
import { checkCustomResourceRules } from './crd-rules';
import { tableOf } from './table';
import { dryRunStore, isDryRun, type StoreAccess } from './dry-run';
import type { WatchHub } from './watch-hub';
import { asVersion, prepareCreate, prepareUpdate } from './write-rules';

export interface HandlerContext {
  store: StoreAccess;
  hub: WatchHub;
  ownership: FieldOwnership;
  services: ServiceDefaultsOptions;
  random: () => number;
}

export interface ResourceRequest {
  route: ResourceRoute;
  query: URLSearchParams;
  contentType: string | undefined;
  body: Buffer;
  /** The client asked for meta.k8s.io Tables (kubectl get): reads answer with one. */
  table: boolean;
  /** The fieldManager of a write that names none (the apiserver derives it from the User-Agent). */
  defaultManager: string;
}

export type HandlerResult = { code: number; body: unknown } | { streaming: true };

/** What the filter of a list or watch asks for; also used to authorize a list by name. */
export function filterOf(type: ResourceType, query: URLSearchParams): ObjectFilter {
  return {
    labels: parseLabelSelector(query.get('labelSelector') ?? ''),
    fields: parseFieldSelector(query.get('fieldSelector') ?? '', type.fieldLabels),
  };
}

function parseBody(request: ResourceRequest, yamlAllowed: boolean): unknown {
  const text = request.body.toString('utf8');
  try {
    return yamlAllowed ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding the request body: ${(error as Error).message}`);
  }
}

function objectBody(request: ResourceRequest, yamlAllowed = false): KubeObject {
  const object = asKubeObject(parseBody(request, yamlAllowed));
  if (!object) throw badRequest('the request body is not a Kubernetes object');
  return object;
}

function isService(type: ResourceType): boolean {
  return type.group === '' && type.plural === 'services';
}

function defaultedNew(context: HandlerContext, type: ResourceType, object: KubeObject): KubeObject {
  if (!isService(type)) return object;
  return defaultNewService(object, context.services, allocationsOf(context.store.list(type)));
}

function defaultedUpdate(context: HandlerContext, type: ResourceType, object: KubeObject, old: KubeObject): KubeObject {
  checkCustomResourceRules(type, old, object);
  if (!isService(type)) return object;
  // A write that keeps the spec (every /status write) allocates nothing: listing every Service to learn what is
  // taken would make N status writes cost N^2 (minutes for a controller writing 10,000 statuses).
  const others = jsonEqual(object.spec, old.spec)
    ? []
    : context.store.list(type).filter((service) => service.metadata.uid !== old.metadata.uid);
  const allocations = allocationsOf([...others, old]);
  const result = defaultUpdatedService(object, old, context.services, allocations);
  defaultIngressIPMode(result, context.services);
  return result;
}

function requireName(route: ResourceRoute): string {
  if (route.name === undefined)
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  return route.name;
}

function current(context: HandlerContext, route: ResourceRoute): KubeObject {
  const name = requireName(route);
  const object = context.store.get(route.type, route.namespace, name);
  if (!object) throw notFound(route.type.group, route.type.plural, name);
  return object;
}

function out(route: ResourceRoute, object: KubeObject): KubeObject {
  return asVersion(route.type, object, route.version);
}

function create(context: HandlerContext, request: ResourceRequest, input: KubeObject, manager: string): KubeObject {
  const { route } = request;
  const prepared = defaultedNew(context, route.type, prepareCreate(route.type, input, route.namespace, context.random));
  const stored = context.store.create(route.type, prepared);
  context.ownership.recordUpdate(stored.metadata.uid ?? '', manager, {}, stored);
  return stored;
}

function update(context: HandlerContext, request: ResourceRequest, old: KubeObject, input: KubeObject, manager: string): KubeObject {
  const { route } = request;
  const prepared = defaultedUpdate(context, route.type, prepareUpdate(route.type, old, input, route.subresource), old);
  const stored = context.store.update(route.type, prepared);
  context.ownership.recordUpdate(stored.metadata.uid ?? '', manager, old, stored);
  return stored;
}

function patched(request: ResourceRequest, old: KubeObject, kind: 'merge' | 'json' | 'strategic'): KubeObject {
  const body = parseBody(request, false);
  if (kind === 'strategic' && request.route.type.custom) {
    throw new ApiError(415, 'UnsupportedMediaType', 'strategic merge patch format is not supported');
  }
  if (kind !== 'json' && !isPlainObject(body)) throw badRequest('the patch is not a JSON object');
  const result = kind === 'json' ? jsonPatch(old, body) : kind === 'merge' ? mergePatch(old, body) : strategicMergePatch(old, body);
  const object = asKubeObject(result);
  if (!object) throw new ApiError(422, 'Invalid', 'the patched object is not a Kubernetes object');
  return object;
}

function applyPatch(context: HandlerContext, request: ResourceRequest): { code: number; object: KubeObject } {
  const { route, query } = request;
  const manager = query.get('fieldManager');
  if (!manager)
    throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const force = query.get('force') === 'true';
  const config = objectBody(request, true);
  const name = requireName(route);
  const existing = context.store.get(route.type, route.namespace, name);
  if (!existing) {
    if (route.subresource !== undefined) throw notFound(route.type.group, route.type.plural, name);
    const { result, paths } = context.ownership.apply(undefined, config, manager, force);
    const prepared = defaultedNew(
      context,
      route.type,
      prepareCreate(
        route.type,
        { ...result, metadata: { ...(result['metadata'] as object), name } } as KubeObject,
        route.namespace,
        context.random,
      ),
    );
    const stored = context.store.create(route.type, prepared);
    context.ownership.commitApply(stored.metadata.uid ?? '', manager, paths);
    return { code: 201, object: stored };
  }
  const uid = existing.metadata.uid ?? '';
  const { result, paths } = context.ownership.apply(existing, config, manager, force, uid);
  const merged = asKubeObject(result) ?? existing;
  merged.metadata.resourceVersion = existing.metadata.resourceVersion;
  const prepared = defaultedUpdate(context, route.type, prepareUpdate(route.type, existing, merged, route.subresource), existing);
  const stored = context.store.update(route.type, prepared);
  context.ownership.commitApply(uid, manager, paths);
  return { code: 200, object: stored };
}

function listOf(context: HandlerContext, route: ResourceRoute, query: URLSearchParams, table: boolean): unknown {
  const filter = filterOf(route.type, query);
  const paging = pageRequestOf(query);
  if (table || paging.limit === undefined) {
    const items = context.store.list(route.type, route.namespace).filter((object) => objectMatches(filter, object));
    if (table) return tableOf(route.type, items, String(context.store.currentRevision()));
    return {
      kind: `${route.type.kind}List`,
      apiVersion: apiVersionOf(route.type, route.version),
      metadata: { resourceVersion: String(context.store.currentRevision()) },
      items: items.map((object) => out(route, object)),
    };
  }
  const matching = context.store
    .listUncloned(route.type, route.namespace)
    .filter(({ object }) => objectMatches(filter, object))
    .map(({ key, object }) => ({ key, item: object }));
  const page = pageOf(matching, paging, context.store.currentRevision());
  return {
    kind: `${route.type.kind}List`,
    apiVersion: apiVersionOf(route.type, route.version),
    metadata: {
      resourceVersion: String(page.resourceVersion),
      ...(page.continueToken !== undefined && { continue: page.continueToken, remainingItemCount: page.remainingItemCount }),
    },
    items: page.items.map((object) => out(route, clone(object))),
  };
}

function deleteOptions(request: ResourceRequest): { orphanDependents: boolean } {
  let policy = request.query.get('propagationPolicy');
  if (request.body.length > 0) {
    const body = parseBody(request, false);
    if (isPlainObject(body) && typeof body['propagationPolicy'] === 'string') policy = body['propagationPolicy'];
    if (isPlainObject(body) && body['orphanDependents'] === true) policy = 'Orphan';
  }
  return { orphanDependents: policy === 'Orphan' };
}

export function handleResource(live: HandlerContext, request: ResourceRequest, response: ServerResponse): HandlerResult {
  const { route, query } = request;
  // A dry run works on a store that writes nothing and on ownership that is thrown away afterwards.
  const context = isDryRun(query) ? { ...live, store: dryRunStore(live.store), ownership: new FieldOwnership() } : live;
  const manager = query.get('fieldManager') ?? request.defaultManager;
  switch (route.verb) {
    case 'get': {
      const object = current(context, route);
      return { code: 200, body: request.table ? tableOf(route.type, [object], object.metadata.resourceVersion ?? '') : out(route, object) };
    }
    case 'list':
      return { code: 200, body: listOf(context, route, query, request.table) };
    case 'watch': {
      const filter = filterOf(route.type, query);
      // A watch on one object by its path is the collection's watch restricted to that name.
      if (route.name !== undefined) filter.fields.push({ path: 'metadata.name', equal: true, value: route.name });
      const timeout = query.get('timeoutSeconds');
      context.hub.start(
        {
          type: route.type,
          version: route.version,
          ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
          filter,
          ...(query.get('resourceVersion') !== null ? { resourceVersion: query.get('resourceVersion') ?? '' } : {}),
          allowBookmarks: query.get('allowWatchBookmarks') === 'true',
          ...(timeout !== null ? { timeoutSeconds: Number(timeout) } : {}),
          table: request.table,
        },
        response,
      );
      return { streaming: true };
    }
    case 'create': {
      if (route.name !== undefined || route.subresource !== undefined)
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return { code: 201, body: out(route, create(context, request, objectBody(request), manager)) };
    }
    case 'update': {
      const old = current(context, route);
      return { code: 200, body: out(route, update(context, request, old, objectBody(request), manager)) };
    }
    case 'patch': {
      const kind = patchKindOf(request.contentType);
      if (kind === 'apply') {
        const { code, object } = applyPatch(context, request);
        return { code, body: out(route, object) };
      }
      const old = current(context, route);
      return { code: 200, body: out(route, update(context, request, old, patched(request, old, kind), manager)) };
    }
    case 'delete': {
      const old = current(context, route);
      const deleted = context.store.delete(route.type, route.namespace, old.metadata.name ?? '', deleteOptions(request));
      context.ownership.forget(old.metadata.uid ?? '');
      return { code: 200, body: out(route, deleted) };
    }
    case 'deletecollection': {
      const filter = filterOf(route.type, query);
      const options = deleteOptions(request);
      const victims = context.store.list(route.type, route.namespace).filter((object) => objectMatches(filter, object));
      const deleted = victims
        .filter((victim) => context.store.get(route.type, victim.metadata.namespace, victim.metadata.name ?? '') !== undefined)
        .map((victim) => context.store.delete(route.type, victim.metadata.namespace, victim.metadata.name ?? '', options));
      return {
        code: 200,
        body: {
          kind: `${route.type.kind}List`,
          apiVersion: apiVersionOf(route.type, route.version),
          metadata: {},
          items: deleted.map((object) => out(route, clone(object))),
        },
      };
    }
  }
}
