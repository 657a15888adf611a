/**
 * The three patch formats of PATCH requests: JSON merge patch (RFC 7396), JSON patch (RFC 6902) and a strategic
 * merge patch good enough for the built-in fields tests touch (lists merged by the merge keys of the Kubernetes
 * types below, `$patch: delete|replace` and the `$setElementOrder`/`$retainKeys` directives kubectl emits).
 * Server-side apply lives in apply.ts.
 */
import { ApiError, badRequest } from './api-error';
import { clone, isPlainObject, jsonEqual } from './kube-object';

export type PatchKind = 'merge' | 'json' | 'strategic' | 'apply';

const PATCH_CONTENT_TYPES: Record<string, PatchKind> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

/** The patch kind of a Content-Type header; 415 for anything else (the apiserver's answer). */
export function patchKindOf(contentType: string | undefined): PatchKind {
  const bare = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const kind = PATCH_CONTENT_TYPES[bare];
  if (!kind)
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_CONTENT_TYPES).join(', ')}`,
    );
  return kind;
}

/** RFC 7396: objects merge recursively, null deletes, anything else (arrays included) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** RFC 6901 pointer segments. */
function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw unprocessable(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function unprocessable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

type Container = Record<string, unknown> | unknown[];

function parentOf(document: unknown, segments: string[]): { parent: Container; key: string } {
  let current: unknown = document;
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(segment)];
    else if (isPlainObject(current)) current = current[segment];
    else current = undefined;
    if (current === undefined) throw unprocessable(`doc is missing path: /${segments.join('/')}`);
  }
  if (!Array.isArray(current) && !isPlainObject(current)) throw unprocessable(`doc is missing path: /${segments.join('/')}`);
  return { parent: current, key: segments[segments.length - 1] ?? '' };
}

function arrayIndex(array: unknown[], key: string, forInsert: boolean): number {
  if (forInsert && key === '-') return array.length;
  const index = Number(key);
  const limit = forInsert ? array.length : array.length - 1;
  if (!/^\d+$/.test(key) || index > limit) throw unprocessable(`unable to access invalid index: ${key}`);
  return index;
}

function read(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const segment of pointer(path)) {
    if (Array.isArray(current)) current = current[arrayIndex(current, segment, false)];
    else if (isPlainObject(current) && Object.hasOwn(current, segment)) current = current[segment];
    else throw unprocessable(`doc is missing path: ${path}`);
  }
  return current;
}

function remove(document: unknown, path: string): unknown {
  const { parent, key } = parentOf(document, pointer(path));
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false), 1)[0];
  if (!Object.hasOwn(parent, key)) throw unprocessable(`doc is missing path: ${path}`);
  const value = parent[key];
  delete parent[key];
  return value;
}

function add(document: unknown, path: string, value: unknown): unknown {
  const segments = pointer(path);
  if (segments.length === 0) return clone(value);
  const { parent, key } = parentOf(document, segments);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, clone(value));
  else parent[key] = clone(value);
  return document;
}

interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function isOperation(value: unknown): value is JsonPatchOperation {
  return isPlainObject(value) && typeof value['op'] === 'string' && typeof value['path'] === 'string';
}

/** RFC 6902. A body that is not a list of operations is 400; an operation that cannot apply is 422. */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations) || !operations.every(isOperation)) throw badRequest('the patch is not a list of JSON patch operations');
  let document = clone(target);
  for (const operation of operations) {
    switch (operation.op) {
      case 'add':
        document = add(document, operation.path, operation.value);
        break;
      case 'remove':
        remove(document, operation.path);
        break;
      case 'replace':
        remove(document, operation.path);
        document = add(document, operation.path, operation.value);
        break;
      case 'move': {
        const value = remove(document, operation.from ?? '');
        document = add(document, operation.path, value);
        break;
      }
      case 'copy':
        document = add(document, operation.path, read(document, operation.from ?? ''));
        break;
      case 'test':
        if (!jsonEqual(read(document, operation.path), operation.value)) throw unprocessable(`testing value ${operation.path} failed`);
        break;
      default:
        throw badRequest(`unexpected JSON patch operation ${JSON.stringify(operation.op)}`);
    }
  }
  return document;
}

/**
 * Merge keys of the list fields the fake's tests and mlb touch (k8s.io/api `patchMergeKey` tags). A list not named
 * here is replaced whole, as for a field without a patch strategy.
 */
const MERGE_KEYS: Record<string, string> = {
  ports: 'port',
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  conditions: 'type',
  ownerReferences: 'uid',
  tolerations: 'key',
  imagePullSecrets: 'name',
  addresses: 'type',
};

/** The merge key of a list field; container ports merge by containerPort, Service ports by port. */
export function mergeKeyOf(field: string, items: unknown[]): string | undefined {
  if (field === 'ports' && items.some((item) => isPlainObject(item) && item['containerPort'] !== undefined)) return 'containerPort';
  return MERGE_KEYS[field];
}

function isDirectiveKey(key: string): boolean {
  return key.startsWith('$setElementOrder/') || key === '$retainKeys' || key.startsWith('$deleteFromPrimitiveList/');
}

function strategicList(field: string, target: unknown, patch: unknown[]): unknown[] {
  const mergeKey = mergeKeyOf(field, patch);
  const current = Array.isArray(target) ? clone(target) : [];
  if (!mergeKey || !patch.every(isPlainObject))
    return patch.filter((item) => !(isPlainObject(item) && item['$patch'] !== undefined)).map(clone);
  if (patch.some((item) => isPlainObject(item) && item['$patch'] === 'replace')) {
    return patch.filter((item) => !(isPlainObject(item) && item['$patch'] === 'replace')).map(clone);
  }
  let result = current;
  for (const item of patch as Record<string, unknown>[]) {
    const index = result.findIndex((existing) => isPlainObject(existing) && jsonEqual(existing[mergeKey], item[mergeKey]));
    if (item['$patch'] === 'delete') {
      if (index >= 0) result = result.filter((_, i) => i !== index);
    } else if (index >= 0) result[index] = strategicMergePatch(result[index], item);
    else result.push(strategicMergePatch({}, item));
  }
  return result;
}

/** The strategic merge patch subset described above; unlike a merge patch, keyed lists merge item by item. */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  if (patch['$patch'] === 'replace') {
    const { $patch: _, ...rest } = patch;
    return clone(rest);
  }
  const result: Record<string, unknown> = isPlainObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key) || key === '$patch') continue;
    if (value === null) delete result[key];
    else if (isPlainObject(value) && value['$patch'] === 'delete') delete result[key];
    else if (Array.isArray(value)) result[key] = strategicList(key, result[key], value);
    else result[key] = strategicMergePatch(result[key], value);
  }
  return result;
}
