/**
 * `Lab.up({ bgp: true })` end to end (root, FRR): the lab's FRR router (passive peer group, /32 only) has a session
 * with each node's mlb daemon and the BGP service's /32 installed in zebra with both nodes as next hops (ECMP);
 * the client reaches the routed address through it; down() leaves no namespace, no FRR process and no file.
 *
 * Runs the built bundle (dist/mlb.mjs, or LAB_TEST_BUNDLE). Unique lab name, temporary directory. Time: about 10 s.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../src/cli/lab/lab';
import { LabError } from '../../src/cli/lab/lab-errors';
import { LabService, expectedServiceIPs } from '../../src/cli/lab/lab-config';
import { hostPort } from '../../src/cli/lab/lab-plan';
import { isAlive, listNetns } from '../../src/cli/lab/netns';
import { parseProbeLine } from '../../src/cli/lab/probe-samples';
import { readPid, waitFor } from '../../src/cli/lab/router-shell';
import { routerLabSkipReason } from '../support/routers';
import { MLB_BUNDLE } from '../cli/run-cli';

const bundle = process.env.LAB_TEST_BUNDLE ?? MLB_BUNDLE;
const hasLab =
  existsSync(bundle) && spawnSync(process.execPath, [bundle, 'lab', 'up', '--help'], { encoding: 'utf8' }).stdout.includes('--bgp');
const skip = routerLabSkipReason(['frr']) ?? (hasLab ? undefined : `${bundle} has no "mlb lab up --bgp" (npm run build)`);
if (skip) console.warn(`skipping the BGP lab test: ${skip}`);

const name = `mlbt-bgp-${Math.random().toString(36).slice(2, 8)}`;
const ours = async () => (await listNetns()).filter((ns) => ns.startsWith(`${name}-`)).sort();

describe.skipIf(skip !== undefined)('Lab with an FRR router (bgp: true, 2 nodes)', () => {
  let lab: Lab;
  let dir: string;
  let labDir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mlbt-bgp-'));
    // mkdtemp makes it 0700; FRR's daemons (user frr) must pass through it to reach <lab>/router.
    chmodSync(dir, 0o711);
    labDir = join(dir, 'lab');
    lab = await Lab.up({ nodes: 2, bgp: true, name, dir: labDir, mlbCommand: [process.execPath, bundle] });
  }, 40_000);

  afterAll(async () => {
    await lab?.down().catch(() => undefined);
    await Lab.downByName({ name, dir: labDir }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('made a router namespace beside the nodes, the client and the bridge', async () => {
    expect(await ours()).toEqual([`${name}-br`, `${name}-client`, `${name}-node-1`, `${name}-node-2`, `${name}-router`]);
  });

  it("FRR has both sessions Established and the service's /32 with both nodes as next hops", async () => {
    const router = lab.router();
    const nodes = lab.plan.nodes.map((n) => n.ipv4).sort();
    const established = await waitFor(
      'both sessions Established in FRR',
      () => {
        const up = router
          .bgpSummary()
          .peers.filter((p) => p.family === 'ipv4' && p.established)
          .map((p) => p.address)
          .sort();
        return up.length === 2 ? up : undefined;
      },
      20_000,
    );
    expect(established).toEqual(nodes);
    const vip = expectedServiceIPs(await lab.readConfig()).get(LabService.bgp)?.[0];
    expect(vip).toBeDefined();
    const hops = await waitFor(
      'the /32 with two next hops',
      () => {
        const h = router.installedNextHops(`${vip}/32`);
        return h.length === 2 ? h : undefined;
      },
      20_000,
    );
    expect(hops).toEqual(nodes);
  }, 45_000);

  it('lets the client reach the routed address through the router', async () => {
    const vip = expectedServiceIPs(await lab.readConfig()).get(LabService.bgp)![0]!;
    const route = await lab.exec('client', ['ip', 'route', 'get', vip]);
    expect(route.stdout).toContain(`via ${lab.plan.router!.ipv4}`);
    const run = await lab.exec(
      'client',
      [process.execPath, bundle, 'lab', 'probe', '--target', hostPort(vip), '--count', '1', '--timeout-ms', '900'],
      15_000,
    );
    expect(parseProbeLine(run.stdout.trim()), run.stderr).toMatchObject({ ok: true, node: expect.stringMatching(/^node-[12]$/) });
  });

  it("down() removes every namespace, FRR's processes and the lab's files", async () => {
    const pids = ['zebra', 'bfdd', 'bgpd'].map((d) => readPid(join(lab.plan.router!.dir, `${d}.pid`)));
    expect(pids.every((pid) => pid !== undefined && isAlive(pid))).toBe(true);
    const report = await lab.down();
    expect([...report.namespaces].sort()).toEqual([`${name}-br`, `${name}-client`, `${name}-node-1`, `${name}-node-2`, `${name}-router`]);
    expect(await ours()).toEqual([]);
    expect(pids.filter((pid) => isAlive(pid!))).toEqual([]);
    expect(existsSync(labDir)).toBe(false);
  });
});

describe.skipIf(skip !== undefined)('Lab with an FRR router under a directory user frr cannot enter', () => {
  it('says which directory is closed, builds nothing and leaves nothing', async () => {
    const closed = mkdtempSync(join(tmpdir(), 'mlbt-bgp-closed-'));
    const closedName = `${name}c`;
    try {
      const error = await Lab.up({
        nodes: 2,
        bgp: true,
        name: closedName,
        dir: join(closed, 'lab'),
        mlbCommand: [process.execPath, bundle],
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LabError);
      expect((error as LabError).code).toBe('routerFailed');
      expect((error as LabError).message).toContain(`${closed} is closed to them`);
      expect((await listNetns()).filter((ns) => ns.startsWith(`${closedName}-`))).toEqual([]);
      expect(existsSync(join(closed, 'lab'))).toBe(false);
    } finally {
      await Lab.downByName({ name: closedName, dir: join(closed, 'lab') }).catch(() => undefined);
      rmSync(closed, { recursive: true, force: true });
    }
  });
});
