/**
 * Where each field of one object was written, by field path ("spec.addresses[1]"; "" is the document itself),
 * kept with the object once it is read: the checks that run later (cross-checks, warnings, a reload that reuses
 * the object, document-cache.ts) point at a value through it. A Map of position objects cost about 1.5 KB per
 * Service document, 15 MB at 10,000 Services held by the reload cache; this keeps a line and a column per field in
 * number arrays, the file once per object, and the paths' text shared between objects.
 */
import type { SourcePosition } from '../types';

/**
 * Paths shared between objects at most. The paths objects have in common (metadata.name, spec.ports[0].port, the
 * annotations mlb reads) are a few hundred; a pool listing 10,000 addresses or free-form annotation keys would
 * grow a shared table without bound, so past this many a path is kept by its object alone.
 */
const SHARED_PATHS_MAX = 4_096;
/** Up to this many fields a lookup scans the object's own few entries; past it, an index by path is kept. */
const SCAN_MAX = 24;

const sharedPaths = new Map<string, string>();

/** One string per distinct path while the table has room (a path built by concatenation is a new string each time). */
function sharedPath(path: string): string {
  const known = sharedPaths.get(path);
  if (known !== undefined) return known;
  if (sharedPaths.size >= SHARED_PATHS_MAX) return path;
  sharedPaths.set(path, path);
  return path;
}

export class PositionTable {
  private readonly paths: string[] = [];
  private readonly lines: number[] = [];
  private readonly columns: number[] = [];
  /** The file of every position, while they are all in one; otherwise one per entry. */
  private file: string | undefined;
  private files: string[] | undefined;
  private index: Map<string, number> | undefined;

  get size(): number {
    return this.paths.length;
  }

  /** Records (or replaces) where `path` was written. */
  set(path: string, position: SourcePosition): void {
    const at = this.find(path);
    if (at === undefined) {
      this.append(sharedPath(path), position);
      return;
    }
    this.lines[at] = position.line;
    this.columns[at] = position.column;
    this.setFile(at, position.file);
  }

  get(path: string): SourcePosition | undefined {
    const at = this.find(path);
    if (at === undefined) return undefined;
    return { file: this.files?.[at] ?? (this.file as string), line: this.lines[at]!, column: this.columns[at]! };
  }

  private find(path: string): number | undefined {
    if (this.index !== undefined) return this.index.get(path);
    for (let i = 0; i < this.paths.length; i++) if (this.paths[i] === path) return i;
    return undefined;
  }

  private append(path: string, position: SourcePosition): void {
    const at = this.paths.length;
    this.paths.push(path);
    this.lines.push(position.line);
    this.columns.push(position.column);
    if (at === 0) this.file = position.file;
    else this.setFile(at, position.file);
    if (this.index !== undefined) this.index.set(path, at);
    else if (this.paths.length > SCAN_MAX) this.index = new Map(this.paths.map((p, i) => [p, i]));
  }

  private setFile(at: number, file: string): void {
    if (this.files === undefined) {
      if (file === this.file) return;
      // A second file in one object: a document of a --config directory running into the next file (config-directory.ts).
      this.files = this.paths.map(() => this.file as string);
    }
    this.files[at] = file;
  }
}
