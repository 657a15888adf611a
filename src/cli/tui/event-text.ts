/**
 * One line per daemon event for the TUI's "recent events": the time, then what happened in words, with alarms
 * (a failed member, a conflict, a stale configuration, an IP nobody holds) marked so the view draws them in red.
 * Pure; an event type this mlb does not know (a newer daemon) still shows, by its type name.
 */
import type { DaemonEvent } from '../../daemon/daemon-events';
import { truncate } from '../text/truncate';

export interface EventText {
  readonly text: string;
  /** Needs attention: drawn in red. */
  readonly alarm: boolean;
}

/** "10:04:05 demo/web 192.168.10.200: node-a -> node-b (unheld 850 ms)", cut to `width`. */
export function eventLine(event: DaemonEvent, width: number): EventText {
  const { text, alarm } = describeEvent(event);
  return { text: truncate(`${clockTime(event.at)} ${text}`, width), alarm };
}

export function describeEvent(event: DaemonEvent): EventText {
  switch (event.type) {
    case 'ownerChanged': {
      const from = holders(event.from);
      const to = holders(event.to);
      // After a crash, the failure detector's share of the gap beside it (owner-history.ts).
      const detected = typeof event.detectionMs === 'number' ? `, ${formatMs(event.detectionMs)} to detect the failure` : '';
      const gap = event.unheldMs === null ? '' : ` (unheld ${formatMs(event.unheldMs)}${detected})`;
      return { text: `${event.service} ${event.ips.join(',')}: ${from} -> ${to}${gap}`, alarm: event.to.length === 0 };
    }
    case 'memberJoined':
      return { text: `${event.member} joined`, alarm: false };
    case 'memberLeft':
      return { text: `${event.member} left`, alarm: false };
    case 'memberFailed':
      return { text: `${event.member} failed (stopped answering gossip)`, alarm: true };
    case 'memberUpdated':
      return { text: `${event.member} updated its labels or flags`, alarm: false };
    case 'healthChanged':
      return {
        text: `${event.service} on ${event.node}: health check ${event.passing ? 'passing' : 'failing'}${event.detail ? ` (${event.detail})` : ''}`,
        alarm: !event.passing,
      };
    case 'conflict':
      return { text: `CONFLICT ${event.ip} answered by ${event.mac} (${event.node ?? 'not a member'}) on ${event.interface}`, alarm: true };
    case 'conflictCleared':
      return { text: `conflict on ${event.ip} over (${event.mac} went quiet)`, alarm: false };
    case 'configReloaded':
      return { text: `configuration reloaded from ${event.file}`, alarm: false };
    case 'configStale':
      return { text: `configuration STALE: ${event.errors[0] ?? event.file}`, alarm: true };
    case 'drainChanged':
      return {
        text: `${event.draining ? 'this node is draining' : 'this node takes part again'}${event.requestedBy ? ` (asked by ${event.requestedBy})` : ''}`,
        alarm: false,
      };
    default:
      return { text: (event as { type: string }).type, alarm: false };
  }
}

function holders(nodes: readonly string[]): string {
  return nodes.length > 0 ? nodes.join(',') : 'nobody';
}

/** "850 ms" below ten seconds (failovers are read in milliseconds), "12.3 s" above. */
export function formatMs(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** HH:MM:SS in this machine's time zone, as the operator's clock shows it; the raw text when unparsable. */
export function clockTime(iso: string): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
