/**
 * A daemon's --node-name that no Node document of its file describes, in a file that lists Nodes: the host
 * then takes none of the labels and conditions written for it (node-facts.ts reads the document of its own
 * name), so nodeSelectors meant for it miss it. Most often a typo, or the short hostname where the file has
 * the full one. Pure: the daemon logs it at load, `mlb validate --node-name` prints it.
 */
import { closestMatch } from './did-you-mean';
import { DiagnosticCode } from './diagnostic-codes';
import type { Diagnostic } from '../diagnostic';
import type { Snapshot } from '../snapshot';
import { listed } from './warnings';

export function nodeNameWarning(snapshot: Snapshot, nodeName: string): Diagnostic | undefined {
  const names = snapshot.nodes.map((n) => n.meta.name);
  if (names.length === 0 || names.includes(nodeName)) return undefined;
  const suggestion = names.find((n) => sameHost(n, nodeName)) ?? closestMatch(nodeName, names);
  const first = firstWritten(snapshot);
  return {
    severity: 'warning',
    code: DiagnosticCode.nodeNameNotInConfig,
    message: `--node-name "${nodeName}" is not among the file's Nodes (${listed(names)}): this host gets none of their labels or conditions${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
    ...(first ? { position: first } : {}),
  };
}

/** "web-1" and "web-1.example.com": the short hostname against the full one. */
function sameHost(a: string, b: string): boolean {
  return a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/** The position of the Node document written first (the Snapshot lists them by name). */
function firstWritten(snapshot: Snapshot): Diagnostic['position'] {
  const positions = snapshot.nodes.map((n) => n.meta.position).filter((p) => p !== undefined);
  return positions.sort((a, b) => a.line - b.line || a.column - b.column)[0];
}
