/**
 * The request log: one entry per request, as the apiserver's audit log would record it, so that a test can assert
 * "no request was forbidden", "the controller never used services: update", or "this informer did not hot-loop"
 * (count the watches of a path).
 */

export interface AuditEntry {
  /** Milliseconds since the fake started (ordering and rates; never a test's assertion on its own). */
  at: number;
  method: string;
  path: string;
  query: string;
  /** RBAC verb (get, list, watch, create, update, patch, delete, deletecollection) or the method of a non-resource URL. */
  verb: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  subject: string;
  code: number;
  /** Why a request failed (the Status reason), when it did. */
  reason?: string;
}

export class AuditLog {
  readonly entries: AuditEntry[] = [];
  private readonly started = performance.now();

  record(entry: Omit<AuditEntry, 'at'>): void {
    this.entries.push({ at: performance.now() - this.started, ...entry });
  }

  /** Entries matching every given field. */
  filter(match: Partial<AuditEntry>): AuditEntry[] {
    return this.entries.filter((entry) => Object.entries(match).every(([key, value]) => entry[key as keyof AuditEntry] === value));
  }

  count(match: Partial<AuditEntry> = {}): number {
    return this.filter(match).length;
  }

  /** Every request RBAC refused: an end-to-end test asserts this is empty. */
  forbidden(): AuditEntry[] {
    return this.filter({ code: 403 });
  }

  clear(): void {
    this.entries.length = 0;
  }
}
