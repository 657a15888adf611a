/**
 * A simplified server-side apply (KEP-555): field ownership per manager over leaf paths, where lists with a merge
 * key (conditions by type, ports by port, ...) are maps of items and other lists are atomic. What it keeps of the
 * real thing: apply creates a missing object; an apply that changes a field another manager owns is 409 Conflict
 * unless `force=true` (then ownership moves); fields a manager applied before and leaves out now are removed when
 * nobody else owns them; non-apply writes take ownership of what they change (so an applier conflicts with a
 * controller's later update). What it drops: managedFields in the object (ownership is kept beside the store),
 * versions in field sets, the sets-vs-maps distinctions of structured-merge-diff schemas.
 */
import { ApiError } from './api-error';
import { clone, isPlainObject, jsonEqual } from './kube-object';
import { mergeKeyOf, strategicMergePatch } from './patch';

type Segment = string | { key: string; value: unknown };

interface Leaf {
  segments: Segment[];
  value: unknown;
}

/** Identity fields every applier sends; nobody "owns" them. */
const UNOWNED_PATHS = new Set([
  '.apiVersion',
  '.kind',
  '.metadata.name',
  '.metadata.namespace',
  '.metadata.resourceVersion',
  '.metadata.managedFields',
]);

function pathText(segments: Segment[]): string {
  return segments
    .map((segment) => (typeof segment === 'string' ? `.${segment}` : `[${segment.key}=${JSON.stringify(segment.value)}]`))
    .join('');
}

/** Every owned path of an object: leaves, plus the keyed list items themselves (so an item can be dropped whole). */
export function leavesOf(value: unknown, segments: Segment[] = [], out = new Map<string, Leaf>()): Map<string, Leaf> {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leavesOf(child, [...segments, key], out);
    return out;
  }
  const field = typeof segments[segments.length - 1] === 'string' ? (segments[segments.length - 1] as string) : '';
  const mergeKey = Array.isArray(value) ? mergeKeyOf(field, value) : undefined;
  if (Array.isArray(value) && mergeKey && value.every((item) => isPlainObject(item) && item[mergeKey] !== undefined)) {
    for (const item of value as Record<string, unknown>[]) {
      const itemSegments = [...segments, { key: mergeKey, value: item[mergeKey] }];
      out.set(pathText(itemSegments), { segments: itemSegments, value: item });
      leavesOf(item, itemSegments, out);
    }
    return out;
  }
  const text = pathText(segments);
  if (!UNOWNED_PATHS.has(text)) out.set(text, { segments, value });
  return out;
}

function childOf(container: unknown, segment: Segment): unknown {
  if (typeof segment === 'string') return isPlainObject(container) ? container[segment] : undefined;
  return Array.isArray(container)
    ? container.find((item) => isPlainObject(item) && jsonEqual(item[segment.key], segment.value))
    : undefined;
}

function valueAt(object: unknown, segments: Segment[]): unknown {
  return segments.reduce<unknown>((current, segment) => childOf(current, segment), object);
}

function removeAt(object: unknown, segments: Segment[]): void {
  const parent = valueAt(object, segments.slice(0, -1));
  const last = segments[segments.length - 1];
  if (last === undefined) return;
  if (typeof last === 'string') {
    if (isPlainObject(parent)) delete parent[last];
  } else if (Array.isArray(parent)) {
    const index = parent.findIndex((item) => isPlainObject(item) && jsonEqual(item[last.key], last.value));
    if (index >= 0) parent.splice(index, 1);
  }
}

/** Who owns which paths of each object (by uid), per manager. */
export class FieldOwnership {
  private readonly owners = new Map<string, Map<string, Set<string>>>();

  managersOf(uid: string): Map<string, Set<string>> {
    let managers = this.owners.get(uid);
    if (!managers) {
      managers = new Map();
      this.owners.set(uid, managers);
    }
    return managers;
  }

  forget(uid: string): void {
    this.owners.delete(uid);
  }

  /** A non-apply write by `manager`: it takes the paths whose values it changed (or added). */
  recordUpdate(uid: string, manager: string, before: unknown, after: unknown): void {
    const previous = leavesOf(before);
    const changed = [...leavesOf(after)].filter(([path, leaf]) => !jsonEqual(previous.get(path)?.value, leaf.value)).map(([path]) => path);
    this.take(uid, manager, changed);
  }

  private take(uid: string, manager: string, paths: string[]): void {
    const managers = this.managersOf(uid);
    for (const [other, owned] of managers) if (other !== manager) for (const path of paths) owned.delete(path);
    const mine = managers.get(manager) ?? new Set<string>();
    for (const path of paths) mine.add(path);
    managers.set(manager, mine);
  }

  /**
   * The object after `manager` applies `config` to `current` (undefined: a create). Throws 409 on a conflict
   * unless forced. `uid` is absent for a create (nothing is owned yet); call `commitApply` with the stored uid.
   */
  apply(
    current: unknown,
    config: Record<string, unknown>,
    manager: string,
    force: boolean,
    uid?: string,
  ): { result: Record<string, unknown>; paths: string[] } {
    const applied = leavesOf(config);
    const managers = uid === undefined ? new Map<string, Set<string>>() : this.managersOf(uid);
    const conflicts: string[] = [];
    for (const [path, leaf] of applied) {
      if (jsonEqual(valueAt(current, leaf.segments), leaf.value)) continue;
      for (const [other, owned] of managers) if (other !== manager && owned.has(path)) conflicts.push(`conflict with "${other}": ${path}`);
    }
    if (conflicts.length > 0 && !force) {
      throw new ApiError(
        409,
        'Conflict',
        `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: ${conflicts.join('\n')}`,
      );
    }
    const result = clone(isPlainObject(current) ? current : {});
    const mine = managers.get(manager) ?? new Set<string>();
    for (const path of mine) {
      if (applied.has(path)) continue;
      const ownedByOthers = [...managers].some(([other, owned]) => other !== manager && owned.has(path));
      const segments = leavesOf(current).get(path)?.segments;
      if (!ownedByOthers && segments) removeAt(result, segments);
    }
    const merged = strategicMergePatch(result, config) as Record<string, unknown>;
    return { result: merged, paths: [...applied.keys()] };
  }

  /** Records what an apply now owns: exactly the applied paths (previously applied paths left out are released). */
  commitApply(uid: string, manager: string, paths: string[]): void {
    const managers = this.managersOf(uid);
    managers.delete(manager);
    this.take(uid, manager, paths);
  }
}
