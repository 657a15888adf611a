import { compareDiagnosticPositions, type Diagnostic } from '../diagnostic';
import type { SourcePosition } from '../types';
import type { DiagnosticCodeName } from './diagnostic-codes';

/** How a sink reports objects that came from the Kubernetes API rather than from a file. */
export interface SinkOptions {
  /**
   * Codes reported as warnings rather than errors. For API objects: a field mlb does not know comes from an API
   * newer than mlb (the API server has already enforced the schema) and must not stop the whole configuration,
   * just as MetalLB's own decoder ignores it.
   */
  readonly warnOnly?: ReadonlySet<DiagnosticCodeName>;
  /** False: no positions (API objects have no file and line; the object named in each diagnostic says where). */
  readonly positions?: boolean;
}

/** Collects diagnostics while a configuration is read; one sink per parse. */
export class DiagnosticSink {
  private readonly items: Diagnostic[] = [];

  constructor(private readonly options: SinkOptions = {}) {}

  error(code: DiagnosticCodeName, message: string, position?: SourcePosition, object?: string): void {
    this.add(this.options.warnOnly?.has(code) ? 'warning' : 'error', code, message, position, object);
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

  /** What arrived after `mark`, in order: a document's own findings, kept to be replayed (document-cache.ts). */
  since(mark: number): Diagnostic[] {
    return this.items.slice(mark);
  }

  /** Adds diagnostics another sink of the same options reported (a document read in an earlier parse). */
  replay(diagnostics: readonly Diagnostic[]): void {
    for (const d of diagnostics) this.items.push(d);
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
      ...(position !== undefined && this.options.positions !== false && { position }),
      ...(object !== undefined && { object }),
    });
  }
}

export function sortDiagnostics(items: readonly Diagnostic[]): Diagnostic[] {
  // Array.prototype.sort is stable, so diagnostics at one position keep the order they were found in.
  return [...items].sort(compareDiagnosticPositions);
}
