import { compareDiagnosticPositions, type Diagnostic } from '../diagnostic';
import type { SourcePosition } from '../types';
import type { DiagnosticCodeName } from './diagnostic-codes';

/** Collects diagnostics while a configuration is read; one sink per parse. */
export class DiagnosticSink {
  private readonly items: Diagnostic[] = [];

  error(code: DiagnosticCodeName, message: string, position?: SourcePosition, object?: string): void {
    this.add('error', code, message, position, object);
  }

  warning(code: DiagnosticCodeName, message: string, position?: SourcePosition, object?: string): void {
    this.add('warning', code, message, position, object);
  }

  note(code: DiagnosticCodeName, message: string, position?: SourcePosition, object?: string): void {
    this.add('note', code, message, position, object);
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  /** How many diagnostics so far: a mark to return to with `dropSince`. */
  get count(): number {
    return this.items.length;
  }

  /** Whether an error arrived after `mark` (a document read with errors). */
  errorSince(mark: number): boolean {
    return this.items.slice(mark).some((d) => d.severity === 'error');
  }

  /** Forgets what arrived after `mark`: the findings about half an object, once it is known to be cut in two. */
  dropSince(mark: number): void {
    this.items.length = Math.min(this.items.length, mark);
  }

  /** Every diagnostic in file order (line, then column); ones without a position come last, in arrival order. */
  sorted(): Diagnostic[] {
    return sortDiagnostics(this.items);
  }

  private add(
    severity: Diagnostic['severity'],
    code: DiagnosticCodeName,
    message: string,
    position: SourcePosition | undefined,
    object: string | undefined,
  ): void {
    this.items.push({
      severity,
      code,
      message,
      ...(position !== undefined && { position }),
      ...(object !== undefined && { object }),
    });
  }
}

export function sortDiagnostics(items: readonly Diagnostic[]): Diagnostic[] {
  // Array.prototype.sort is stable, so diagnostics at one position keep the order they were found in.
  return [...items].sort(compareDiagnosticPositions);
}
