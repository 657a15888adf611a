/**
 * Lab end to end (root): Lab.up builds namespaces on a bridge with mlb daemons and HTTP servers, the client reaches
 * every node on both families, the controls (health, link, daemon kill/start) do what they say, and down() leaves
 * no namespace of the lab behind, also for a half-built lab. VIP ownership is not checked here: that is the
 * daemon's behaviour, tested with the daemon.
 *
 * Runs the built bundle (dist/mlb.mjs, or LAB_TEST_BUNDLE: not MLB*, which mlb reads as flags), which must include
 * `mlb lab`. Each run uses a unique
 * lab name (mlbt-lab-<random>) and a temporary directory. Time: about 10 s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../src/cli/lab/lab';
import { LabError } from '../../src/cli/lab/lab-errors';
import { isAlive, listNetns } from '../../src/cli/lab/netns';
import { parseProbeLine } from '../../src/cli/lab/probe-samples';
import { hostPort } from '../../src/cli/lab/lab-plan';
import { canUseNetns } from '../support/netns-lab';
import { MLB_BUNDLE } from '../cli/run-cli';

const bundle = process.env.LAB_TEST_BUNDLE ?? MLB_BUNDLE;
const netns = canUseNetns();

function bundleHasLab(): boolean {
  if (!existsSync(bundle)) return false;
  return spawnSync(process.execPath, [bundle, 'lab', '--help'], { encoding: 'utf8' }).stdout.includes('mlb lab demo');
}

const skip = !netns.ok
  ? netns.why
  : !existsSync(bundle)
    ? `${bundle} is missing (npm run build)`
    : !bundleHasLab()
      ? `${bundle} has no "mlb lab" command yet (labCommand registered in src/cli/main.ts, then npm run build)`
      : undefined;
if (skip) console.warn(`skipping the lab tests: ${skip}`);

const mlbCommand = [process.execPath, bundle];
const labName = `mlbt-lab-${Math.random().toString(36).slice(2, 8)}`;
const ours = async (name: string) => (await listNetns()).filter((ns) => ns.startsWith(`${name}-`));

/** One `mlb lab probe --count 1` from the client namespace. */
async function probeFromClient(lab: Lab, target: string) {
  const run = await lab.exec('client', [...mlbCommand, 'lab', 'probe', '--target', target, '--count', '1', '--timeout-ms', '500'], 15_000);
  expect(run.status, run.stderr).toBe(0);
  return parseProbeLine(run.stdout.trim());
}

async function healthStatus(lab: Lab, ip: string): Promise<string> {
  const script = `fetch('http://${ip}/healthz').then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`;
  return (await lab.exec('client', [process.execPath, '-e', script], 15_000)).stdout.trim();
}

