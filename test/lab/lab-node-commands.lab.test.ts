/**
 * `mlb lab kill|stop|start|restart|partition|heal|health NODE` and the daemons' metrics, against one real lab of two
 * nodes built by `mlb lab up` (root). Each step does what a user would and checks what they would see: the pid
 * gone, node-1's `mlb status` calling node-2 dead or left, a partitioned node-2 still running and still reached by
 * the client while node-1 finds it dead, healing leaving no rule behind, a failing health check moving the service,
 * /metrics answering on every node. (Asked twice, each command does nothing the second time: node-control.test.ts.)
 * Runs the built bundle (dist/mlb.mjs, or LAB_TEST_BUNDLE). The lab's name is unique per run (LAB_NETNS_PREFIX,
 * then random) and it is removed after, whatever happened. Time: about a minute on a busy 2-core machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../src/cli/lab/lab';
import { readSnapshotText } from '../../src/cli/lab/lab-control';
import { childEnv } from '../../src/cli/lab/lab-process';
import { LabService } from '../../src/cli/lab/lab-config';
import { isAlive, run, sleep, type ExecResult } from '../../src/cli/lab/netns';
import { LAB_PREFIX, canUseNetns } from '../support/netns-lab';
import { MLB_BUNDLE } from '../cli/run-cli';

const bundle = process.env.LAB_TEST_BUNDLE ?? MLB_BUNDLE;
const netns = canUseNetns();
const hasNodeCommands =
  existsSync(bundle) && spawnSync(process.execPath, [bundle, 'lab', '--help'], { encoding: 'utf8' }).stdout.includes('mlb lab demo');
const skip = !netns.ok ? netns.why : !hasNodeCommands ? `${bundle} is missing or has no "mlb lab" (npm run build)` : undefined;
if (skip) console.warn(`skipping the lab node-command tests: ${skip}`);
const hasNft = spawnSync('nft', ['--version']).status === 0;

/** One `mlb lab up` builds and joins two daemons in a few seconds; on a loaded 2-core machine it took 15 s. */
const UP_TIMEOUT_MS = 90_000;
/** A CLI command that starts a daemon waits for it to join (DAEMON_START_TIMEOUT_MS is 20 s). */
const COMMAND_TIMEOUT_MS = 30_000;
/**
 * Failure detection (fast profile: about 1-3 s), a health check's fall (2 x 500 ms) and a healed node's rejoin
 * (peers rejoin every 5 s) all fit well inside this on a busy machine.
 */
const CONVERGE_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

const labName = `${LAB_PREFIX}-nc-${Math.random().toString(36).slice(2, 8)}`;

function mlb(...args: string[]): Promise<ExecResult> {
  return run([process.execPath, bundle, ...args], COMMAND_TIMEOUT_MS, childEnv());
}

/** Polls until `check` answers true; fails naming `what` and the last answer seen. */
async function until(what: string, check: () => Promise<boolean>, last: () => unknown = () => undefined): Promise<void> {
  const deadline = Date.now() + CONVERGE_TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() >= deadline)
      throw new Error(`not within ${CONVERGE_TIMEOUT_MS / 1000} s: ${what} (last seen: ${JSON.stringify(last())})`);
    await sleep(POLL_MS);
  }
}

