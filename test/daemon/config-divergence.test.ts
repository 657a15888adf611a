/**
 * Three `mlb daemon`s on loopback; one host's file loses a service (an edit on one host, a half-written file).
 * Nothing a user sees moves: every service keeps its IP and its owner on every node, the host that lost the
 * definition keeps announcing it from its last good file, and every node's `status --json` names the host
 * whose configuration differs. Putting the file back ends it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectControl } from '../../src/cli/control-client';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';
import { configText } from './config-facts/config-yaml';
import { startDaemon, type RunningDaemon } from './run-daemon';
import { freeLoopbackPorts } from '../support/free-port';

const dir = mkdtempSync(join(tmpdir(), 'mlb-cfgdiv-'));
const running: RunningDaemon[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NODES = ['node-a', 'node-b', 'node-c'];
const SERVICES = ['api', 'db', 'web'];
/** How long the cluster may take to form, allocate, or react to an edit (gossip on loopback takes well under a second). */
const DEADLINE_MS = 20_000;
/** Each poll reads three control sockets: often enough to see a change promptly, rarely enough to stay cheap. */
const POLL_MS = 50;

const configOf = (node: string) => join(dir, `${node}.yaml`);
const socketOf = (node: string) => join(dir, `${node}.sock`);

function daemon(node: string, port: number, join_: number | undefined): RunningDaemon {
  const d = startDaemon([
    '--config',
    configOf(node),
    '--node-name',
    node,
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--state-dir',
    join(dir, node),
    '--control-socket',
    socketOf(node),
    '--no-announce',
    ...(join_ === undefined ? [] : ['--join', `127.0.0.1:${join_}`]),
  ]);
  running.push(d);
  return d;
}

async function snapshots(): Promise<Map<string, ControlSnapshot>> {
  return new Map(await Promise.all(NODES.map(async (n) => [n, await connectControl(socketOf(n)).getSnapshot()] as const)));
}

