/**
 * The process metrics every Prometheus client exports under the standard names (CPU, memory, start time, open
 * descriptors), read at scrape time. Not prom-client's collectDefaultMetrics: its event-loop-lag monitor keeps
 * a timer waking the daemon between scrapes, and the daemon should do no work for metrics between scrapes.
 */
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { single, type PulledMetric } from './pulled-metric';

const MICROSECONDS_PER_SECOND = 1e6;
/** Linux lists a process's open descriptors here; elsewhere the metric is absent. */
const OWN_FD_DIR = '/proc/self/fd';

export const PROCESS_METRICS: readonly PulledMetric[] = [
  {
    name: 'process_cpu_seconds_total',
    help: 'User and system CPU time spent, in seconds',
    type: 'counter',
    labels: [],
    samples: () => {
      const { user, system } = process.cpuUsage();
      return single((user + system) / MICROSECONDS_PER_SECOND);
    },
  },
  {
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size, in bytes',
    type: 'gauge',
    labels: [],
    samples: () => single(process.memoryUsage.rss()),
  },
  {
    name: 'process_start_time_seconds',
    help: 'When the process started, in seconds since the Unix epoch',
    type: 'gauge',
    labels: [],
    samples: () => single(performance.timeOrigin / 1000),
  },
  {
    name: 'process_open_fds',
    help: 'Open file descriptors (sockets included)',
    type: 'gauge',
    labels: [],
    samples: () => single(openFds()),
  },
];

function openFds(): number | undefined {
  try {
    return readdirSync(OWN_FD_DIR).length;
  } catch {
    return undefined;
  }
}
