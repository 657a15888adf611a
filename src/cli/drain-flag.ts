/**
 * The members table's drain flag (`mlb status --once` and the TUI): whether a member is drained and who asked,
 * from the newest drain request every node hears in gossip, so each node's status says the same. The drained
 * state itself is the member's own gossip meta; the request only names who asked.
 */
import type { ControlSnapshot } from '../daemon/control/control-snapshot';

type Member = ControlSnapshot['members'][number];

/** "drained by node-1", "drain asked by node-1", "undrain by node-3 FAILED", "draining", or false for none. */
export function drainFlag(m: Member): string | false {
  const d = m.drain;
  if (d?.outcome === 'pending') return `${d.action} asked by ${d.requestedBy}`;
  if (d?.outcome === 'failed') return `${d.action} by ${d.requestedBy} FAILED`;
  // A drained member that is also leaving shows who drained it; one only leaving (stopping) shows "draining".
  if (m.draining && d?.action === 'drain') return `drained by ${d.requestedBy}`;
  return m.draining && 'draining';
}
