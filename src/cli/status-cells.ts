/**
 * The cells of the status tables that `mlb status --once` (commands/status.ts) and the Ink view (tui/) both show,
 * so both views read the same. Pure: snapshot in, text out.
 */
import type { ControlStatus } from '../daemon/control/control-snapshot';
import { drainFlag } from './drain-flag';

/** What an empty cell shows, so columns stay readable. */
const NONE = '-';

/** layer2: the owner; BGP: every announcing node; nobody is said loudly (`mlb explain` says why). */
export function ownerText(svc: ControlStatus['services'][number]): string {
  if (svc.protocol === 'layer2') return svc.owner ?? 'NOBODY';
  return svc.announcing.length > 0 ? svc.announcing.join(',') : 'NOBODY';
}

export const MEMBER_HEADER = ['NAME', 'STATE', 'LABELS', 'FLAGS'] as const;
/** Labels give way first, then names and flags; the state is never cut. */
export const MEMBER_SHRINK = [[2], [0, 3]] as const;

/** The members table's cells, by name: NAME, STATE, LABELS, FLAGS (self, metallb, draining, warming-up). */
export function memberCells(s: ControlStatus): string[][] {
  return [...s.members]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((m) => {
      const labels =
        Object.entries(m.labels)
          .map(([k, v]) => `${k}=${v}`)
          .sort()
          .join(',') || NONE;
      const flags = [m.name === s.node.name && 'self', !m.mlb && 'metallb', drainFlag(m), m.warmingUp && 'warming-up'].filter(Boolean);
      return [m.name, m.state, labels, flags.join(',') || NONE];
    });
}