describe.skipIf(skip !== undefined)('Lab (2 nodes)', () => {
  let lab: Lab;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mlbt-lab-'));
    lab = await Lab.up({ nodes: 2, name: labName, dir: join(dir, 'lab'), mlbCommand });
  });

  afterAll(async () => {
    await lab?.down().catch(() => undefined);
    await Lab.downByName({ name: labName, dir: join(dir, 'lab') }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('made the namespaces of the plan and nothing else', async () => {
    expect((await ours(labName)).sort()).toEqual([`${labName}-br`, `${labName}-client`, `${labName}-node-1`, `${labName}-node-2`]);
  });

  it("lets the client reach every node's HTTP server on its IPv4 and IPv6 address, and see its planned MAC", async () => {
    for (const node of lab.plan.nodes) {
      expect(await probeFromClient(lab, hostPort(node.ipv4)), node.ipv4).toMatchObject({ ok: true, node: node.name });
      expect(await probeFromClient(lab, hostPort(node.ipv6)), node.ipv6).toMatchObject({ ok: true, node: node.name });
      const neighbour = await lab.neighbour(node.ipv4);
      expect(neighbour).toMatchObject({ mac: node.mac, host: node.name });
    }
  });

  it('runs a daemon in every node that can be killed and started again', async () => {
    for (const name of lab.nodeNames) expect(lab.isDaemonRunning(name), name).toBe(true);
    await lab.killDaemon('node-2', 'SIGKILL');
    expect(lab.isDaemonRunning('node-2')).toBe(false);
    expect(lab.isDaemonRunning('node-1')).toBe(true);
    await lab.startDaemon('node-2');
    expect(lab.isDaemonRunning('node-2')).toBe(true);
  });

  it("makes a node's health check fail and pass on demand", async () => {
    const node = lab.node('node-1');
    expect(await healthStatus(lab, node.ipv4)).toBe('200');
    await lab.setHealthy('node-1', false);
    expect(await healthStatus(lab, node.ipv4)).toBe('503');
    await lab.setHealthy('node-1', true);
    expect(await healthStatus(lab, node.ipv4)).toBe('200');
  });

  it('cuts a node off and plugs it back with both addresses', async () => {
    const node = lab.node('node-2');
    await lab.linkDown('node-2');
    expect(await probeFromClient(lab, hostPort(node.ipv4))).toMatchObject({ ok: false });
    await lab.linkUp('node-2');
    expect(await probeFromClient(lab, hostPort(node.ipv4))).toMatchObject({ ok: true, node: 'node-2' });
    expect(await probeFromClient(lab, hostPort(node.ipv6))).toMatchObject({ ok: true, node: 'node-2' });
  });

  it('is found again by another process through its directory, and refuses a second lab of the same name', async () => {
    const again = await Lab.attach(lab.plan.dir);
    expect(again.plan).toEqual(lab.plan);
    expect(again.isDaemonRunning('node-1')).toBe(true);
    const second = await Lab.up({ nodes: 2, name: labName, dir: join(dir, 'other'), mlbCommand }).then(
      () => 'built',
      (e: LabError) => e.code,
    );
    expect(second).toBe('labExists');
    // The refused attempt removed nothing of the running lab.
    expect((await ours(labName)).length).toBe(4);
  });

  it('removes every namespace, process and file on down(), and down() again is harmless', async () => {
    const state = JSON.parse(readFileSync(lab.plan.stateFile, 'utf8')) as {
      processes: Record<string, { daemon?: number; server?: number }>;
    };
    const pids = Object.values(state.processes)
      .flatMap((p) => [p.daemon, p.server])
      .filter((p): p is number => p !== undefined);
    expect(pids).toHaveLength(4);
    const report = await lab.down();
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect([...report.namespaces].sort()).toEqual([`${labName}-br`, `${labName}-client`, `${labName}-node-1`, `${labName}-node-2`]);
    expect(report.dirRemoved).toBe(true);
    expect(await ours(labName)).toEqual([]);
    expect(existsSync(lab.plan.dir)).toBe(false);
    expect((await lab.down()).namespaces).toEqual([]);
  });
});

describe.skipIf(skip !== undefined)('Lab.downByName (a crashed lab)', () => {
  it("removes a half-built lab's namespaces without a state file, and leaves look-alikes alone", async () => {
    const name = `mlbt-lab-${Math.random().toString(36).slice(2, 8)}`;
    const made = [`${name}-br`, `${name}-node-1`, `${name}-other`];
    for (const ns of made) spawnSync('ip', ['netns', 'add', ns]);
    // A process left running inside, as a daemon of a crashed `mlb lab up` would be.
    spawnSync('ip', ['netns', 'exec', `${name}-node-1`, 'sh', '-c', 'sleep 60 >/dev/null 2>&1 &']);
    try {
      const dir = mkdtempSync(join(tmpdir(), 'mlbt-lab-'));
      const report = await Lab.downByName({ name, dir });
      expect([...report.namespaces].sort()).toEqual([`${name}-br`, `${name}-node-1`]);
      expect(await ours(name)).toEqual([`${name}-other`]);
      expect(existsSync(dir)).toBe(false);
    } finally {
      for (const ns of made) spawnSync('ip', ['netns', 'del', ns]);
    }
  });
});
