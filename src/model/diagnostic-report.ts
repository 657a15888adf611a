/**
 * How a refused configuration is reported, the same way in the daemon's log, `mlb status` (the view and --once) and
 * `mlb validate`: errors first, in file order, then warnings, in file order. A warning never stands before an error:
 * the error is why the file is refused, and a warning earlier in the file (often a knock-on of that very error)
 * must not push it out of a banner that has room for two lines.
 */
import { compareDiagnosticPositions, type Diagnostic, formatDiagnostic } from './diagnostic';

/** Every error in file order, then every warning, then every note (Array.prototype.sort is stable). */
export function errorsFirst(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const of = (severity: Diagnostic['severity']) => diagnostics.filter((d) => d.severity === severity).sort(compareDiagnosticPositions);
  return [...of('error'), ...of('warning'), ...of('note')];
}

/** The diagnostics as "file:line:column: severity: message" texts, errors and warnings apart, each in file order. */
export interface DiagnosticReport {
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

export function diagnosticReport(diagnostics: readonly Diagnostic[]): DiagnosticReport {
  const ordered = errorsFirst(diagnostics);
  return {
    errors: ordered.filter((d) => d.severity === 'error').map(formatDiagnostic),
    warnings: ordered.filter((d) => d.severity === 'warning').map(formatDiagnostic),
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * At most `maxErrors` error lines, then, when anything is left out, one line counting it: "and 2 more errors,
 * 3 warnings". Warnings are only ever counted here, never listed, so they cannot take an error's place.
 */
export function reportSummary(report: DiagnosticReport, maxErrors: number): { lines: string[]; more: string | null } {
  const lines = report.errors.slice(0, Math.max(0, maxErrors));
  const hiddenErrors = report.errors.length - lines.length;
  const parts = [
    hiddenErrors > 0 && `${hiddenErrors} more ${hiddenErrors === 1 ? 'error' : 'errors'}`,
    report.warnings.length > 0 && plural(report.warnings.length, 'warning'),
  ].filter((p): p is string => typeof p === 'string');
  return { lines, more: parts.length === 0 ? null : `and ${parts.join(', ')}` };
}
