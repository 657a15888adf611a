/**
 * The fake's etcd: objects per resource type, one cluster-wide revision (every write takes the next number, which
 * becomes the object's metadata.resourceVersion, as etcd's mod_revision does), and a bounded history of changes
 * from which watches replay. History older than the compaction point is gone: a watch from there must get 410.
 *
 * Synchronous and free of I/O; the watch hub subscribes to it and the HTTP shell calls it.
 */
import { alreadyExists, notFound } from './api-error';
import { clone, jsonEqual, objectKey, type KubeObject } from './kube-object';
import { typeKey, type ResourceCatalog, type ResourceType } from './resource-catalog';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreChange {
  revision: number;
  type: ResourceType;
  change: ChangeType;
  /** The object after the change; for DELETED its last state carrying the deletion's resourceVersion. */
  object: KubeObject;
  /** The object before the change (absent for ADDED): a selector watch needs it to see objects leave its view. */
  previous?: KubeObject;
}

/** Changes kept for watch replay: far more than any test writes, small enough not to matter in memory. */
export const DEFAULT_HISTORY_LIMIT = 10_000;
/** The first revision: arbitrary but not 0 or 1, so that a client treating "0" or "1" specially is noticed. */
const INITIAL_REVISION = 100;

export interface StoreOptions {
  historyLimit?: number;
  now?: () => Date;
  newUid?: () => string;
}

export class ObjectStore {
  private revision = INITIAL_REVISION;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private history: StoreChange[] = [];
  /** Watches from a revision below this get 410: the changes after it are no longer all known. */
  private compactedBefore = 0;
  private readonly listeners = new Set<(change: StoreChange) => void>();
  private readonly historyLimit: number;
  private readonly now: () => Date;
  private readonly newUid: () => string;

  constructor(
    readonly catalog: ResourceCatalog,
    options: StoreOptions = {},
  ) {
    this.historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    this.now = options.now ?? (() => new Date());
    this.newUid = options.newUid ?? (() => crypto.randomUUID());
  }

  currentRevision(): number {
    return this.revision;
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const object = this.bucket(type).get(objectKey(namespace, name));
    return object && clone(object);
  }

