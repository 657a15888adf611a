/**
 * What `mlb validate` reports about a file beyond parsing it: the services that would get no address (errors on
 * a plain host, where the file is the whole truth: allocator/allocation-problems.ts) and, given --node-name, a
 * host name the file's Nodes do not list. The parser's own errors, warnings and notes come first in the same
 * list, so everything prints in file order.
 */
import { type AllocateServicesOutput, allocationProblems } from '../allocator';
import { type Diagnostic, type Snapshot, errorsFirst, nodeNameWarning } from '../model';

export interface ValidateFindings {
  /** Every diagnostic: errors, then warnings, then notes, each in file order. */
  readonly diagnostics: readonly Diagnostic[];
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  readonly notes: readonly Diagnostic[];
  /** How many of the errors are services that get no address (the file itself loads). */
  readonly servicesWithoutIP: number;
}

export function validateFindings(
  parsed: readonly Diagnostic[],
  snapshot: Snapshot | undefined,
  allocation: AllocateServicesOutput | undefined,
  nodeName: string | undefined,
): ValidateFindings {
  const problems = snapshot && allocation ? allocationProblems(snapshot, allocation) : [];
  const nodeWarning = snapshot && nodeName !== undefined ? nodeNameWarning(snapshot, nodeName) : undefined;
  const diagnostics = errorsFirst([...parsed, ...problems, ...(nodeWarning ? [nodeWarning] : [])]);
  return {
    diagnostics,
    errors: diagnostics.filter((d) => d.severity === 'error'),
    warnings: diagnostics.filter((d) => d.severity === 'warning'),
    notes: diagnostics.filter((d) => d.severity === 'note'),
    servicesWithoutIP: problems.length,
  };
}

/** The closing line when the file loads but some services would get no address. */
export function servicesWithoutIPLine(file: string, count: number): string {
  return `${file}: invalid: ${count} service(s) would get no IP; a running daemon loads the file, runs the other services and logs these errors`;
}
