/**
 * A daemon as the control API shows it, without gossip or sockets to the network: a ControlServer on a temporary
 * unix socket with a fake provider (a fixed snapshot, explanations from the real offline election of
 * examples/plain-host.yaml, a drain flag). Also an asynchronous `mlb` runner: the CLI tests' spawnSync would
 * block the event loop the fake server answers on.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Explanation } from '../../../src/election';
import {
  CONTROL_API_VERSION,
  ControlServer,
  type ControlProvider,
  type ControlSnapshot,
  type DrainResult,
} from '../../../src/daemon/control';
import { EventLog, type DaemonEvent } from '../../../src/daemon/daemon-events';
import { readConfig } from '../../../src/cli/config-input';
import { allocate, electOffline } from '../../../src/cli/offline-cluster';
import { MLB_BUNDLE, REPO_ROOT, type CliRun } from '../../cli/run-cli';

export const EXAMPLE_CONFIG = 'examples/plain-host.yaml';
export const EXAMPLE_NODES = ['node-a', 'node-b', 'node-c'];

/** The explanations `mlb explain --config examples/plain-host.yaml --nodes node-a,node-b,node-c` prints. */
export async function exampleExplanations(): Promise<Explanation[]> {
  const loaded = await readConfig(`${REPO_ROOT}${EXAMPLE_CONFIG}`);
  if (!loaded.snapshot) throw new Error(`${EXAMPLE_CONFIG} does not load`);
  return [...electOffline(loaded.snapshot, allocate(loaded.snapshot), EXAMPLE_NODES).explanations];
}

/** A three-node cluster with one plain MetalLB speaker, wide cells (IPv6, many labels) and a conflict. */
export function exampleSnapshot(draining = false): ControlSnapshot {
  const at = '2024-05-01T10:00:00.000Z';
  return {
    apiVersion: CONTROL_API_VERSION,
    generatedAt: at,
    node: {
      name: 'node-a',
      version: '0.1.0',
      startedAt: '2024-05-01T07:40:00.000Z',
      draining,
      warmingUp: false,
      warmUpUntil: null,
      leaving: false,
      gossip: { bind: '10.0.0.11:7946', profile: 'fast', encrypted: true, healthScore: 0 },
    },
    config: {
      file: '/etc/mlb/mlb.yaml',
      state: 'stale',
      loadedAt: '2024-05-01T09:00:00.000Z',
      errors: ['/etc/mlb/mlb.yaml:12:7: spec.addresses[0]: invalid CIDR "10.0.0.300/32"'],
    },
    members: [
      {
        name: 'node-b',
        addr: '10.0.0.12:7946',
        state: 'alive',
        mlb: true,
        labels: {
          'topology.kubernetes.io/zone': 'rack-2-with-a-long-name',
          'kubernetes.io/hostname': 'node-b',
          'node-role.kubernetes.io/worker': '',
        },
        draining: false,
        warmingUp: true,
      },
      { name: 'node-a', addr: '10.0.0.11:7946', state: 'alive', mlb: true, labels: { zone: 'a' }, draining, warmingUp: false },
      { name: 'metallb-speaker-xyz', addr: '10.0.0.13:7946', state: 'suspect', mlb: false, labels: {}, draining: false, warmingUp: false },
      { name: 'node-d', addr: '10.0.0.14:7946', state: 'dead', mlb: true, labels: {}, draining: false, warmingUp: false },
    ],
    mlbOnlyInputs: { allowed: false, reason: 'metallb-speaker-xyz runs plain MetalLB: electing exactly as MetalLB does' },
    allocation: { allocator: 'node-b', version: 7 },
    services: [
      {
        service: 'demo/web',
        ips: ['192.168.10.200'],
        protocol: 'layer2',
        owner: 'node-a',
        announcing: ['node-a'],
        since: '2024-05-01T09:55:00.000Z',
        health: { checked: true, passing: ['node-a', 'node-b'], failing: ['node-d'] },
        allocation: { status: 'ok' },
        candidates: [{ node: 'node-a', rank: 1, eligible: true, reason: 'owner' }],
      },
      {
        service: 'a-namespace-with-a-long-name/a-service-with-an-even-longer-name',
        ips: ['fd00:10::1234:5678:9abc:def0', '192.168.10.201'],
        protocol: 'bgp',
        owner: null,
        announcing: ['node-a', 'node-b'],
        since: '2024-04-29T08:00:00.000Z',
        health: { checked: false, passing: [], failing: [] },
        allocation: { status: 'ok' },
        candidates: [],
      },
      {
        service: 'demo/nobody',
        ips: [],
        protocol: 'layer2',
        owner: null,
        announcing: [],
        since: null,
        health: { checked: false, passing: [], failing: [] },
        allocation: { status: 'poolExhausted', message: 'no available IPs in pool "small"' },
        candidates: [],
      },
    ],
    local: { announced: [{ ip: '192.168.10.200', interfaces: ['eth0'] }], bound: ['192.168.10.200'] },
    conflicts: [
      {
        ip: '192.168.10.200',
        mac: '02:42:ac:11:00:99',
        node: null,
        interface: 'eth0',
        firstSeen: '2024-05-01T09:58:00.000Z',
        lastSeen: '2024-05-01T09:59:30.000Z',
        observedBy: 'node-a',
      },
    ],
  };
}

