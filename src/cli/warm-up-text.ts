import type { ControlSnapshot } from '../daemon/control/control-snapshot';
import { warmUpLeftText } from './reason-text';

/**
 * "warming up, 12s left (mlb warmup end ends it now)" for `mlb status` and the TUI header; a daemon too old
 * to say how long is left still gets its end time.
 */
export function warmingUpText(node: Pick<ControlSnapshot['node'], 'warmUpLeftMs' | 'warmUpUntil'>): string {
  if (node.warmUpLeftMs === undefined) return `warming up until ${node.warmUpUntil ?? '?'}`;
  return `warming up, ${warmUpLeftText(node.warmUpLeftMs)} (mlb warmup end ends it now)`;
}
