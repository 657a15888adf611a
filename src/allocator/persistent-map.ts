/**
 * A persistent (immutable, structurally shared) sorted map: an AVL tree whose updates copy only the path they
 * touch, O(log n) nodes per set or delete. The allocator's state is built from these so every assign or
 * unassign returns a new state in O(log n) and old states stay valid (the daemon can try an allocation and
 * drop it, and a batch of 65,536 services in a /16 stays O(n log n) rather than O(n^2) copies).
 *
 * MetalLB keeps mutable Go maps (internal/allocator/allocator.go, type Allocator); mlb needs the same lookups
 * plus ordered neighbour queries (floor / ceiling), which Go maps do not offer and its allocator never needed
 * because it walks every address of a CIDR one by one.
 */

export type Compare<K> = (a: K, b: K) => number;

interface Node<K, V> {
  readonly key: K;
  readonly value: V;
  readonly left: Node<K, V> | undefined;
  readonly right: Node<K, V> | undefined;
  readonly height: number;
  readonly size: number;
}

type Tree<K, V> = Node<K, V> | undefined;

function heightOf<K, V>(t: Tree<K, V>): number {
  return t === undefined ? 0 : t.height;
}

function sizeOf<K, V>(t: Tree<K, V>): number {
  return t === undefined ? 0 : t.size;
}

function node<K, V>(key: K, value: V, left: Tree<K, V>, right: Tree<K, V>): Node<K, V> {
  return {
    key,
    value,
    left,
    right,
    height: Math.max(heightOf(left), heightOf(right)) + 1,
    size: sizeOf(left) + sizeOf(right) + 1,
  };
}

/** Rebuilds a node from parts, rotating once or twice when the two sides differ in height by more than one. */
function balance<K, V>(key: K, value: V, left: Tree<K, V>, right: Tree<K, V>): Node<K, V> {
  const hl = heightOf(left);
  const hr = heightOf(right);
  if (hl > hr + 1) {
    const l = left as Node<K, V>;
    if (heightOf(l.left) >= heightOf(l.right)) {
      return node(l.key, l.value, l.left, node(key, value, l.right, right));
    }
    const lr = l.right as Node<K, V>;
    return node(lr.key, lr.value, node(l.key, l.value, l.left, lr.left), node(key, value, lr.right, right));
  }
  if (hr > hl + 1) {
    const r = right as Node<K, V>;
    if (heightOf(r.right) >= heightOf(r.left)) {
      return node(r.key, r.value, node(key, value, left, r.left), r.right);
    }
    const rl = r.left as Node<K, V>;
    return node(rl.key, rl.value, node(key, value, left, rl.left), node(r.key, r.value, rl.right, r.right));
  }
  return node(key, value, left, right);
}

function insert<K, V>(t: Tree<K, V>, key: K, value: V, cmp: Compare<K>): Node<K, V> {
  if (t === undefined) return node(key, value, undefined, undefined);
  const c = cmp(key, t.key);
  if (c < 0) return balance(t.key, t.value, insert(t.left, key, value, cmp), t.right);
  if (c > 0) return balance(t.key, t.value, t.left, insert(t.right, key, value, cmp));
  return node(key, value, t.left, t.right);
}

function removeMin<K, V>(t: Node<K, V>): { min: Node<K, V>; rest: Tree<K, V> } {
  if (t.left === undefined) return { min: t, rest: t.right };
  const { min, rest } = removeMin(t.left);
  return { min, rest: balance(t.key, t.value, rest, t.right) };
}

function remove<K, V>(t: Tree<K, V>, key: K, cmp: Compare<K>): Tree<K, V> {
  if (t === undefined) return undefined;
  const c = cmp(key, t.key);
  if (c < 0) return balance(t.key, t.value, remove(t.left, key, cmp), t.right);
  if (c > 0) return balance(t.key, t.value, t.left, remove(t.right, key, cmp));
  if (t.left === undefined) return t.right;
  if (t.right === undefined) return t.left;
  const { min, rest } = removeMin(t.right);
  return balance(min.key, min.value, t.left, rest);
}

export class PersistentMap<K, V> {
  private constructor(
    private readonly root: Tree<K, V>,
    private readonly cmp: Compare<K>,
  ) {}

  static empty<K, V>(cmp: Compare<K>): PersistentMap<K, V> {
    return new PersistentMap<K, V>(undefined, cmp);
  }

  get size(): number {
    return sizeOf(this.root);
  }

  get(key: K): V | undefined {
    let t = this.root;
    while (t !== undefined) {
      const c = this.cmp(key, t.key);
      if (c === 0) return t.value;
      t = c < 0 ? t.left : t.right;
    }
    return undefined;
  }

  has(key: K): boolean {
    let t = this.root;
    while (t !== undefined) {
      const c = this.cmp(key, t.key);
      if (c === 0) return true;
      t = c < 0 ? t.left : t.right;
    }
    return false;
  }

  set(key: K, value: V): PersistentMap<K, V> {
    return new PersistentMap(insert(this.root, key, value, this.cmp), this.cmp);
  }

  delete(key: K): PersistentMap<K, V> {
    if (!this.has(key)) return this;
    return new PersistentMap(remove(this.root, key, this.cmp), this.cmp);
  }

  /** The entry with the greatest key <= key. */
  floor(key: K): readonly [K, V] | undefined {
    let t = this.root;
    let best: Node<K, V> | undefined;
    while (t !== undefined) {
      const c = this.cmp(key, t.key);
      if (c === 0) return [t.key, t.value];
      if (c > 0) {
        best = t;
        t = t.right;
      } else {
        t = t.left;
      }
    }
    return best === undefined ? undefined : [best.key, best.value];
  }

  /** The entry with the least key >= key. */
  ceiling(key: K): readonly [K, V] | undefined {
    let t = this.root;
    let best: Node<K, V> | undefined;
    while (t !== undefined) {
      const c = this.cmp(key, t.key);
      if (c === 0) return [t.key, t.value];
      if (c < 0) {
        best = t;
        t = t.left;
      } else {
        t = t.right;
      }
    }
    return best === undefined ? undefined : [best.key, best.value];
  }

  /** Entries in key order, from the first key >= from (every entry when from is undefined). */
  *entries(from?: K): IterableIterator<readonly [K, V]> {
    const stack: Node<K, V>[] = [];
    let t = this.root;
    // Descend to the first key >= from, remembering the nodes still to visit on the way back up.
    while (t !== undefined) {
      if (from !== undefined && this.cmp(t.key, from) < 0) {
        t = t.right;
      } else {
        stack.push(t);
        t = t.left;
      }
    }
    while (stack.length > 0) {
      const n = stack.pop() as Node<K, V>;
      yield [n.key, n.value];
      let r = n.right;
      while (r !== undefined) {
        stack.push(r);
        r = r.left;
      }
    }
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  *keys(): IterableIterator<K> {
    for (const [k] of this.entries()) yield k;
  }
}

/** Code-unit order, the same on every node (localeCompare is not). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareBigints(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
