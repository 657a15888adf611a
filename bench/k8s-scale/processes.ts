// The processes the Kubernetes scale bench starts, each as users run it from the built bundle (dist/mlb.mjs):
// `mlb controller` and `mlb daemon --kubernetes`, plus the baseline client; their output kept for the rows that
// read logs (pino JSON lines) and for failure messages. Every child is killed on exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeApiServer } from '../../test/support/fake-apiserver';
import { NS } from './cluster-objects';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MLB_BUNDLE = join(REPO_ROOT, 'dist/mlb.mjs');
const BASELINE_SCRIPT = fileURLToPath(new URL('./status-baseline.mjs', import.meta.url));

/** BENCH_K8S_CPU_PROF=DIR: the controller and the speaker write a CPU profile there when they exit. */
const CPU_PROF_DIR = process.env['BENCH_K8S_CPU_PROF'];
const profiling = (): string[] => (CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []);
/** BENCH_K8S_HEAP_SNAPSHOT=DIR: the speaker writes a heap snapshot there on SIGUSR2 (the bench sends it once settled). */
export const HEAP_SNAPSHOT_DIR = process.env['BENCH_K8S_HEAP_SNAPSHOT'];
/** BENCH_K8S_SPEAKER_NODE_FLAGS="--max-semi-space-size=1": more node flags for the speaker alone (what one does to its RSS). */
const speakerNodeFlags = (): string[] => (process.env['BENCH_K8S_SPEAKER_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
const heapSnapshots = (): string[] => (HEAP_SNAPSHOT_DIR ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${HEAP_SNAPSHOT_DIR}`] : []);

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface Started {
  readonly child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  /** The JSON log lines whose `event` is one of `events`. */
  logEvents(events: readonly string[]): Record<string, unknown>[];
  exited: Promise<number | null>;
}

function track(child: ChildProcess): Started {
  children.add(child);
  let text = '';
  child.stdout?.on('data', (b: Buffer) => (text += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  const logEvents = (events: readonly string[]): Record<string, unknown>[] => {
    const out: Record<string, unknown>[] = [];
    for (const line of text.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (events.includes(entry['event'] as string)) out.push(entry);
      } catch {
        // a line cut by the read: the next call sees it whole
      }
    }
    return out;
  };
  return { child, output: () => text, logEvents, exited };
}

export function startBaseline(api: FakeApiServer, count: number, concurrency: number): Started {
  return track(
    spawn(process.execPath, [BASELINE_SCRIPT, api.url, String(count), String(concurrency)], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

export function startController(api: FakeApiServer, dir: string, ports: { metrics: number; health: number }): Started {
  mkdirSync(dir, { recursive: true });
  const kubeconfig = api.kubeconfigPath(dir, `system:serviceaccount:${NS}:controller`);
  const args = [
    ...profiling(),
    ...[MLB_BUNDLE, 'controller', '--kubeconfig', kubeconfig, '--namespace', NS],
    ...['--metrics-bind', `127.0.0.1:${ports.metrics}`, '--health-bind', `127.0.0.1:${ports.health}`],
  ];
  return track(
    spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, METALLB_POD_NAME: 'controller-0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

export interface SpeakerSpawn {
  readonly dir: string;
  readonly node: string;
  readonly bindAddress: string;
  readonly bindPort: number;
  readonly healthPort: number;
  readonly metricsPort: number;
}

/** `mlb daemon --kubernetes --no-announce`: elects and reports, binds nothing (no root needed). */
export function startSpeaker(api: FakeApiServer, s: SpeakerSpawn): Started {
  mkdirSync(s.dir, { recursive: true });
  const keyDir = join(s.dir, 'memberlist');
  mkdirSync(keyDir, { recursive: true });
  writeFileSync(join(keyDir, 'secretkey'), 'c2VjcmV0LXNlY3JldC0xMg', { mode: 0o400 });
  const args = [
    ...profiling(),
    ...heapSnapshots(),
    ...speakerNodeFlags(),
    ...[MLB_BUNDLE, 'daemon', '--kubernetes', '--kubeconfig', api.kubeconfigPath(s.dir, `system:serviceaccount:${NS}:speaker`)],
    ...['--no-announce', '--state-dir', join(s.dir, 'state'), '--control-socket', join(s.dir, 'mlb.sock')],
    ...['--health-bind', `127.0.0.1:${s.healthPort}`, '--metrics-bind', `127.0.0.1:${s.metricsPort}`],
  ];
  return track(
    spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        METALLB_NODE_NAME: s.node,
        METALLB_NAMESPACE: NS,
        METALLB_POD_NAME: `speaker-${s.node}`,
        METALLB_ML_BIND_ADDR: s.bindAddress,
        METALLB_ML_BIND_PORT: String(s.bindPort),
        METALLB_ML_LABELS: 'app=metallb,component=speaker',
        METALLB_ML_SECRET_KEY_PATH: keyDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}
