/**
 * Ending a warm-up early, as an operator after planned maintenance, with two real daemons on loopback
 * (--no-announce): node-b, killed with -9 while serving, warms up at its next start; `mlb status` and `mlb explain`
 * show the time left; `mlb warmup end` ends it, the daemon logs it (warmUpEnded, reason "operator") and node-a's
 * election takes node-b as a steady node again.
 */
import { until } from '../support/until';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectControl } from '../../src/cli/control-client';
import { runMlb } from '../cli/run-cli';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPort } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-warmup-end-'));
const running: RunningDaemon[] = [];
afterAll(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const WAIT_MS = 20_000;
/** A service with a fixed IP and no health check in the example file. */
const SERVICE = 'demo/dns-tcp';
const socket = (name: string) => join(dir, `${name}.sock`);

function daemon(name: string, port: number, extra: string[] = []): RunningDaemon {
  const d = startDaemon([
    '--config',
    'examples/plain-host.yaml',
    '--node-name',
    name,
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--state-dir',
    join(dir, name),
    '--control-socket',
    socket(name),
    '--no-announce',
    ...extra,
  ]);
  running.push(d);
  return d;
}

const reasonOf = async (viewer: string, node: string) => {
  const [e] = await connectControl(socket(viewer)).getExplain({ services: [SERVICE] });
  return e?.candidates.find((c) => c.node === node);
};

describe('mlb warmup end', () => {
  it("shows the warm-up left in status and explain, and ends it on an operator's word", async () => {
    const portA = await freeLoopbackPort();
    daemon('node-a', portA);
    const portB = await freeLoopbackPort();
    const join = ['--join', `127.0.0.1:${portA}`];
    // Two crashes while serving: a 60 s warm-up (30 s doubled), room enough for a slow machine to act within it.
    for (let crash = 0; crash < 2; crash++) {
      const crashed = daemon('node-b', portB, join);
      await crashed.waitFor((l) => l.event === 'runRecorded', WAIT_MS);
      crashed.child.kill('SIGKILL');
      await crashed.exited();
    }
    const b = daemon('node-b', portB, join);
    expect(await b.waitFor((l) => l.event === 'warmUpStarted', WAIT_MS)).toMatchObject({ uncleanEnds: 2, durationMs: 60_000 });

    // node-b's own view: warming up, and how long is left.
    const warming = await until(
      'node-b to defer to node-a while warming up',
      async () => {
        const c = await reasonOf('node-b', 'node-b');
        return c?.reason === 'nodeWarmingUp' && c.warmUpLeftMs !== undefined ? c : undefined;
      },
      WAIT_MS,
    );
    expect(warming.warmUpLeftMs).toBeGreaterThan(0);
    expect(warming.warmUpLeftMs).toBeLessThanOrEqual(60_000);
    const explain = runMlb(['explain', SERVICE, '--socket', socket('node-b')]);
    expect(explain.stdout).toMatch(/node-b is warming up after recent restarts \(flap damping\), \d+s left: defers to steadier nodes/);
    const once = runMlb(['status', '--once', '--socket', socket('node-b')]);
    expect(once.stdout).toMatch(/node-b \(mlb [^)]*\): warming up, \d+s left/);
    const json = JSON.parse(runMlb(['status', '--json', '--socket', socket('node-b')]).stdout) as {
      node: { warmingUp: boolean; warmUpLeftMs?: number };
    };
    expect(json.node.warmingUp).toBe(true);
    expect(json.node.warmUpLeftMs).toBeGreaterThan(0);
    expect(json.node.warmUpLeftMs).toBeLessThanOrEqual(60_000);

    const ended = runMlb(['warmup', 'end', '--socket', socket('node-b')]);
    expect(ended.status).toBe(0);
    expect(ended.stdout).toBe('node-b ended its warm-up: it may be elected again now\n');
    const line = await b.waitFor((l) => l.event === 'warmUpEnded', WAIT_MS);
    expect(line).toMatchObject({ level: 'info', reason: 'operator' });
    expect(line.leftMs).toBeGreaterThan(0);

    // node-a hears node-b's new meta and elects it as any steady node.
    const seen = await until(
      'node-a to take node-b as eligible',
      async () => {
        const c = await reasonOf('node-a', 'node-b');
        return c?.eligible ? c : undefined;
      },
      WAIT_MS,
    );
    expect(['owner', 'notOwner']).toContain(seen.reason);
    const after = JSON.parse(runMlb(['status', '--json', '--socket', socket('node-b')]).stdout) as {
      node: { warmingUp: boolean; warmUpLeftMs?: number };
    };
    expect(after.node.warmingUp).toBe(false);
    expect(after.node.warmUpLeftMs).toBeUndefined();

    const again = runMlb(['warmup', 'end', '--socket', socket('node-b')]);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('node-b was not warming up\n');
    expect(b.lines.filter((l) => l.event === 'warmUpEnded')).toHaveLength(1);
  }, 120_000);
});