/** Polls every node's snapshot until `done` holds for all of them, or fails after DEADLINE_MS with the last ones. */
async function until(what: string, done: (all: Map<string, ControlSnapshot>) => boolean): Promise<Map<string, ControlSnapshot>> {
  const deadline = Date.now() + DEADLINE_MS;
  let last: Map<string, ControlSnapshot> | undefined;
  for (;;) {
    try {
      last = await snapshots();
      if (done(last)) return last;
    } catch {
      // A daemon not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${DEADLINE_MS} ms; last: ${JSON.stringify([...(last ?? [])].map(([n, s]) => [n, s.services, s.configAgreement]))}`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** "service ip" -> owner, as one node sees it. */
function owners(s: ControlSnapshot): Record<string, string | null> {
  return Object.fromEntries(s.services.map((svc) => [`${svc.service} ${svc.ips.join(',')}`, svc.owner]));
}

describe("one node's configuration loses a service", () => {
  it('no VIP goes dark or moves, and every node names the node whose file differs', async () => {
    for (const n of NODES) writeFileSync(configOf(n), configText(SERVICES));
    const [pa, pb, pc] = (await freeLoopbackPorts(3)) as [number, number, number];
    const daemons = [daemon('node-a', pa, undefined), daemon('node-b', pb, pa), daemon('node-c', pc, pa)];
    const settled = (all: Map<string, ControlSnapshot>) => {
      const views = [...all.values()].map((s) => JSON.stringify(owners(s)));
      const one = [...all.values()][0] as ControlSnapshot;
      return (
        new Set(views).size === 1 &&
        one.services.length === SERVICES.length &&
        one.services.every((svc) => svc.owner !== null && svc.ips.length > 0) &&
        [...all.values()].every(
          (s) => s.members.filter((m) => m.state === 'alive').length === NODES.length && (s.configAgreement?.awaiting.length ?? 1) === 0,
        )
      );
    };
    const before = await until('the cluster allocates and elects every service', settled);
    const expected = owners(before.get('node-a') as ControlSnapshot);
    const allocator = (before.get('node-a') as ControlSnapshot).allocation.allocator as string;

    // The allocator's file loses the service it owns if it owns one (the worst case: the releasing node and
    // the announcing node at once), else the first.
    const svcs = (before.get(allocator) as ControlSnapshot).services;
    const lost = (svcs.find((svc) => svc.owner === allocator) ?? svcs[0])!.service;
    const logged = daemons.map((d) => d.lines.length);
    writeFileSync(configOf(allocator), configText(SERVICES.filter((s) => `demo/${s}` !== lost)));

    const others = NODES.filter((n) => n !== allocator);
    const diverged = await until(
      'every node names the node whose file differs',
      (all) =>
        others.every((n) => JSON.stringify(all.get(n)?.configAgreement?.divergent.map((d) => d.node)) === JSON.stringify([allocator])) &&
        JSON.stringify(all.get(allocator)?.configAgreement?.divergent.map((d) => d.node)) === JSON.stringify(others),
    );
    for (const [node, s] of diverged) {
      expect(owners(s), `${node}'s view of the owners`).toEqual(expected);
    }
    const onAllocator = diverged.get(allocator) as ControlSnapshot;
    expect(onAllocator.configAgreement?.retained).toEqual([{ service: lost, definedBy: others }]);
    expect(diverged.get(others[0] as string)?.configAgreement?.divergent[0]?.message).toBe(
      `${allocator}'s configuration differs from this node's (2 services vs 3): it lacks ${lost}`,
    );
    const explained = (await connectControl(socketOf(allocator)).getExplain()).filter((e) => e.service === lost);
    expect(explained[0]?.notes?.[0]).toContain(
      `no longer defines ${lost}; elected from its last good definition while ${others.join(', ')} still define it`,
    );
    // The owner still holds it locally: its own view, not only the others' election.
    const ownerOfLost = Object.entries(expected).find(([k]) => k.startsWith(`${lost} `))?.[1] as string;
    const lostIP = Object.keys(expected)
      .find((k) => k.startsWith(`${lost} `))
      ?.split(' ')[1] as string;
    expect((diverged.get(ownerOfLost) as ControlSnapshot).local.announced.map((a) => a.ip)).toContain(lostIP);

    // Put right: the difference is gone everywhere, and still nothing moved.
    writeFileSync(configOf(allocator), configText(SERVICES));
    const healed = await until('every node agrees again', (all) =>
      [...all.values()].every((s) => s.configAgreement?.divergent.length === 0 && s.configAgreement.retained.length === 0),
    );
    for (const s of healed.values()) expect(owners(s)).toEqual(expected);
    // Not even for a moment in between: no node logged an owner change or a release since the edit.
    const since = daemons.flatMap((d, i) => d.lines.slice(logged[i]));
    expect(since.filter((l) => l.event === 'ownerChanged')).toEqual([]);
    expect(since.filter((l) => l.event === 'allocationsPublished')).toEqual([]);
    expect(since.filter((l) => l.event === 'configDiverged').length).toBeGreaterThanOrEqual(NODES.length);
  }, 60_000);

  it('a node whose file never had the service is not elected for it: another node holds it, and explain says why', async () => {
    const lacking = 'node-b';
    for (const n of NODES) writeFileSync(configOf(n), configText(n === lacking ? SERVICES.filter((s) => s !== 'web') : SERVICES));
    const [pa, pb, pc] = (await freeLoopbackPorts(3)) as [number, number, number];
    daemon('node-a', pa, undefined);
    daemon('node-b', pb, pa);
    daemon('node-c', pc, pa);
    const all = await until(
      'the others hold demo/web and every node names node-b',
      (snaps) =>
        [...snaps].every(([n, s]) =>
          n === lacking ? s.configAgreement?.divergent.length === 2 : s.configAgreement?.divergent[0]?.node === lacking,
        ) &&
        NODES.filter((n) => n !== lacking).every(
          (n) => typeof snaps.get(n)?.services.find((svc) => svc.service === 'demo/web')?.owner === 'string',
        ),
    );
    const web = (all.get('node-a') as ControlSnapshot).services.find((svc) => svc.service === 'demo/web');
    expect(web?.owner).not.toBe(lacking);
    expect((all.get('node-c') as ControlSnapshot).services.find((svc) => svc.service === 'demo/web')?.owner).toBe(web?.owner);
    expect(web?.candidates.find((c) => c.node === lacking)?.reason).toBe('serviceNotConfigured');
    expect((all.get(lacking) as ControlSnapshot).local.announced.map((a) => a.ip)).not.toContain(web?.ips[0]);
  }, 60_000);
});
