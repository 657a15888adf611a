/**
 * The metrics made of events rather than state: owner changes (how often each service's IP moved, and how long
 * it had no holder before the new one took it) and configuration reloads. The registry feeds them the daemon's
 * event stream (daemon-events.ts), the same events the control API streams and the logs record.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { DaemonEvent } from '../daemon-events';

/**
 * Seconds. 0 holds the handovers (the old owner kept answering until the new one took over); the rest spans a
 * fast-profile failover (about a second from the crashed owner's last packet) to an IP left without any passing
 * node for minutes.
 */
export const UNHELD_BUCKETS_SECONDS: readonly number[] = [0, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];

export type OwnerChangeEvent = Extract<DaemonEvent, { type: 'ownerChanged' }>;

/**
 * Whether an ownerChanged event is a move worth counting, given whether the IPs had a holder before in this
 * daemon's life. The first holder after start-up, or after the service appeared, also comes as nobody -> X (with
 * the time the health checks took as its gap); it moved nothing and measures the daemon's start, not an outage.
 */
export function isOwnerMove(e: OwnerChangeEvent, heldBefore: boolean): boolean {
  return heldBefore || e.from.length > 0;
}

/** One service's IPs under one protocol, as owner-history.ts keys them. */
const holdingOf = (e: OwnerChangeEvent) => `${e.service}|${e.protocol}|${e.ips.join(',')}`;

export class EventMetrics {
  private readonly ownerChanges: Counter<'service' | 'protocol'>;
  private readonly unheld: Histogram<'protocol'>;
  private readonly reloads: Counter<'result'>;
  /** IPs that have had a holder since start (one entry per service and protocol ever held: a few hundred). */
  private readonly everHeld = new Set<string>();

  constructor(registry: Registry) {
    this.ownerChanges = new Counter({
      name: 'mlb_owner_changes_total',
      help: "Times a service's IPs got other holders (a move, a withdrawal, a return), as this node saw the election; first holders after start excluded",
      labelNames: ['service', 'protocol'],
      registers: [registry],
    });
    this.unheld = new Histogram({
      name: 'mlb_owner_change_unheld_seconds',
      help: "For each new holder of an IP: how long nobody answered for it before, as this node saw the election (0 for a handover; after a crash, from the crashed holder's last packet, so the time to detect it is included)",
      labelNames: ['protocol'],
      buckets: [...UNHELD_BUCKETS_SECONDS],
      registers: [registry],
    });
    this.reloads = new Counter({
      name: 'mlb_config_reloads_total',
      help: 'Configuration file edits picked up, by result (success, or failure: rejected, the last good configuration kept)',
      labelNames: ['result'],
      registers: [registry],
    });
    // Present from the start, so an alert on increase(...{result="failure"}) has a series to look at.
    this.reloads.inc({ result: 'success' }, 0);
    this.reloads.inc({ result: 'failure' }, 0);
  }

  observe(event: DaemonEvent): void {
    switch (event.type) {
      case 'ownerChanged': {
        const key = holdingOf(event);
        const move = isOwnerMove(event, this.everHeld.has(key));
        if (event.to.length > 0) this.everHeld.add(key);
        if (!move) return;
        this.ownerChanges.inc({ service: event.service, protocol: event.protocol });
        if (event.unheldMs !== null) this.unheld.observe({ protocol: event.protocol }, event.unheldMs / 1000);
        return;
      }
      case 'configReloaded':
        this.reloads.inc({ result: 'success' });
        return;
      case 'configStale':
        this.reloads.inc({ result: 'failure' });
        return;
      default:
    }
  }
}
