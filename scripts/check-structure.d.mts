/** Types for scripts/check-structure.mjs, so its tests can call the check in-process. */
export interface StructureReport {
  /** Each a message naming file and line; the check fails when there is any. */
  readonly problems: string[];
  /** Known cycles still allowed, specifiers that could not be resolved. */
  readonly notes: string[];
  readonly stats: { files: number; edges?: number; pure?: number };
}
export function checkStructure(root: string): StructureReport;
export const PURE_FOLDERS: readonly string[];
export const PURE_FILES: readonly string[];
export const PURE_MAY_IMPORT: Readonly<Record<string, string>>;
export const AMBIENT_ALLOWED: Readonly<Record<string, string>>;
export const KNOWN_CYCLE_EDGES: readonly { from: string; to: string; why: string }[];