describe.skipIf(skip !== undefined)('mlb lab node commands (a lab of 2 nodes)', () => {
  let dir: string;
  let labDir: string;
  let up: ExecResult;
  let lab: Lab;

  /** What `at`'s daemon thinks of member `of` (alive, suspect, dead, left), or undefined. */
  async function memberState(at: string, of: string): Promise<string | undefined> {
    const text = await readSnapshotText(lab.controlSocket(at));
    const members = text === undefined ? [] : ((JSON.parse(text) as { members?: { name: string; state: string }[] }).members ?? []);
    return members.find((m) => m.name === of)?.state;
  }

  async function waitForMember(at: string, of: string, states: string[]): Promise<void> {
    let seen: string | undefined;
    await until(
      `${at} sees ${of} ${states.join(' or ')}`,
      async () => states.includes((seen = await memberState(at, of)) ?? ''),
      () => seen,
    );
  }

  /** The node name the client gets from http://IP/, or the error. */
  async function clientGets(ip: string): Promise<string> {
    const script = `fetch('http://${ip}/', { signal: AbortSignal.timeout(2000) }).then((r) => r.text()).then((t) => console.log(t.trim()), (e) => console.log('error', e.cause?.code ?? e.name))`;
    return (await lab.exec('client', [process.execPath, '-e', script], COMMAND_TIMEOUT_MS)).stdout.trim();
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mlbt-lab-nc-'));
    labDir = join(dir, 'lab');
    up = await run([process.execPath, bundle, 'lab', 'up', '--nodes', '2', '--name', labName, '--dir', labDir], UP_TIMEOUT_MS, childEnv());
    expect(up.status, up.stderr).toBe(0);
    lab = await Lab.attach(labDir);
  }, UP_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await Lab.downByName({ name: labName, dir: labDir }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it("up prints the node commands and every node's metrics URL", () => {
    expect(up.stdout).toContain(`sudo mlb lab kill node-2 --dir ${labDir}`);
    expect(up.stdout).toContain(`sudo mlb lab partition node-2 --dir ${labDir}`);
    expect(up.stdout).toContain(`sudo mlb lab health node-2 fail --dir ${labDir}`);
    for (const node of lab.plan.nodes) {
      expect(up.stdout).toContain(`sudo ip netns exec ${node.netns} curl -s http://${node.ipv4}:7472/metrics`);
    }
  });

  it("serves Prometheus metrics on every node's address", async () => {
    const answers = await Promise.all(
      lab.plan.nodes.map(async (node) => {
        const script = `fetch('http://${node.ipv4}:7472/metrics').then(async (r) => console.log(r.status, await r.text()), (e) => console.log(e.cause?.code ?? e.message))`;
        return (await lab.exec(node.name, [process.execPath, '-e', script], COMMAND_TIMEOUT_MS)).stdout;
      }),
    );
    for (const answer of answers) {
      expect(answer.startsWith('200 '), answer.slice(0, 200)).toBe(true);
      expect(answer).toContain('# TYPE metallb_speaker_announced gauge');
      expect(answer).toContain('mlb_config_reloads_total{result="success"}');
    }
  });

  it('health fail moves the health-checked service off the node; pass lets the check pass again', async () => {
    const owner = (await lab.ownership(LabService.web))?.owner;
    expect(owner, 'demo/web has an owner').toBeTruthy();
    const other = lab.nodeNames.find((n) => n !== owner)!;
    const fail = await mlb('lab', 'health', owner!, 'fail', '--dir', labDir);
    expect(fail.status, fail.stderr).toBe(0);
    expect(fail.stdout).toContain(`${owner}: its health check now fails`);
    let seen: unknown;
    await until(
      `demo/web moves from ${owner} to ${other}`,
      async () => (seen = await lab.ownership(LabService.web, other))?.owner === other,
      () => seen,
    );
    const pass = await mlb('lab', 'health', owner!, 'pass', '--dir', labDir);
    expect(pass.stdout).toContain(`${owner}: its health check passes again`);
    await until(
      `${owner} passes demo/web's check again`,
      async () => ((seen = await lab.ownership(LabService.web, other))?.passing ?? []).includes(owner!),
      () => seen,
    );
  });

  it.skipIf(!hasNft)(
    'partition: node-1 finds node-2 dead while node-2 runs and the client still reaches it; heal: alive again, no rule left',
    async () => {
      const pid = lab.daemonPid('node-2');
      const cut = await mlb('lab', 'partition', 'node-2', '--dir', labDir);
      expect(cut.status, cut.stderr).toBe(0);
      expect(cut.stdout).toContain('node-2: partitioned from node-1');
      await waitForMember('node-1', 'node-2', ['suspect', 'dead']);
      expect(lab.daemonPid('node-2')).toBe(pid);
      expect(await clientGets(lab.node('node-2').ipv4)).toBe('node-2');

      const heal = await mlb('lab', 'heal', 'node-2', '--dir', labDir);
      expect(heal.status, heal.stderr).toBe(0);
      expect(heal.stdout).toContain('node-2: healed');
      expect((await lab.exec('node-2', ['nft', 'list', 'ruleset'])).stdout.trim()).toBe('');
      await waitForMember('node-1', 'node-2', ['alive']);
      await waitForMember('node-2', 'node-1', ['alive']);
    },
  );

  it("kill: the process is gone and node-1's status shows node-2 dead; restart brings it back", async () => {
    const pid = lab.daemonPid('node-2')!;
    const kill = await mlb('lab', 'kill', 'node-2', '--dir', labDir);
    expect(kill.status, kill.stderr).toBe(0);
    expect(kill.stdout).toContain(`node-2: daemon killed with SIGKILL (pid ${pid})`);
    expect(isAlive(pid)).toBe(false);
    await waitForMember('node-1', 'node-2', ['dead']);
    const status = await mlb('status', '--once', '--socket', lab.controlSocket('node-1'));
    expect(status.stdout).toMatch(/^node-2\s+dead\b/m);

    const restart = await mlb('lab', 'restart', 'node-2', '--dir', labDir);
    expect(restart.status, restart.stderr).toBe(0);
    const again = await Lab.attach(labDir);
    const newPid = again.daemonPid('node-2');
    expect(newPid).toBeDefined();
    expect(restart.stdout).toContain(`started it (pid ${newPid})`);
    await waitForMember('node-1', 'node-2', ['alive']);
  });

  it('stop: node-2 leaves (node-1 shows it left); start: it is back', async () => {
    lab = await Lab.attach(labDir);
    const stop = await mlb('lab', 'stop', 'node-2', '--dir', labDir);
    expect(stop.status, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('node-2: daemon stopped with SIGTERM');
    await waitForMember('node-1', 'node-2', ['left']);
    const start = await mlb('lab', 'start', 'node-2', '--dir', labDir);
    expect(start.stdout).toContain('node-2: daemon started');
    await waitForMember('node-1', 'node-2', ['alive']);
  });

  it('exits 1 for a node the lab does not have, and for a directory with no lab', async () => {
    const [unknown, none] = await Promise.all([
      mlb('lab', 'kill', 'node-9', '--dir', labDir),
      mlb('lab', 'health', 'node-2', 'fail', '--dir', join(dir, 'no-lab')),
    ]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain(`no node-9 in lab ${labName}: it has node-1, node-2`);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain(`no lab in ${join(dir, 'no-lab')}`);
  });
});
