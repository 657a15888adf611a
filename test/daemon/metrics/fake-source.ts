/**
 * A MetricsSource with a snapshot and counters a test sets, and a real EventLog to record daemon events into:
 * what the speaker gives the metrics registry, without gossip or sockets.
 */
import { CONTROL_API_VERSION, type ControlSnapshot } from '../../../src/daemon/control/control-snapshot';
import { EventLog, type DaemonEvent } from '../../../src/daemon/daemon-events';
import type { MetricsCounters, MetricsSource } from '../../../src/daemon/metrics';

type Service = ControlSnapshot['services'][number];

export function service(fields: Partial<Service> & Pick<Service, 'service' | 'ips'>): Service {
  return {
    protocol: 'layer2',
    owner: null,
    announcing: [],
    since: null,
    health: { checked: false, passing: [], failing: [] },
    allocation: { status: 'ok' },
    candidates: [],
    ...fields,
  };
}

export function member(name: string, state: ControlSnapshot['members'][number]['state']): ControlSnapshot['members'][number] {
  return { name, addr: '127.0.0.1:7946', state, mlb: true, labels: {}, draining: false, warmingUp: false };
}

/** node-a, configuration loaded and good, no members, services, announcements or conflicts. */
function emptySnapshot(): ControlSnapshot {
  return {
    apiVersion: CONTROL_API_VERSION,
    generatedAt: '2024-05-01T10:00:00.000Z',
    node: {
      name: 'node-a',
      version: '1.2.3',
      startedAt: '2024-05-01T09:00:00.000Z',
      draining: false,
      warmingUp: false,
      warmUpUntil: null,
      leaving: false,
      gossip: { bind: '127.0.0.1:7946', profile: 'fast', encrypted: false, healthScore: 0 },
    },
    config: { file: '/etc/mlb/mlb.yaml', state: 'ok', loadedAt: '2024-05-01T09:00:01.500Z', errors: [] },
    members: [],
    mlbOnlyInputs: { allowed: true, reason: 'every live member runs mlb' },
    allocation: { allocator: 'node-a', version: 1 },
    services: [],
    local: { announced: [], bound: [] },
    conflicts: [],
  };
}

export class FakeSource implements MetricsSource {
  current: ControlSnapshot = emptySnapshot();
  counters: MetricsCounters | undefined = undefined;
  snapshotCalls = 0;
  fail: Error | undefined;
  readonly events = new EventLog();
  subscribers = 0;

  snapshot(): ControlSnapshot {
    if (this.fail) throw this.fail;
    this.snapshotCalls++;
    return this.current;
  }

  metricsCounters(): MetricsCounters {
    return this.counters ?? {};
  }

  subscribeEvents(listener: (event: DaemonEvent) => void): () => void {
    this.subscribers++;
    const off = this.events.subscribe(listener);
    return () => {
      this.subscribers--;
      off();
    };
  }
}
