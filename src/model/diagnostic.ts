import type { SourcePosition } from './types';

export type Severity = 'error' | 'warning';

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
