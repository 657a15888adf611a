/**
 * A Map for the reducer's immutable state that a step can change without copying it whole. The reducer copies
 * every collection it may change into its Draft each step (draft.ts); with plain Maps that is O(members) per step,
 * and with a thousand members and a packet, tick or ack every few milliseconds per node the copying is most of
 * the work. A LayeredMap is a shared base (never written once a state holds it) plus three small layers: values
 * replaced, keys deleted, keys added. Opening a draft shares the layers and copies them only on the first write
 * (so a step that only reads costs nothing); once the layers outgrow LAYER_LIMIT(base) they are folded into a new
 * base, so reads stay one or two lookups and the copy on write stays small (amortised O(sqrt(n)) per write).
 *
 * Iteration order is a Map's: keys in insertion order, a replaced value keeps its key's place, a deleted and
 * re-added key moves to the end; so runs are the same as with plain Maps. Pure.
 */

/** The layers may hold this many changes before they are folded into the base (and never fewer than the minimum). */
function layerLimit(baseSize: number): number {
  return Math.max(MIN_LAYER_CHANGES, Math.ceil(Math.sqrt(baseSize)));
}
/** Small maps fold often; below this many changes a fold costs about as much as the copy it saves. */
const MIN_LAYER_CHANGES = 16;

export class LayeredMap<K, V> implements Map<K, V> {
  private base: ReadonlyMap<K, V>;
  private replaced: Map<K, V>;
  private deleted: Set<K>;
  private added: Map<K, V>;
  /** Whether the layers are this map's own to write (false while shared with the state it was opened from). */
  private owned: boolean;
  /** Names this content: shared with the map it was opened over, replaced on every write (what memo() keys on). */
  private content: object = {};

  private constructor(base: ReadonlyMap<K, V>, replaced: Map<K, V>, deleted: Set<K>, added: Map<K, V>, owned: boolean) {
    this.base = base;
    this.replaced = replaced;
    this.deleted = deleted;
    this.added = added;
    this.owned = owned;
  }

  /**
   * A writable view of `map` that never changes `map` itself (nor anything it shares with another LayeredMap):
   * what a draft works on.
   */
  static over<K, V>(map: ReadonlyMap<K, V>): LayeredMap<K, V> {
    if (map instanceof LayeredMap) {
      const view = new LayeredMap<K, V>(map.base, map.replaced, map.deleted, map.added, false);
      view.content = map.content;
      return view;
    }
    return new LayeredMap<K, V>(map, new Map(), new Set(), new Map(), true);
  }

  get size(): number {
    return this.base.size - this.deleted.size + this.added.size;
  }

  get(key: K): V | undefined {
    if (this.added.size > 0 && this.added.has(key)) return this.added.get(key);
    if (this.deleted.size > 0 && this.deleted.has(key)) return undefined;
    if (this.replaced.size > 0 && this.replaced.has(key)) return this.replaced.get(key);
    return this.base.get(key);
  }

  has(key: K): boolean {
    return this.added.has(key) || (this.base.has(key) && !this.deleted.has(key));
  }

  set(key: K, value: V): this {
    this.own();
    this.content = {};
    if (this.added.has(key)) this.added.set(key, value);
    else if (this.base.has(key) && !this.deleted.has(key)) this.replaced.set(key, value);
    else this.added.set(key, value);
    this.foldIfLarge();
    return this;
  }

  delete(key: K): boolean {
    if (this.added.has(key)) {
      this.own();
      this.content = {};
      this.added.delete(key);
      return true;
    }
    if (!this.base.has(key) || this.deleted.has(key)) return false;
    this.own();
    this.content = {};
    this.deleted.add(key);
    this.replaced.delete(key);
    this.foldIfLarge();
    return true;
  }

  clear(): void {
    this.base = new Map();
    this.replaced = new Map();
    this.deleted = new Set();
    this.added = new Map();
    this.owned = true;
    this.content = {};
  }

  // The iterators hand out a native one (the base's, or an array's): a generator yielding each entry costs several
  // times more, and the reducer walks every member on each gossip round.
  entries(): MapIterator<[K, V]> {
    if (!this.layered()) return this.base.entries();
    return this.entryList().values() as MapIterator<[K, V]>;
  }

  keys(): MapIterator<K> {
    if (!this.layered()) return this.base.keys();
    return this.entryList()
      .map(([key]) => key)
      .values() as MapIterator<K>;
  }

