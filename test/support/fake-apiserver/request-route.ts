/**
 * Maps a request to what the apiserver's RequestInfoFactory would call it (k8s.io/apiserver/pkg/endpoints/request):
 * resource requests `/api/v1/...` and `/apis/GROUP/VERSION/...` with optional `namespaces/NS/`, a name and a
 * subresource, and a verb derived from the method (GET collection = list, `?watch=true` = watch). Everything else
 * is a non-resource URL (discovery, /version, /openapi).
 */
import { ApiError } from './api-error';
import type { ResourceCatalog, ResourceType } from './resource-catalog';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRoute {
  kind: 'resource';
  verb: Verb;
  group: string;
  version: string;
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface NonResourceRoute {
  kind: 'nonresource';
  verb: string;
  path: string;
}

export type Route = ResourceRoute | NonResourceRoute;

function isWatch(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch === 'true' || watch === '1';
}

function verbFor(method: string, hasName: boolean, query: URLSearchParams): Verb {
  switch (method) {
    case 'GET':
      if (isWatch(query)) return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  }
}

export function routeRequest(method: string, url: URL, catalog: ResourceCatalog): Route {
  const parts = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .map(decodeURIComponent);
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return { kind: 'nonresource', verb: method.toLowerCase(), path: url.pathname };
  }
  let namespace: string | undefined;
  // `namespaces/NS/RESOURCE...` is a namespaced request; `namespaces/NS` alone is the Namespace object itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural = '', name, subresource, ...extra] = rest;
  const type = catalog.find(group, version, plural);
  if (!type || extra.length > 0) throw notFoundPath();
  if (type.namespaced === false && namespace !== undefined) throw notFoundPath();
  if (subresource !== undefined && !(subresource === 'status' && type.statusSubresource)) throw notFoundPath();
  const route: ResourceRoute = { kind: 'resource', verb: verbFor(method, name !== undefined, url.searchParams), group, version, type };
  if (namespace !== undefined) route.namespace = namespace;
  if (name !== undefined) route.name = name;
  if (subresource !== undefined) route.subresource = subresource;
  // A watch on one object by path (legacy `.../services/a?watch=true`) is a watch of the collection filtered by name.
  return route;
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}
