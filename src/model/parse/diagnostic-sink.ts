import type { Diagnostic } from '../diagnostic';
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

  /** Every diagnostic in file order (line, then column); ones without a position come last, in arrival order. */
  sorted(): Diagnostic[] {
    return sortDiagnostics(this.items);
  }

  private add(
    severity: Diagnostic['severity'], code: DiagnosticCodeName, message: string,
    position: SourcePosition | undefined, object: string | undefined,
  ): void {
    this.items.push({
      severity, code, message,
      ...(position !== undefined && { position }),
      ...(object !== undefined && { object }),
    });
  }
}

export function sortDiagnostics(items: readonly Diagnostic[]): Diagnostic[] {
  // Array.prototype.sort is stable, so diagnostics at one position keep the order they were found in.
  return [...items].sort((a, b) => {
    if (!a.position || !b.position) return (a.position ? 0 : 1) - (b.position ? 0 : 1);
    return a.position.line - b.position.line || a.position.column - b.position.column;
  });
}
