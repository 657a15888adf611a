/**
 * `mlb lab demo --bgp` end to end (root, FRR): every step happens as narrated with the real daemons and a real
 * FRR: both sessions Established, BFD up, the /32 with both next hops, the client answered through the router, a
 * node's path withdrawn through BFD (bgpd ends the session with Cease/BFD Down, not at the hold time), the node
 * back, and nothing of the lab left. Runs the built bundle (dist/mlb.mjs, or LAB_TEST_BUNDLE). Time: about 10 s.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BgpDemo } from '../../src/cli/lab/bgp-demo';
import { Lab } from '../../src/cli/lab/lab';
import { listNetns } from '../../src/cli/lab/netns';
import { routerLabSkipReason } from '../support/routers';
import { MLB_BUNDLE } from '../cli/run-cli';

const bundle = process.env.LAB_TEST_BUNDLE ?? MLB_BUNDLE;
const hasLab =
  existsSync(bundle) && spawnSync(process.execPath, [bundle, 'lab', 'demo', '--help'], { encoding: 'utf8' }).stdout.includes('--bgp');
const skip = routerLabSkipReason(['frr']) ?? (hasLab ? undefined : `${bundle} has no "mlb lab demo --bgp" (npm run build)`);
if (skip) console.warn(`skipping the BGP demo test: ${skip}`);

const name = `mlbt-bgpd-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'mlbt-bgpd-'));
// mkdtemp makes it 0700; FRR's daemons (user frr) must pass through it to reach <lab>/router.
chmodSync(dir, 0o711);

afterAll(async () => {
  if (!skip) await Lab.downByName({ name, dir: join(dir, 'lab') }).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)('mlb lab demo --bgp', () => {
  it('runs every step, in order, and removes the lab', async () => {
    const lines: string[] = [];
    const demo = new BgpDemo({
      nodes: 2,
      name,
      dir: join(dir, 'lab'),
      mlbCommand: [process.execPath, bundle],
      keep: false,
      write: (l) => lines.push(l),
    });
    const ok = await demo.run();
    const transcript = lines.join('\n');
    expect(ok, transcript).toBe(true);
    const steps = [
      /sessions Established with node-1 172\.31\.213\.11 and node-2 172\.31\.213\.12 \(hold time 90 s\)/,
      /BFD up with node-1 172\.31\.213\.11 and node-2 172\.31\.213\.12, 300 ms x 3/,
      /172\.31\.214\.10\/32 installed with 2 next hops, node-1 172\.31\.213\.11 and node-2 172\.31\.213\.12 \(ECMP/,
      /via the router 172\.31\.213\.1: 40 requests to http:\/\/172\.31\.214\.10\/ answered by node-/,
      /taking node-2's link down/,
      /FRR withdrew node-2's path [0-9.]+ s later \(bgpd: Cease\/BFD Down notification sent\).*next hops now node-1 172\.31\.213\.11$/,
      /node-2's session is Established again .* next hops node-1 172\.31\.213\.11 and node-2 172\.31\.213\.12$/,
      /lab removed: 5 namespaces deleted/,
    ];
    let at = -1;
    for (const step of steps) {
      const index = lines.findIndex((line, i) => i > at && step.test(line));
      expect(index, `${step} after line ${at} in:\n${transcript}`).toBeGreaterThan(at);
      at = index;
    }
    expect((await listNetns()).filter((ns) => ns.startsWith(`${name}-`))).toEqual([]);
  }, 120_000);
});