export class FakeProvider implements ControlProvider {
  draining = false;
  failSnapshot = false;
  failEvents = false;
  /** The events /v1/events streams; a test records into it as the speaker would. */
  readonly events = new EventLog();
  /** A test replaces the snapshot to show a change (an owner moving, a config going stale). */
  current: ControlSnapshot | null = null;
  /** Open event subscriptions: each stream holds one until its client goes. */
  subscriptions = 0;

  constructor(private readonly explanations: Explanation[]) {}

  snapshot(): ControlSnapshot {
    if (this.failSnapshot) throw new Error('snapshot exploded');
    return this.current ?? exampleSnapshot(this.draining);
  }
  eventsSince(afterSeq: number): DaemonEvent[] {
    if (this.failEvents) throw new Error('event log exploded');
    return this.events.since(afterSeq);
  }
  subscribeEvents(listener: (event: DaemonEvent) => void): () => void {
    const unsubscribe = this.events.subscribe(listener);
    this.subscriptions++;
    let done = false;
    return () => {
      if (!done) this.subscriptions--;
      done = true;
      unsubscribe();
    };
  }
  explain(): Explanation[] {
    return this.explanations;
  }
  /** Set to make the next drains and undrains fail as the speaker's do when drain.json cannot be written. */
  failDrain: Error | undefined;
  async drain(): Promise<DrainResult> {
    if (this.failDrain) throw this.failDrain;
    const changed = !this.draining;
    this.draining = true;
    return {
      changed,
      message: changed ? 'node-a is draining: its IPs move to the next node in hash order' : 'node-a was already draining',
    };
  }
  async undrain(): Promise<DrainResult> {
    if (this.failDrain) throw this.failDrain;
    const changed = this.draining;
    this.draining = false;
    return { changed, message: changed ? 'node-a takes part in elections again' : 'node-a was not draining' };
  }
  async endWarmUp(): Promise<DrainResult> {
    return { changed: false, message: 'node-a was not warming up' };
  }
}

export const silentLogger = pino({ level: 'silent' });

/** A fresh directory for sockets (unix socket paths must stay under 108 bytes: tmpdir is short). */
export function socketDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mlb-ctl-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startFakeDaemon(path: string): Promise<{ server: ControlServer; provider: FakeProvider }> {
  const provider = new FakeProvider(await exampleExplanations());
  const server = await ControlServer.listen({ path, provider, logger: silentLogger });
  return { server, provider };
}

/** Runs the built bundle without blocking this process (so an in-process server can answer it). */
export function runMlbAsync(args: string[], options: { env?: Record<string, string>; uid?: number; gid?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MLB_BUNDLE, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
