/**
 * A reloaded file is parsed into all-new objects, so everything after the parser (configuration facts,
 * allocation, election, announcements) would see 10,000 changed services where one was added. The interner diffs
 * the new snapshot against the previous one and hands on the previous object wherever an object means the same
 * (equal but for where it was written: positions shift when a document is inserted above), and the previous
 * snapshot itself when nothing changed. Later steps then tell what changed by identity and keep their work per
 * object (election/incremental-election.ts, the allocation and digest caches). Pure.
 *
 * Positions are only read from the source's own snapshot (config-load-report.ts reports the file's problems), so
 * an interned object's older positions are never shown.
 */
import { SNAPSHOT_LISTS, type Snapshot, type SnapshotList } from '../model';

/** Fields that say where something was written, not what it means. */
const POSITION_FIELDS: ReadonlySet<string> = new Set(['position', 'fieldPositions']);

export class SnapshotInterner {
  private previous: Snapshot | undefined;
  /**
   * The snapshot last handed in: every recomputation (a member joining, a health report) interns the source's
   * snapshot again, and after a reload that is not the interned one; comparing 10,000 services again each time
   * would cost a membership change what a reload costs.
   */
  private lastInput: Snapshot | undefined;

  /** `next` with every object equal to one of the previous snapshot replaced by that one. */
  intern(next: Snapshot): Snapshot {
    const previous = this.previous;
    if (previous && next === this.lastInput) return previous;
    this.lastInput = next;
    if (!previous || previous === next) {
      this.previous = next;
      return next;
    }
    const lists = {} as Record<SnapshotList, readonly object[]>;
    let same = true;
    for (const field of SNAPSHOT_LISTS) {
      const list = internList(previous[field] as readonly Named[], next[field] as readonly Named[]);
      lists[field] = list;
      if (list !== previous[field]) same = false;
    }
    const interned: Snapshot = same && sameMeaning(previous.warnings, next.warnings) ? previous : ({ ...next, ...lists } as Snapshot);
    this.previous = interned;
    return interned;
  }
}

interface Named {
  readonly meta: { readonly name: string; readonly namespace: string };
}

const nameOf = (o: Named): string => `${o.meta.namespace}/${o.meta.name}`;

/** The new list with unchanged objects taken from the old one; the old list itself when nothing changed. */
function internList<T extends Named>(before: readonly T[], after: readonly T[]): readonly T[] {
  const byName = new Map<string, T>();
  for (const o of before) byName.set(nameOf(o), o);
  let same = before.length === after.length;
  const out = after.map((o, i) => {
    const old = byName.get(nameOf(o));
    const kept = old !== undefined && sameMeaning(old, o) ? old : o;
    if (kept !== before[i]) same = false;
    return kept;
  });
  return same ? before : out;
}

/** Deep equality of parsed model values, ignoring positions (plain data: arrays, objects, bigints, typed arrays). */
function sameMeaning(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameMeaning(a[i], b[i])) return false;
    return true;
  }
  if (ArrayBuffer.isView(a)) return ArrayBuffer.isView(b) && Buffer.compare(bytesOf(a), bytesOf(b)) === 0;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Map || a instanceof Set) return sameMeaning([...a], [...(b as typeof a)]);
  // Loops rather than filtered key arrays: this runs over every field of 10,000 services on a reload.
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (POSITION_FIELDS.has(key) || x[key] === undefined) continue;
    if (!sameMeaning(x[key], y[key])) return false;
    count++;
  }
  for (const key in y) if (!POSITION_FIELDS.has(key) && y[key] !== undefined) count--;
  return count === 0;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}
