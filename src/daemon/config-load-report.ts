/**
 * What the daemon says about a configuration it has just loaded (at start and after every reload), beyond
 * "loaded": the file's warnings, each service that would get no address (an error of the file on a plain host:
 * allocator/allocation-problems.ts; the daemon still runs every other service, and the file is not refused),
 * and a --node-name that the file's Nodes do not list. The same findings `mlb validate` prints, with the same
 * positions, so an operator who only reads the journal learns the same things.
 */
import type { Logger } from 'pino';
import { allocationProblems } from '../allocator';
import { type Diagnostic, type Snapshot, formatDiagnostic, nodeNameWarning } from '../model';

interface ConfigReportLine {
  readonly level: 'warn' | 'error';
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** Log events: stable names scripts and tests match on. */
const ConfigReportEvent = {
  /** A warning of the file (MetalLB accepts it, but it probably does not do what was meant). */
  configWarning: 'configWarning',
  /** A service of the file that gets no address (MetalLB's AllocationFailed, as a configuration error). */
  serviceGetsNoIP: 'serviceGetsNoIP',
} as const;

/** Pure: the lines to log for a loaded Snapshot on the node named `nodeName`. */
function configReport(snapshot: Snapshot, nodeName: string): ConfigReportLine[] {
  const nodeWarning = nodeNameWarning(snapshot, nodeName);
  const warnings = [...snapshot.warnings, ...(nodeWarning ? [nodeWarning] : [])];
  return [
    ...warnings.map((d) => line('warn', ConfigReportEvent.configWarning, d)),
    ...allocationProblems(snapshot).map((d) => line('error', ConfigReportEvent.serviceGetsNoIP, d)),
  ];
}

function line(level: ConfigReportLine['level'], event: string, d: Diagnostic): ConfigReportLine {
  return {
    level,
    fields: {
      event,
      code: d.code,
      ...(d.position ? { position: `${d.position.file}:${d.position.line}:${d.position.column}` } : {}),
      ...(d.object ? { object: d.object } : {}),
    },
    message: formatDiagnostic(d),
  };
}

export function logConfigReport(logger: Logger, snapshot: Snapshot | undefined, nodeName: string): void {
  if (!snapshot) return;
  for (const entry of configReport(snapshot, nodeName)) logger[entry.level](entry.fields, entry.message);
}
