import type { SourcePosition } from './types';

/**
 * error: the configuration is refused; warning: it runs, but probably not as meant; note: what mlb decided in
 * the place of something a Kubernetes cluster would have filled in (the API server's defaults), said once so
 * that a plain host's outcome is never a surprise.
 */
export type Severity = 'error' | 'warning' | 'note';

/**
 * One finding about a configuration. `code` is stable (scripts and tests match on it); `message` is for people
 * and uses MetalLB's wording where MetalLB has one (its webhooks and internal/config/config.go).
 */
export interface Diagnostic {
  readonly severity: Severity;
  readonly code: string;
  readonly message: string;
  readonly position?: SourcePosition;
  /** "Kind/namespace/name" of the object concerned, when there is one. */
  readonly object?: string;
}

/** "file:line:column: message", the form editors and terminals turn into links. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.position ? `${d.position.file}:${d.position.line}:${d.position.column}: ` : '';
  return `${where}${d.severity}: ${d.message}`;
}

/**
 * File order: by file name in byte order (a directory's files are read in that order), then line and column;
 * a diagnostic without a position comes after those with one.
 */
export function compareDiagnosticPositions(a: Diagnostic, b: Diagnostic): number {
  if (!a.position || !b.position) return (a.position ? 0 : 1) - (b.position ? 0 : 1);
  if (a.position.file !== b.position.file) return a.position.file < b.position.file ? -1 : 1;
  return a.position.line - b.position.line || a.position.column - b.position.column;
}