  /** Every object of the type, optionally in one namespace, in a stable order (namespace, then name). */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    const items = [...this.bucket(type).values()].filter((object) => namespace === undefined || object.metadata.namespace === namespace);
    items.sort((a, b) =>
      objectKey(a.metadata.namespace, a.metadata.name ?? '').localeCompare(objectKey(b.metadata.namespace, b.metadata.name ?? '')),
    );
    return items.map(clone);
  }

  /**
   * The stored objects themselves, in list order, uncloned: for a paged list, which clones only the page it
   * sends (cloning every object for each page made paging a large type quadratic). Callers must not modify them.
   * In key order by code unit, as etcd orders its keys by byte.
   */
  listUncloned(type: ResourceType, namespace?: string): { key: string; object: KubeObject }[] {
    const entries = [...this.bucket(type)].filter(([, object]) => namespace === undefined || object.metadata.namespace === namespace);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.map(([key, object]) => ({ key, object }));
  }

  /** Stores a new object (its name already decided); assigns uid, creationTimestamp and the next revision. */
  create(type: ResourceType, object: KubeObject): KubeObject {
    const name = object.metadata.name ?? '';
    const key = objectKey(object.metadata.namespace, name);
    if (this.bucket(type).has(key)) throw alreadyExists(type.group, type.plural, name);
    const stored = clone(object);
    stored.metadata.uid = this.newUid();
    stored.metadata.creationTimestamp = kubeTimestamp(this.now());
    stored.metadata.resourceVersion = String(this.nextRevision());
    this.bucket(type).set(key, stored);
    this.record({ revision: this.revision, type, change: 'ADDED', object: clone(stored) });
    return clone(stored);
  }

  /**
   * Replaces an existing object. A write that changes nothing keeps the revision and emits no event (etcd is not
   * written: the apiserver compares before it commits).
   */
  update(type: ResourceType, object: KubeObject): KubeObject {
    const name = object.metadata.name ?? '';
    const key = objectKey(object.metadata.namespace, name);
    const previous = this.bucket(type).get(key);
    if (!previous) throw notFound(type.group, type.plural, name);
    const candidate = clone(object);
    candidate.metadata.uid = previous.metadata.uid;
    candidate.metadata.creationTimestamp = previous.metadata.creationTimestamp;
    candidate.metadata.resourceVersion = previous.metadata.resourceVersion;
    if (jsonEqual(candidate, previous)) return clone(previous);
    candidate.metadata.resourceVersion = String(this.nextRevision());
    this.bucket(type).set(key, candidate);
    this.record({ revision: this.revision, type, change: 'MODIFIED', object: clone(candidate), previous: clone(previous) });
    return clone(candidate);
  }

  /**
   * Removes an object; the returned (and watched) last state carries the deletion's revision. Dependents (objects
   * whose ownerReferences name its uid) go with it unless orphaned, as the garbage collector's background
   * propagation would do a moment later.
   */
  delete(type: ResourceType, namespace: string | undefined, name: string, options: { orphanDependents?: boolean } = {}): KubeObject {
    const key = objectKey(namespace, name);
    const previous = this.bucket(type).get(key);
    if (!previous) throw notFound(type.group, type.plural, name);
    this.bucket(type).delete(key);
    const last = clone(previous);
    last.metadata.resourceVersion = String(this.nextRevision());
    this.record({ revision: this.revision, type, change: 'DELETED', object: clone(last), previous: clone(previous) });
    if (!options.orphanDependents && previous.metadata.uid) this.collectDependents(previous.metadata.uid);
    if (type.group === '' && type.plural === 'namespaces') this.emptyNamespace(name);
    return last;
  }

  /** The changes after `revision`, oldest first, or 'expired' when some of them were compacted away. */
  changesSince(revision: number): StoreChange[] | 'expired' {
    if (revision < this.compactedBefore) return 'expired';
    return this.history.filter((change) => change.revision > revision);
  }

  /** Forgets the history before `revision` (default: all of it): watches from an older revision get 410. */
  compact(revision: number = this.revision): void {
    this.compactedBefore = Math.max(this.compactedBefore, revision);
    this.history = this.history.filter((change) => change.revision >= this.compactedBefore);
  }

  subscribe(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What the namespace controller does after a Namespace is deleted: every object in it goes too. */
  private emptyNamespace(namespace: string): void {
    for (const type of this.catalog.types) {
      if (!type.namespaced) continue;
      for (const object of this.list(type, namespace)) {
        if (this.bucket(type).has(objectKey(namespace, object.metadata.name ?? '')))
          this.delete(type, namespace, object.metadata.name ?? '');
      }
    }
  }

  private collectDependents(ownerUid: string): void {
    for (const type of this.catalog.types) {
      for (const dependent of [...this.bucket(type).values()]) {
        const owned = dependent.metadata.ownerReferences?.some((reference) => reference.uid === ownerUid);
        if (owned && this.bucket(type).has(objectKey(dependent.metadata.namespace, dependent.metadata.name ?? ''))) {
          this.delete(type, dependent.metadata.namespace, dependent.metadata.name ?? '');
        }
      }
    }
  }

  private nextRevision(): number {
    this.revision += 1;
    return this.revision;
  }

  private record(change: StoreChange): void {
    this.history.push(change);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      const newestDropped = dropped[dropped.length - 1];
      if (newestDropped) this.compactedBefore = Math.max(this.compactedBefore, newestDropped.revision);
    }
    for (const listener of this.listeners) listener(change);
  }

  private bucket(type: ResourceType): Map<string, KubeObject> {
    const key = typeKey(type);
    let bucket = this.objects.get(key);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(key, bucket);
    }
    return bucket;
  }
}

/** RFC 3339 in whole seconds, as metav1.Time serialises. */
export function kubeTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
