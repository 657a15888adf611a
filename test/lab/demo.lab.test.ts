/**
 * `mlb lab demo` end to end (root): every step happens as narrated with the real daemons: the VIP answers the
 * client, moves when its owner loses power, comes back or stays (warm-up), leaves an unhealthy node, a reloaded
 * service answers, a drained node gives its IP away; then nothing of the lab is left. This rests on the daemon's
 * election, health checks, reload and drain: a failure here names the step, and the daemons' last log lines.
 *
 * Runs the built bundle (dist/mlb.mjs, or LAB_TEST_BUNDLE) with `mlb lab` in it. Time: about 15 s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Demo } from '../../src/cli/lab/demo';
import { Lab } from '../../src/cli/lab/lab';
import { listNetns } from '../../src/cli/lab/netns';
import { canUseNetns } from '../support/netns-lab';
import { MLB_BUNDLE } from '../cli/run-cli';

const bundle = process.env.LAB_TEST_BUNDLE ?? MLB_BUNDLE;
const netns = canUseNetns();
const hasLab =
  existsSync(bundle) && spawnSync(process.execPath, [bundle, 'lab', '--help'], { encoding: 'utf8' }).stdout.includes('mlb lab demo');
const skip = !netns.ok
  ? netns.why
  : !hasLab
    ? `${bundle} has no "mlb lab" command yet (register labCommand, then npm run build)`
    : undefined;
if (skip) console.warn(`skipping the lab demo test: ${skip}`);

const name = `mlbt-demo-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'mlbt-demo-'));

afterAll(async () => {
  if (!skip) await Lab.downByName({ name, dir: join(dir, 'lab') }).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)('mlb lab demo', () => {
  it('runs every step, in order, and removes the lab', async () => {
    const lines: string[] = [];
    const demo = new Demo({
      nodes: 3,
      name,
      dir: join(dir, 'lab'),
      mlbCommand: [process.execPath, bundle],
      kill: 'node',
      keep: false,
      write: (l) => lines.push(l),
    });
    const ok = await demo.run();
    expect(ok, lines.join('\n')).toBe(true);

    const text = lines.map((l) => l.replace(/^\[[ 0-9.]+ s\] /, ''));
    const index = (pattern: RegExp) => {
      const i = text.findIndex((l) => pattern.test(l));
      expect(i, `no line matching ${pattern} in:\n${lines.join('\n')}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const answers = index(/^172\.31\.213\.200 answers from (node-\d)/);
    const owner = /from (node-\d)/.exec(text[answers]!)![1]!;
    const kill = index(new RegExp(`^killing ${owner} as a machine losing power`));
    const failover = index(/^answers come from node-\d [0-9.]+ s later/);
    expect(/^answers come from (node-\d)/.exec(text[failover]!)![1]).not.toBe(owner);
    const health = index(/health check fail: its \/healthz now answers 503/);
    const reload = index(/^172\.31\.213\.211 answers from node-\d/);
    const drain = index(/^draining node-\d: mlb drain --socket/);
    const removed = index(/^lab removed: 5 namespaces deleted/);
    expect([answers, kill, failover, health, reload, drain, removed]).toEqual(
      [answers, kill, failover, health, reload, drain, removed].sort((a, b) => a - b),
    );
    expect((await listNetns()).filter((ns) => ns.startsWith(`${name}-`))).toEqual([]);
  });
});