  values(): MapIterator<V> {
    if (!this.layered()) return this.base.values();
    const list: V[] = [];
    const { replaced, deleted } = this;
    for (const [key, value] of this.base) {
      if (deleted.has(key)) continue;
      const newer = replaced.get(key);
      list.push(newer === undefined && !replaced.has(key) ? value : (newer as V));
    }
    for (const value of this.added.values()) list.push(value);
    return list.values() as MapIterator<V>;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  /**
   * The key of the entry whose value `index` files under `indexKey` (one entry when several share it). The base's
   * index is built once per base and kept beside it (the base is never written), so a lookup is a scan of the small
   * layers and one Map lookup: the reducer finds the member a packet came from this way on every packet.
   */
  findBy(index: MapIndex<V>, indexKey: string): K | undefined {
    for (const [key, value] of this.added) if (index.keyOf(value) === indexKey) return key;
    for (const [key, value] of this.replaced) if (index.keyOf(value) === indexKey) return key;
    const key = index.of(this.base).get(indexKey) as K | undefined;
    if (key === undefined || this.deleted.has(key) || this.replaced.has(key)) return undefined;
    return key;
  }

  forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  get [Symbol.toStringTag](): string {
    return 'Map';
  }

  /**
   * What `derive` computes from this content, computed once while the content stays the same (across steps and
   * drafts that do not write it): the gossip round's census of members to gossip to, on every tick.
   */
  memo<T>(key: MapMemo<K, V, T>, derive: (map: LayeredMap<K, V>) => T): T {
    return key.get(this.content, () => derive(this));
  }

  private layered(): boolean {
    return this.replaced.size > 0 || this.deleted.size > 0 || this.added.size > 0;
  }

  private entryList(): [K, V][] {
    const list: [K, V][] = [];
    const { replaced, deleted } = this;
    for (const [key, value] of this.base) {
      if (deleted.has(key)) continue;
      const newer = replaced.get(key);
      list.push([key, newer === undefined && !replaced.has(key) ? value : (newer as V)]);
    }
    for (const entry of this.added) list.push(entry);
    return list;
  }

  /** Copies the layers before the first write, so the state this view was opened over keeps its own. */
  private own(): void {
    if (this.owned) return;
    this.replaced = new Map(this.replaced);
    this.deleted = new Set(this.deleted);
    this.added = new Map(this.added);
    this.owned = true;
  }

  private foldIfLarge(): void {
    if (this.replaced.size + this.deleted.size + this.added.size <= layerLimit(this.base.size)) return;
    // Built by forEach, not from entryList(): no [key, value] pair per entry for the collector (a thousand-member
    // table folds every few dozen writes while members join).
    const base = new Map<K, V>();
    const { replaced, deleted } = this;
    this.base.forEach((value, key) => {
      if (deleted.has(key)) return;
      const newer = replaced.get(key);
      base.set(key, newer === undefined && !replaced.has(key) ? value : (newer as V));
    });
    this.added.forEach((value, key) => base.set(key, value));
    // The layers are never written again (a view sharing them copies before writing): an index of the old base
    // plus them is the new base's index (MapIndex.of), without a walk of the whole table.
    FOLDS.set(base, { from: new WeakRef(this.base), replaced, deleted, added: this.added });
    this.base = base;
    this.replaced = new Map();
    this.deleted = new Set();
    this.added = new Map();
  }
}

/** How a base was folded: the base before (weakly: an old table is not kept alive for this) and the layers. */
interface Fold {
  readonly from: WeakRef<ReadonlyMap<unknown, unknown>>;
  readonly replaced: ReadonlyMap<unknown, unknown>;
  readonly deleted: ReadonlySet<unknown>;
  readonly added: ReadonlyMap<unknown, unknown>;
}
const FOLDS = new WeakMap<ReadonlyMap<unknown, unknown>, Fold>();

/** One base's index; `collided` when two entries file under one index key (then only a full build is right). */
interface BaseIndex {
  readonly index: Map<string, unknown>;
  readonly collided: boolean;
}

/** A secondary key over a LayeredMap's values (LayeredMap.findBy), its index of each base kept beside the base. */
export class MapIndex<V> {
  private readonly byBase = new WeakMap<ReadonlyMap<unknown, V>, BaseIndex>();

  /** Each value's key, computed once per value (values are immutable objects; the layers are scanned per lookup). */
  private readonly keys = new WeakMap<V & object, string>();

  constructor(private readonly derive: (value: V) => string) {}

  keyOf(value: V): string {
    if (typeof value !== 'object' || value === null) return this.derive(value);
    let key = this.keys.get(value);
    if (key === undefined) {
      key = this.derive(value);
      this.keys.set(value, key);
    }
    return key;
  }

  /** The index of `base`: each index key to the first key (in order) filed under it. */
  of(base: ReadonlyMap<unknown, V>): ReadonlyMap<string, unknown> {
    let entry = this.byBase.get(base);
    if (!entry) {
      entry = this.patched(base) ?? this.built(base);
      this.byBase.set(base, entry);
    }
    return entry.index;
  }

  private built(base: ReadonlyMap<unknown, V>): BaseIndex {
    const index = new Map<string, unknown>();
    let collided = false;
    base.forEach((value, key) => {
      const indexKey = this.keyOf(value);
      if (index.has(indexKey)) collided = true;
      else index.set(indexKey, key);
    });
    return { index, collided };
  }

  /**
   * The index of a folded base from the index of the base it was folded from: a copy, less the entries the fold
   * removed or replaced, plus the new values. Undefined (build it whole) when there is no such index, when the
   * old base is gone, or when an index key is shared (which entry comes first is then a matter of order).
   */
  private patched(base: ReadonlyMap<unknown, V>): BaseIndex | undefined {
    const fold = FOLDS.get(base);
    const from = fold?.from.deref() as ReadonlyMap<unknown, V> | undefined;
    const before = from && this.byBase.get(from);
    if (!fold || !from || !before || before.collided) return undefined;
    const index = new Map(before.index);
    const remove = (key: unknown): void => {
      const indexKey = this.keyOf(from.get(key) as V);
      if (index.get(indexKey) === key) index.delete(indexKey);
    };
    fold.deleted.forEach(remove);
    fold.replaced.forEach((_value, key) => remove(key));
    let collided = false;
    const add = (value: unknown, key: unknown): void => {
      const indexKey = this.keyOf(value as V);
      if (index.has(indexKey)) collided = true;
      else index.set(indexKey, key);
    };
    fold.replaced.forEach(add);
    fold.added.forEach(add);
    return collided ? undefined : { index, collided };
  }
}

/** One derived value per map content (LayeredMap.memo); kept only while that content is reachable. */
export class MapMemo<K, V, T> {
  private readonly byContent = new WeakMap<object, T>();
  /** Types the memo by what it derives from; never called. */
  declare readonly of?: (map: LayeredMap<K, V>) => T;

  get(content: object, derive: () => T): T {
    if (this.byContent.has(content)) return this.byContent.get(content) as T;
    const value = derive();
    this.byContent.set(content, value);
    return value;
  }
}
