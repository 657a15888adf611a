/**
 * This node's health checks, wired: a HealthMonitor runs the probes (as --health-check-user when given), and its
 * results feed a HealthReportSharing, which tells the cluster. A flip publishes the node's report and asks for a
 * recomputation; every probe may change the failing-check details `mlb explain` shows elsewhere.
 */
import type { Logger } from 'pino';
import type { Clock, Scheduler } from '../../runtime/runtime';
import type { RecordsChannel } from '../records/records-wire';
import { HealthMonitor, type Prober } from './health-monitor';
import { runProbe } from './health-probers';
import { HealthReportSharing } from './health-report-sharing';
import type { RunAs } from './run-as';

export interface HealthChecksOptions {
  readonly self: string;
  readonly epoch: number;
  readonly wire: RecordsChannel;
  readonly logger: Logger;
  readonly runtime?: Clock & Scheduler;
  /** A check's verdict flipped: an election input changed. */
  readonly onChange: () => void;
  /** This node's own check of a service flipped. */
  readonly onHealthChange?: (service: string, passing: boolean, detail: string) => void;
  /** exec: health checks run as this user (--health-check-user); the daemon's own ids otherwise. */
  readonly healthCheckRunAs?: RunAs;
  /** Runs one health check; the real probes (as healthCheckRunAs) by default. */
  readonly healthProbe?: Prober;
}

export function startHealthChecks(options: HealthChecksOptions): {
  readonly monitor: HealthMonitor;
  readonly sharing: HealthReportSharing;
} {
  const runAs = options.healthCheckRunAs;
  const probe: Prober | undefined = options.healthProbe ?? (runAs ? (spec, signal) => runProbe(spec, signal, runAs) : undefined);
  const monitor = new HealthMonitor({
    logger: options.logger,
    node: options.self,
    ...(options.runtime ? { runtime: options.runtime } : {}),
    ...(probe ? { probe } : {}),
  });
  const sharing = new HealthReportSharing(options.self, options.epoch, options.wire, monitor);
  // The monitor logs each flip itself (healthCheckPassing / healthCheckFailing).
  monitor.on('change', (key, result) => {
    options.onHealthChange?.(key, result.state === 'passing', result.detail);
    sharing.publishReport();
    options.onChange();
  });
  monitor.on('probed', (key, result) => sharing.probed(key, result));
  return { monitor, sharing };
}
