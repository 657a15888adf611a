/**
 * `?dryRun=All`: the request goes through every rule (defaulting, conflicts, validation) and answers with what
 * would be stored, but nothing is written and no watch hears of it (k8s.io/apiserver dryRun handling). Used by
 * `kubectl apply --dry-run=server`.
 */
import { alreadyExists, notFound } from './api-error';
import { clone, type KubeObject } from './kube-object';
import type { ResourceType } from './resource-catalog';
import type { ObjectStore } from './store';

/** The store operations the verb handlers use. */
export type StoreAccess = Pick<ObjectStore, 'get' | 'list' | 'listUncloned' | 'create' | 'update' | 'delete' | 'currentRevision'>;

export function isDryRun(query: URLSearchParams): boolean {
  return query.getAll('dryRun').includes('All');
}

/** A view of `store` whose writes check and answer but change nothing. */
export function dryRunStore(store: StoreAccess): StoreAccess {
  return {
    get: (type, namespace, name) => store.get(type, namespace, name),
    list: (type, namespace) => store.list(type, namespace),
    listUncloned: (type, namespace) => store.listUncloned(type, namespace),
    currentRevision: () => store.currentRevision(),
    create(type: ResourceType, object: KubeObject) {
      const name = object.metadata.name ?? '';
      if (store.get(type, object.metadata.namespace, name)) throw alreadyExists(type.group, type.plural, name);
      const result = clone(object);
      result.metadata.uid = crypto.randomUUID();
      result.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      return result;
    },
    update(type: ResourceType, object: KubeObject) {
      const previous = store.get(type, object.metadata.namespace, object.metadata.name ?? '');
      if (!previous) throw notFound(type.group, type.plural, object.metadata.name ?? '');
      const result = clone(object);
      result.metadata.uid = previous.metadata.uid;
      result.metadata.creationTimestamp = previous.metadata.creationTimestamp;
      result.metadata.resourceVersion = previous.metadata.resourceVersion;
      return result;
    },
    delete(type: ResourceType, namespace: string | undefined, name: string) {
      const previous = store.get(type, namespace, name);
      if (!previous) throw notFound(type.group, type.plural, name);
      return previous;
    },
  };
}
