/**
 * What `mlb status` says when the live members' configuration files differ (the snapshot's configAgreement):
 * one line per node whose file differs, what this node retains from its last good file, and what the allocator
 * keeps allocated because a member still defines it. Pure; --once and the TUI header both use it.
 */
import type { ControlStatus } from '../daemon/control/control-snapshot';

/** Full sentences, for --once: every divergent node, every retained service, every withheld release. */
export function divergenceLines(s: ControlStatus): string[] {
  const a = s.configAgreement;
  if (!a) return [];
  return [
    ...(a.refused ?? []).map((r) => r.message),
    ...a.divergent.map((d) => d.message),
    ...a.retained.map(
      (r) =>
        `${r.service}: no longer in this node's file; still announced from the last good definition (defined by ${r.definedBy.join(', ')})`,
    ),
    ...a.withheld.map(
      (w) => `${w.service}: not in this node's file; allocation ${w.ips.join(', ')} kept (defined by ${w.definedBy.join(', ')})`,
    ),
    ...(a.awaiting.length > 0 ? [`waiting for the configuration facts of ${a.awaiting.join(', ')}`] : []),
    ...(a.silent.length > 0 ? [`${a.silent.join(', ')} publish no configuration facts (an older mlb): not compared`] : []),
  ];
}

/** One short line for the TUI header, null when every compared member has this node's configuration. */
export function divergenceSummary(s: ControlStatus): string | null {
  const a = s.configAgreement;
  const refused = a?.refused ?? [];
  if (!a || (a.divergent.length === 0 && a.retained.length === 0 && refused.length === 0)) return null;
  const nodes = a.divergent.map(
    (d) => `${d.node} (${d.services} services vs ${a.services}${d.lacks.length > 0 ? `, lacks ${d.lacks.join(', ')}` : ''})`,
  );
  const parts = [
    refused.length > 0 && `FILE REFUSED on ${refused.map((r) => r.node).join(', ')}`,
    nodes.length > 0 && `DIFFERS on ${nodes.join('; ')}`,
    a.retained.length > 0 && `retaining ${a.retained.map((r) => r.service).join(', ')}`,
  ].filter((p): p is string => typeof p === 'string');
  return parts.join('; ');
}
